#!/usr/bin/env bash
# Session 51, call 4 (the same warm machine): inception_v4's and v3's batch-32 rows, which call 3
# did not reach. Carry as call 1. (Written on the device by the call's command; kept here as it ran.)
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-290}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 120
bench_step v3-b32 inception_v3 32 100
pack_call call4
