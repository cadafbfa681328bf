#!/usr/bin/env bash
# Session 37, call 5 (same warm machine as calls 1-4): IRv2 `default` at batch 32 from 7ef7589 once
# more (call 3: x 1.176; this session's code x 1.207 in calls 1 and 4).
# Carry: as call1.sh.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
FP8_BENCH_BIN=.devcarry/ab/test_cuda_fp8_7ef7589 bench_step irv2-b32-7ef7589 inception_resnet_v2 32 110
pack_call call5
