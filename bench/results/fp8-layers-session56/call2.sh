#!/usr/bin/env bash
# Session 56, call 2: issue 5's goal rows on the final code, on an H200 where one is lent (the last
# H200 rows are session 49's): inception_resnet_v2 at batch 1 and 32 (fp8_bench: fp16 against
# FP8 `default`, interleaved rounds) with torch.compile in the same call, then inception_v3 at
# batch 32 with its peer (never measured since session 20's fp16), as far as the time goes.
# Carry ["build-device/bin/infer8", "build-device/tests/test_cuda_fp8", "build-device/tests/tools", ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 80
bench_step irv2-b32 inception_resnet_v2 32 130
PEER_MODES=compile peers_step inception_resnet_v2 32 70
bench_step v3-b32 inception_v3 32 80
PEER_MODES=compile peers_step inception_v3 32 60
pack_call call2
