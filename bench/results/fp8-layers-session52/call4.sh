#!/usr/bin/env bash
# Session 52, call 4 (what ran, as one command line on the device): IRv2's batch-32 A/B in the other
# order (without variants 66-69 first, then with them), then inception_v4's torch.compile peer at
# batch 32. The same carry as call1.sh. It ran as
#   CALL_SECONDS=470 bash -c 'cd . && . tools/device-call.sh && call_setup && INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step irv2-b32-nop3 inception_resnet_v2 32 100 && bench_step irv2-b32 inception_resnet_v2 32 130 && PEER_MODES=compile peers_step inception_v4 32 120; pack_call call4'
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-470}
. tools/device-call.sh
call_setup
INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step irv2-b32-nop3 inception_resnet_v2 32 100
bench_step irv2-b32 inception_resnet_v2 32 130
PEER_MODES=compile peers_step inception_v4 32 120
pack_call call4
