#!/usr/bin/env bash
# Session 37, call 3 (if budget is left, on the machine call 2 left warm): issue 5's last rows
# (session 36: v3 b32 x 1.071, v4 b1 1.167, v3 b1 1.119).
# Carry: as call1.sh.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
bench_step v3-b32 inception_v3 32 90
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 45
pack_call call3
