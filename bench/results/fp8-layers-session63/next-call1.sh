#!/usr/bin/env bash
# For session 64 (prepared in session 63). Carry [".devcarry"]; best on an H200 (issue 5's goal is
# stated for it; session 63 got H100s only). Session 63's final code ran test_inception_v3_fp8* and
# IRv2 at batch 32 (x 1.295, H100); every test_fp* ran on 2e4cd8b, before the warm-up switch's
# removal. In order:
# 1. the lab at batch 1, e4m3-only output (FP8_LAB_MODE=6, "q->q": the epilogue most IRv2 branch
#    1x1s run) next to the dual one (mode 0): session 63's graph-timed lab put the own TMA kernel at
#    4.00 us (320->32) and 6.80 us (2080->192) in dual mode against cuDNN e4m3's 2.40 / 4.48 in
#    fp8_bench's profile, and without its epilogue (abl-noepi) at 2.44 / 4.76; both modes now also
#    run abl-nochan (lab variant 88: the epilogue without its channel scales' load and two-barrier
#    stage, 775e434) and tma128x64s4x (89: the real kernel skipping the epilogue of warps whose rows
#    all lie past M and of a channel half past c_out; outputs checked): if x wins, the product's
#    cooperative TMA kernels can take it (AB_SKIP_IDLE in cuda_fp8_tma.cu);
# 2. Nsight Compute on one warm launch of tma128x64s4 (variant 48) and of tma128x64s4x (89) on
#    320->32 in mode 6, at the device's clocks, with the densest stall sampling (session 62's cold
#    profile had 36 samples);
# 3. every test_fp* and test_inception_v3_fp8* on the final code.
# next-call2.sh and next-call3.sh have the rows.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
lab_step lab-b1-qq.txt "320->32 @35 b1" FP8_LAB_MODE=6
lab_step lab-b1-qq.txt "2080->192 @8 b1" FP8_LAB_MODE=6
lab_step lab-b1-dual.txt "320->32 @35 b1"
lab_step lab-b1-dual.txt "2080->192 @8 b1"
NCU_SKIP=20 NCU_FLAGS="--cache-control none --clock-control none --warp-sampling-interval 0" \
  ncu_step ncu-b35-b1-v48-qq-warm "320->32 @35 b1" 6 48
NCU_SKIP=20 NCU_FLAGS="--cache-control none --clock-control none --warp-sampling-interval 0" \
  ncu_step ncu-b35-b1-v89-qq-warm "320->32 @35 b1" 6 89
fp8_tests_step fp8_all 230 'test_fp*'
fp8_tests_step fp8_v3 110 'test_inception_v3_fp8*'
pack_call next1
