#!/usr/bin/env bash
# For session 64 (prepared in session 63), after next-call1.sh. Carry [".devcarry"]; best on an
# H200. The rows next-call1.sh leaves: v4 and v3 at batch 32 and batch 1, each with its
# torch.compile peer (session 63's H100 rows: v4 1.179 / 1.188, v3 1.178 / 1.125).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 110
PEER_MODES=compile peers_step inception_v4 32 85
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 80
bench_step v4-b1 inception_v4 1 60
PEER_MODES=compile peers_step inception_v4 1 75
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 1 75
pack_call next2
