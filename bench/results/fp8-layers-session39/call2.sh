#!/usr/bin/env bash
# Session 39, call 2: the landed code as it lands (own fp16 variant 16 "packk128" for the stem's
# c_in-8 convs with the ctx's SM count; the input kernels folded to one each, 16-byte words):
#   cuda_tests  every per-op graph (variant 16 forced on the padded-input convs too), check_u8's bit
#               identity, test_fp16_single_rounding (64 input channels: 8 words a pixel), the models
#   fp8_tests   every FP8 GPU test (23), test_inception_v3_fp8_own included
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
check_step cuda_tests 190
fp8_tests_step fp8_tests 360
bench_step irv2-b1 inception_resnet_v2 1 80
pack_call call2
