#!/usr/bin/env bash
# Prepared in session 48 (not run: no H200 was lent after calls 1-2): issue 5's IRv2 batch-32 row on an H200 with the final code, after calls 1-2
# ran on an H100 (the suites passed there on the same binaries): fp8_bench (fp16 against FP8
# `default`, one process, 7 interleaved rounds, 60 s cuDNN budget) and its torch.compile peer in
# the same call. Run from the checkout after tools/prepare-device, carrying build-device/bin,
# build-device/tests/test_cuda_fp8 (the benchmark; session 49 found it missing from this list), build-device/tests/tools and .devcarry: bash bench/results/fp8-layers-session48/call3.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-400}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 130
PEER_MODES=compile peers_step inception_resnet_v2 32 200
pack_call call3
