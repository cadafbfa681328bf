#!/usr/bin/env bash
# Session 30 call 1.
# 1. Where the residual TMA kernel's time goes: the lab's Block17 up-projection at batch 32 in the
#    default recipe's mode (e4m3 in, fp16 + e4m3 out, fp16 residual: mode 4), every TMA variant
#    timed, then Nsight Compute on variant 53 (tma128x64s4pr, the one the tuner picks for it) with
#    per-SASS-instruction stall samples ($OUT/ncu-53-sass.csv.gz).
# 2. The owed check of session 29's final code (46b1d90, a7aa807): every FP8 GPU test (fp8_tests,
#    test_inception_v3_fp8_own among them).
# 3. IRv2 `default` at batch 32 with choose_own (fp8_bench: 7 interleaved rounds against
#    infer8's fp16 in the same process).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-540}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
stamp "lab: Block17 up b32, mode 4"
FP8_LAB_SHAPE="Block17 up 1x1 384->1088 @17 b32" FP8_LAB_MODE=4 timeout $(cap 60) build-device/bin/fp8_lab >"$OUT/lab-b17up.txt" 2>&1
grep -E "tma|wgmma64x64s2|FAIL|WRONG" "$OUT/lab-b17up.txt" | head -30
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -n "$ncu" ]; then
  stamp "ncu variant 53"
  FP8_LAB_SHAPE="Block17 up 1x1 384->1088 @17 b32" FP8_LAB_MODE=4 FP8_LAB_VARIANT=53 timeout $(cap 120) \
    "$ncu" --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --section SourceCounters --section LaunchStats --import-source no -k regex:'tma_fp8' --launch-count 1 \
    -o /tmp/ncu53 build-device/bin/fp8_lab >"$OUT/ncu-53.log" 2>&1; echo "ncu exit $?"
  "$ncu" -i /tmp/ncu53.ncu-rep >"$OUT/ncu-53.txt" 2>&1
  grep -E "Duration|Throughput|Eligible|Issued Warp|No Eligible|Cycles Per Issued|[Ss]tall" "$OUT/ncu-53.txt" | head -30
  "$ncu" -i /tmp/ncu53.ncu-rep --page source --print-source sass --csv 2>&1 | gzip >"$OUT/ncu-53-sass.csv.gz"
  ls -la "$OUT"
else
  echo "no ncu"
fi
stamp "fp8_tests"
FP8_TESTS_TIMEOUT=$(cap 300) tools/gpu-check fp8_tests 2>&1 | tail -40
bench_step irv2-b32 inception_resnet_v2 32 140
pack_call call1
