#!/usr/bin/env bash
# Session 35, call 2, on the final GPU code (call 1's plus the fix it asked for: the third launch
# candidate, PDL without priorities, no longer overrides a forced priority graph):
# 1. test_fp8_priority (failed in call 1: the third candidate dropped the forced priority graph)
#    and test_fp8_pdl (now a fourth pass, priority and launch both timed).
# 2. The fp16 backend's GPU tests (cuda_tests) and the GPU calibration tests (calib_tests).
# 3. Issue 5's other rows: IRv2 at batch 1, inception_v3 at batch 32, v4 and v3 at batch 1.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
fp8_tests_step fp8_tests_choice 60 "test_fp8_p*"
for step in cuda_tests calib_tests; do
  stamp "$step"
  INFER8_CUDA_CUDNN_BUDGET=4 timeout $(cap 170) tools/gpu-check $step 2>&1 | grep -E "PASSED|FAILED|exit" | tail -3
done
bench_step irv2-b1 inception_resnet_v2 1 85
bench_step v3-b32 inception_v3 32 90
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 45
pack_call call2
