#!/usr/bin/env bash
# Session 68, call 2: the pools moved below their 1x1 convs (i8_pass_sink_avgpool, src/graph/
# sink_avgpool.c) checked and timed. Every GPU test the pass touches, side by side: test_fp*, the
# v3 and IRv2 FP8 tests against the CPU emulation (v3's pools count padding, IRv2's mixed_5b pool
# does not) and cuda_tests (the fp16 families against the CPU reference); then v3 and v4 at batch
# 32 with the pass and without it (INFER8_SINK_AVGPOOL=0), one after the other on this machine.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
suites_parts 200 4 "fp8_all 240 test_fp*" "fp8_v3 200 test_inception_v3_fp8*" "fp8_irv2 200 test_inception_resnet_v2_fp8"
stamp "suites done"
bench_step v3-b32 inception_v3 32 70
INFER8_SINK_AVGPOOL=0 bench_step v3-b32-nosink inception_v3 32 70
bench_step v4-b32 inception_v4 32 100
INFER8_SINK_AVGPOOL=0 bench_step v4-b32-nosink inception_v4 32 100
stamp end
pack_call call2
