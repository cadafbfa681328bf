#!/usr/bin/env bash
# Session 64, call 3, on the same warm H100 with the budget's rest: inception_v4 at batch 1 with its
# torch.compile peer. Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-170}
. tools/device-call.sh
call_setup
bench_step v4-b1 inception_v4 1 60
PEER_MODES=compile peers_step inception_v4 1 80
pack_call call3
