#!/usr/bin/env bash
# Session 49, call 3b (H200, warm after call 3, whose benchmarks exited 127 for want of the test
# binary): issue 5's IRv2 rows, fp8_bench at batch 32 and at batch 1 (fp16 against FP8 `default`, 7
# interleaved rounds, 60 s cuDNN budget); their torch.compile peers ran in call 3 on the same machine.
# Ran as the same commands inline, carrying build-device/bin, build-device/tests/test_cuda_fp8,
# build-device/tests/tools and .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-300}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 130
bench_step irv2-b1 inception_resnet_v2 1 90
pack_call call3b
