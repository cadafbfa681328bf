#!/usr/bin/env bash
# Session 36, call 4 (the budget's rest): IRv2 `default` at batch 32 again on the final code, a second
# sample of call 1's row (x 1.190, where the launch choice kept neither priorities nor PDL by 0.3%).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-190}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 140
pack_call call4
