#!/usr/bin/env bash
# Session 50, call 4 (run inline on the same warm machine, recorded here): call 1's whole-graph A/B
# in the other order, the mixed im2col kernels left out first, then in. Same carry as call 3.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-262}
. tools/device-call.sh
call_setup
INFER8_CUDA_FP8_MIXED=0 bench_step irv2-b32-nomixed inception_resnet_v2 32 120
bench_step irv2-b32 inception_resnet_v2 32 120
pack_call call4
