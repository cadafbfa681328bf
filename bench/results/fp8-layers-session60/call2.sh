#!/usr/bin/env bash
# Session 60, call 2, on call 1's machine if still warm: the torch.compile peers of IRv2 (whose
# infer8 rows call 1 timed), then v4 and v3 at batch 32 and 1 with their peers: issue 5's table on
# the final code. INFER8_CUDA_CARVEOUT stays unset: call 1 found no gain. Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-550}
. tools/device-call.sh
call_setup
PEER_MODES=compile peers_step inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 1 80
bench_step v4-b32 inception_v4 32 80
PEER_MODES=compile peers_step inception_v4 32 80
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 1 50
bench_step v4-b1 inception_v4 1 50
PEER_MODES=compile peers_step inception_v4 1 50
bench_step v3-b32 inception_v3 32 55
PEER_MODES=compile peers_step inception_v3 32 50
pack_call call2
