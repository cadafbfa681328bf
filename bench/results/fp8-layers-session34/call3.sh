#!/usr/bin/env bash
# Session 34 call 3, on the final GPU code (as call 2): the fp16 backend's GPU tests (cuda_tests)
# and the GPU calibration tests (calib_tests), then the other rows of issue 5's table
# (inception_v4 and inception_v3 at batch 32 and 1 against infer8's fp16), then, if time is left,
# IRv2 at batch 32 with INFER8_CUDA_PRIORITY=0 (the launch choice against the graph without stream
# priorities: in call 1, PDL forced, the graph without priorities won).
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
for step in cuda_tests calib_tests; do
  stamp "$step"
  INFER8_CUDA_CUDNN_BUDGET=4 timeout $(cap 170) tools/gpu-check $step 2>&1 | grep -E "PASSED|FAILED|exit" | tail -3
done
bench_step v4-b32 inception_v4 32 95
bench_step v3-b32 inception_v3 32 85
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 45
INFER8_CUDA_PRIORITY=0 bench_step irv2-b32-prio0 inception_resnet_v2 32 125
pack_call call3
