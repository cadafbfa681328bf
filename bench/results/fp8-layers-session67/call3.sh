#!/usr/bin/env bash
# Session 67's third call, on the same warm H100 with 294 s of budget left: v4 at batch 32 with its peer.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-235}
. tools/device-call.sh
call_setup
row_step v4-b32 inception_v4 32 100 85
pack_call call3
