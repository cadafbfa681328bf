#!/usr/bin/env bash
# Session 36, call 1: the check owed on session 35's final code, on this session's code (the joint
# launch choice, choose_launch; NaN kept through relu and max pool by the own kernels):
# 1. test_cuda_fp8 whole (every FP8 GPU test and the model tests; new: test_fp8_nan, and
#    test_fp8_pdl's five passes over the launch combinations);
# 2. IRv2 `default` at batch 32 against infer8's fp16 (session 35: x 1.205 / 1.208).
# Before the call, here: tools/prepare-device.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_tests 360
bench_step irv2-b32 inception_resnet_v2 32 140
grep -o "weights [0-9.]* -> [0-9.]* MiB" "$OUT/irv2-b32/fp8_bench.md" 2>/dev/null
pack_call call1
