#!/usr/bin/env bash
# For session 65 (prepared in session 64), after next-call1.sh: IRv2 and v4 at batch 32 with their
# torch.compile peers (the IRv2 peer took more than 70 s in session 64's call 1: 95 s here), then v4
# at batch 1. Carry [".devcarry"]; best on an H200.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 95
bench_step v4-b32 inception_v4 32 110
PEER_MODES=compile peers_step inception_v4 32 90
bench_step v4-b1 inception_v4 1 60
PEER_MODES=compile peers_step inception_v4 1 80
pack_call next2
