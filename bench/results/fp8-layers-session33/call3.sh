#!/usr/bin/env bash
# Session 33 call 3, on the final code (as call 2): the other rows of issue 5's table
# (inception_v4 and inception_v3 at batch 32 and 1 against infer8's fp16), then the fp16 backend's
# GPU tests (cuda_tests) and the GPU calibration tests (calib_tests).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
bench_step v4-b32 inception_v4 32 95
bench_step v3-b32 inception_v3 32 85
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 50
for step in cuda_tests calib_tests; do
  if [ "$(left)" -lt 60 ]; then echo "$step skipped: $(left) s left"; continue; fi
  stamp "$step"
  INFER8_CUDA_CUDNN_BUDGET=4 timeout $(cap 150) tools/gpu-check $step 2>&1 | grep -E "PASSED|FAILED|exit" | tail -3
done
pack_call call3
