#!/usr/bin/env bash
# Session 37, call 4 (same warm machine as calls 1-3): IRv2 `default` at batch 32 on this session's
# code once more (call 1: x 1.207; 7ef7589 in call 3: x 1.176): how far one build's figure moves
# between tunings on one machine.
# Carry: as call1.sh.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 110
pack_call call4
