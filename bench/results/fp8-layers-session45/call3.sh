#!/usr/bin/env bash
# Session 45, call 3 (session 44's next-call3.sh, run as prepared): inception_v4's rows of issue 5's
# table at batch 32 and 1 on the final code, each with its PyTorch peer in the same call.
# Run as: bash bench/results/fp8-layers-session45/call3.sh (carry as call1.sh).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 80
bench_step v4-b1 inception_v4 1 60
peers_step inception_v4 32 110
peers_step inception_v4 1 80
pack_call call3
