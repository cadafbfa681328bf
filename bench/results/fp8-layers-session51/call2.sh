#!/usr/bin/env bash
# Session 51, call 2 (call 1's machine, warm): the whole-graph A/B in the other order (the three-
# consumer kernels left out first, then in), then IRv2's batch-1 row and its torch.compile peer.
# Carry as call 1. (Written on the device by the call's command; kept here as it ran.)
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-540}
. tools/device-call.sh
call_setup
INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step irv2-b32-nop3 inception_resnet_v2 32 130
bench_step irv2-b32 inception_resnet_v2 32 130
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 120
pack_call call2
