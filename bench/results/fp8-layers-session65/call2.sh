#!/usr/bin/env bash
# Session 65, call 2 (same warm H100 as call 1; carry [".devcarry"]): the IRv2 b1 peer with a longer cap, IRv2 b32 + peer, v4 b1 + peer.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-545}
. tools/device-call.sh
call_setup
PEER_MODES=compile peers_step inception_resnet_v2 1 150
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 95
bench_step v4-b1 inception_v4 1 60
PEER_MODES=compile peers_step inception_v4 1 80
pack_call next2
