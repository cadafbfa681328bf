#!/usr/bin/env bash
# Session 49, call 3c (H200, warm after call 3b): inception_v3's rows, fp8_bench at batch 32 and 1 and
# the torch.compile peer of each in the same call. Ran as the same commands inline, carrying
# build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools and .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-280}
. tools/device-call.sh
call_setup
bench_step v3-b32 inception_v3 32 70
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 1 60
pack_call call3c
