#!/usr/bin/env bash
# Session 68, call 4: call 3 found inception_v4 at batch 1 slower with the pass (fp16 0.533 against
# 0.493 ms, FP8 0.441 against 0.418); the pair again, twice, the run without the pass first.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-280}
. tools/device-call.sh
call_setup
INFER8_SINK_AVGPOOL=0 bench_step v4-b1-nosink-a inception_v4 1 50
bench_step v4-b1-a inception_v4 1 50
INFER8_SINK_AVGPOOL=0 bench_step v4-b1-nosink-b inception_v4 1 50
bench_step v4-b1-b inception_v4 1 50
stamp end
pack_call call4
