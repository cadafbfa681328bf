#!/usr/bin/env bash
# Session 31 call 2: the fp16 backend's GPU tests (cuda_tests: choose_own now takes the base graph's
# time from choose_plain) and the FP8 benchmark on the final code: infer8's fp16 against FP8
# `default`, 7 interleaved rounds of CUDA-graph replays in one process per model and batch.
# calib_tests (call 1 had no time left for it). Order: IRv2 b1 (call 1 ran b32), then inception_v4 and inception_v3 at
# batch 32, then their batch 1 in what is left.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-575}
. tools/device-call.sh
stamp "cuda_tests"
INFER8_CUDA_CUDNN_BUDGET=4 timeout $(cap 200) tools/gpu-check cuda_tests 2>&1 | grep -E "^\[  (PASSED|FAILED)|FAILED|exit" | tail -5
timeout $(cap 90) tools/gpu-check calib_tests 2>&1 | tail -3
bench_step irv2-b1 inception_resnet_v2 1 90
bench_step v4-b32 inception_v4 32 105
bench_step v3-b32 inception_v3 32 65
bench_step v4-b1 inception_v4 1 45
bench_step v3-b1 inception_v3 1 40
pack_call call2
