#!/usr/bin/env bash
# For session 65 (prepared in session 64): the rows session 64 could not run (its budget went on
# seven failed starts): inception_v4 at batch 32, inception_v3 at batch 32 and 1, each with its
# torch.compile peer. Carry [".devcarry"]; best on an H200.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 110
PEER_MODES=compile peers_step inception_v4 32 90
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 80
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 1 75
pack_call next2
