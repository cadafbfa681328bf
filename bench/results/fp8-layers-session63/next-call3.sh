#!/usr/bin/env bash
# For session 64 (prepared in session 63), after next-call2.sh: v3 at batch 32, v4 and v3 at batch
# 1, each with its torch.compile peer (session 63's H100 rows: x 1.178, 1.188, 1.125). Carry
# [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-450}
. tools/device-call.sh
call_setup
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 80
bench_step v4-b1 inception_v4 1 60
PEER_MODES=compile peers_step inception_v4 1 75
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 1 75
pack_call next3
