#!/usr/bin/env bash
# Session 60, call 3, on call 2's warm machine: what call 2's limit left out, v3 at batch 32 and
# v4's batch-1 peer (its 50 s cap ran out in call 2). Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-230}
. tools/device-call.sh
call_setup
bench_step v3-b32 inception_v3 32 60
PEER_MODES=compile peers_step inception_v4 1 110
pack_call call3
