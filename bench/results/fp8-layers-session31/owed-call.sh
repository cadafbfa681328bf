#!/usr/bin/env bash
# Prepared for the next session (not run): the one-call check of session 31's final code (1075be3),
# whose review mend (the TMA epilogue through the shared ldmatrix_x4; choose_plain handing its time
# to choose_own as an argument) changed GPU-side code after calls 1-3 ran on 73876b8's.
# 1. test_cuda_fp8 whole (every FP8 GPU test), cuDNN budget 10 s (279 s in session 31);
# 2. the fp16 backend's tests (cuda_tests, the graph choice);
# 3. IRv2 `default` at batch 32 against infer8's fp16, 7 interleaved rounds (about 140 s).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-575}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
stamp "test_cuda_fp8 (all)"
INFER8_CUDA_CUDNN_BUDGET=10 INFER8_CUDA_DEBUG=1 timeout $(cap 330) build-device/tests/test_cuda_fp8 >"$OUT/fp8_tests.log" 2>&1
echo "test_cuda_fp8 exit $?"
grep -E "^\[  (PASSED|FAILED)|^\[ +(FAILED|SKIPPED) |max rel logit" "$OUT/fp8_tests.log" | tail -12
bench_step irv2-b32 inception_resnet_v2 32 140
if [ "$(left)" -ge 90 ]; then
  stamp cuda_tests
  INFER8_CUDA_CUDNN_BUDGET=4 timeout $(cap 150) tools/gpu-check cuda_tests 2>&1 | grep -E "PASSED|FAILED|exit" | tail -3
fi
pack_call owed-call
