#!/usr/bin/env bash
# Session 63, call 3 (the same warm H100 as calls 1-2, code 2e4cd8b). Carry [".devcarry"].
# 1. IRv2 at batch 1 with INFER8_CUDA_CHOICE_WARMUP_MS=300 (the warm-up experiment, off by default:
#    does "graph as tuned" then match the later choices' "graph" time?);
# 2. v4 at batch 1 and v3 at batch 32 with their torch.compile peers (the rows calls 1-2 left).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-320}
. tools/device-call.sh
call_setup
INFER8_CUDA_CHOICE_WARMUP_MS=300 bench_step irv2-b1-warm inception_resnet_v2 1 45
bench_step v4-b1 inception_v4 1 50
PEER_MODES=compile peers_step inception_v4 1 75
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 75
pack_call call3
