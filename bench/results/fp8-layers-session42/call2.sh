#!/usr/bin/env bash
# Session 42 call 2: where the TMA kernels' time goes at batch 32, on 2c60461 (session 41's kernels;
# the lab gains IRv2's 7x1 160 -> 192 at batch 32). Call 1 showed the 7x1 no faster with a third
# fewer K stages (32-channel sub-slices), so its time is not the padded K.
#   lab-*    every variant of the kernel lab on four IRv2 batch-32 convs (times, outputs checked),
#            with the lab's ablations of tma128x64s4 on the pointwise ones (63 no epilogue, 64 no
#            global stores, 65 no wgmma, 66 no TMA loads) and its one-wgmma-group-in-flight
#            kernels (67 tma128x64s4w, 68 tma128x64s4rw)
#   ncu-*    Nsight Compute (speed of light, warp states, stall samples per SASS instruction) on the
#            product's kernel of the 7x1 (56, tma128x64s4pc) and of Block17's branch 1x1 (48)
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-400}
. tools/device-call.sh
call_setup
lab_mode() {
  local file=$1 shape=$2 mode=$3
  [ "$(left)" -gt 30 ] || { echo "lab $shape skipped"; return 0; }
  stamp "lab $shape, mode $mode"
  FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode timeout "$(cap 60)" build-device/bin/fp8_lab >"$OUT/$file" 2>&1
  echo "exit $?" >>"$OUT/$file"
  grep -E "best|WRONG|FAIL|exit" "$OUT/$file" | head -6
}
lab_mode lab-7x1.txt "7x1 160->192 @17 b32" 0
lab_mode lab-1x7.txt "1x7 128->160 @17 b32" 0
lab_mode lab-b17branch.txt "Block17 branch 1x1 1088->192 @17 b32" 0
lab_mode lab-b17up.txt "Block17 up 1x1 384->1088 @17 b32 +res" 4
ncu_step ncu-7x1-56 "7x1 160->192 @17 b32" 0 56
ncu_step ncu-b17branch-48 "Block17 branch 1x1 1088->192 @17 b32" 0 48
pack_call call2
