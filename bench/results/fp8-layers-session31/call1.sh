#!/usr/bin/env bash
# Session 31 call 1: the TMA kernels' epilogue with relu inside the fp16 / e4m3 conversions
# (cvt .relu: 64 FMNMX less per warp and tile) and the residual tile read with ldmatrix (one
# instruction per four 8x8 matrices instead of a load and a swizzled address per value pair):
# session 30's SASS counted 898 epilogue instructions per warp and tile of tma128x64s4pr. And the
# wgmma descriptors of a K slice as one base plus constant offsets (wg_desc_add), where each took
# about 8 instructions (130 per K slice before its 8 wgmma), in the TMA, cp.async and halo kernels.
# 1. The lab, base (session 30's kernels, .devcarry/fp8_lab_base, built from d34d825) against the
#    new build, interleaved, on the three up-projections with their residual (mode 4) and two
#    branch 1x1 convs (mode 0, dual output), every output checked against the lab's reference.
# 2. Nsight Compute SASS stall samples of the new tma128x64s4pr on the Block17 up-projection.
# 3. GPU tests of the kernels the change touches: 1x1, im2col (TMA im2col kernels share the
#    epilogue), halo (wgmma_rs descriptors), the TMA tile loops, the fused residuals.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-390}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
for spec in "4:Block17 up 1x1 384->1088 @17 b32" "4:Block8 up 1x1 448->2080 @8 b32" "4:Block35 up 1x1 128->320 @35 b32" \
  "0:Block17 branch 1x1 1088->192 @17 b32" "0:Block8 branch 1x1 2080->192 @8 b32"; do
  mode=${spec%%:*} shape=${spec#*:}
  for lab in base new; do
    bin=build-device/bin/fp8_lab
    [ $lab = base ] && bin=.devcarry/fp8_lab_base
    stamp "lab $lab: $shape, mode $mode"
    { echo "### $lab"; FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode timeout $(cap 40) $bin; echo "exit $?"; } >>"$OUT/lab.txt" 2>&1
  done
done
grep -E "^###|^(Block|v3)|tma128x64s4(p|pr|r)? |best|WRONG|FAIL|exit [1-9]" "$OUT/lab.txt" | head -80
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -n "$ncu" ]; then
  stamp "ncu b17up variant 53 (new)"
  FP8_LAB_SHAPE="Block17 up 1x1 384->1088 @17 b32" FP8_LAB_MODE=4 FP8_LAB_VARIANT=53 timeout $(cap 90) \
    "$ncu" --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section SourceCounters \
    --import-source no -k regex:'tma_fp8' --launch-count 1 -o /tmp/ncu-b17up build-device/bin/fp8_lab >"$OUT/ncu-b17up.log" 2>&1
  echo "ncu exit $?"
  "$ncu" -i /tmp/ncu-b17up.ncu-rep >"$OUT/ncu-b17up-53.txt" 2>&1
  "$ncu" -i /tmp/ncu-b17up.ncu-rep --page source --print-source sass --csv 2>&1 | gzip >"$OUT/ncu-b17up-53-sass.csv.gz"
  grep -E "Duration|Issued Warp|No Eligible|Registers" "$OUT/ncu-b17up-53.txt"
  python3 bench/ncu_sass_stalls.py --top 8 "$OUT/ncu-b17up-53-sass.csv.gz" 2>&1 | head -30
fi
for filter in test_fp8_1x1 'test_fp8_tma*' 'test_fp8_residual*' 'test_fp8_im2col*' 'test_fp8_halo*'; do
  stamp "test_cuda_fp8 $filter"
  INFER8_TEST_FILTER="$filter" INFER8_CUDA_DEBUG=1 timeout $(cap 120) build-device/tests/test_cuda_fp8 >>"$OUT/fp8_tests.log" 2>&1
  echo "exit $?"
done
grep -E "^\[|max rel|with residual on|on every SM|on 2 blocks|chain on" "$OUT/fp8_tests.log" | grep -v "^\[ RUN" | tail -40
pack_call call1
