#!/usr/bin/env bash
# Prepared in session 51 (not run: the session's device time went to an H100): issue 5's IRv2 rows
# on an H200 on the final code, with the three-consumer kernels (variants 66-69) in the tuning and
# left out (INFER8_CUDA_FP8_SKIP=66,67,68,69), and the torch.compile peers in the same call; about
# 490 s by session 51's step times. next-call2.sh has inception_v4's and v3's rows and A/Bs. Run after
# tools/prepare-device, carrying build-device/bin, build-device/tests/test_cuda_fp8,
# build-device/tests/tools and .devcarry:
#   bash bench/results/fp8-layers-session51/next-call1.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 130
INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step irv2-b32-nop3 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 150
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 100
pack_call next-call1
