#!/usr/bin/env bash
# Session 37, call 2: the check owed on session 36's final code, on this session's code:
# 1. test_cuda_fp8 whole (every FP8 GPU test and the model tests, test_fp8_nan as 6dae2a9 made
#    it: each kernel family forced alone; test_fp8_pdl's five launch contexts);
# 2. IRv2 `default` at batch 32 against infer8's fp16 (session 36: x 1.190 / 1.189).
# Before the call, here: tools/prepare-device.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_tests 360
bench_step irv2-b32 inception_resnet_v2 32 140
grep -o "weights [0-9.]* -> [0-9.]* MiB" "$OUT/irv2-b32/fp8_bench.md" 2>/dev/null
pack_call call2
