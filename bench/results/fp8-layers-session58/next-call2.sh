#!/usr/bin/env bash
# For session 59 (prepared in session 58, not run): issue 5's other rows on the final code, each
# with its torch.compile peer in the same call, in the order of the goal's weight: IRv2 at batch 1,
# v4 and v3 at batch 32, then v4 and v3 at batch 1 as far as the time goes. Before (session 58):
# IRv2 b1 x 1.056-1.060, v4 b32 1.172, v3 b32 1.175, v4 b1 1.187 (H100); v3 b1 1.146 (H200).
# Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 130
bench_step v4-b32 inception_v4 32 100
PEER_MODES=compile peers_step inception_v4 32 80
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 60
bench_step v4-b1 inception_v4 1 60
PEER_MODES=compile peers_step inception_v4 1 70
bench_step v3-b1 inception_v3 1 50
PEER_MODES=compile peers_step inception_v3 1 50
pack_call next2
