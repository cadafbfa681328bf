#!/usr/bin/env bash
# Session 50, call 2: the GPU suites on the final code (test_cuda_fp8 in three processes beside
# cuda_tests), then inception_v4's and inception_v3's rows of issue 5 (fp8_bench: fp16 against FP8
# `default`, 7 interleaved rounds, 60 s cuDNN budget), the mixed im2col kernels in the tuning.
# Run after tools/prepare-device, carrying build-device/bin,
# build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools} and .devcarry:
#   bash bench/results/fp8-layers-session50/call2.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
suites_split_step 220
bench_step v4-b32 inception_v4 32 80
bench_step v4-b1 inception_v4 1 50
bench_step v3-b32 inception_v3 32 70
bench_step v3-b1 inception_v3 1 45
pack_call call2
