#!/usr/bin/env bash
# Prepared in session 44 (no device machine): inception_v4's rows of issue 5's table on the final
# code at batch 32 and 1, each with its PyTorch peer in the same call (session 43's call 4 timed
# v4 b32 ~100 s, b1 ~68 s; peers ~110 / ~80 s).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 80
bench_step v4-b1 inception_v4 1 60
peers_step inception_v4 32 110
peers_step inception_v4 1 80
pack_call call3
