#!/usr/bin/env bash
# Session 37, call 1 (earlier attempts got no machine, about 375 s of the budget: session 36's
# prepared A/B and the owed check share the calls):
# 1. test_cuda_fp8 whole on this session's code (2c50a24: the per-node profile as graph replays;
#    test_fp8_nan as 6dae2a9 made it, each kernel family forced alone; test_fp8_pdl's five
#    launch contexts);
# 2. IRv2 `default` at batch 32 against infer8's fp16 (session 36: x 1.190 / 1.189), its
#    per-layer lines checking the replayed profile against the tuner's times;
# 3. the same from 7cd112b + relu-maxnan.patch (relu_f32 as max.NaN.f32, fmaxf's instruction
#    count): does it close session 36's 1.2% (session 35: x 1.208 / 1.205 on 7ef7589)?
# Here, before the call: tools/prepare-device; .devcarry/ab from
# bench/results/fp8-layers-session36/build-ab.sh.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_tests 340
bench_step irv2-b32 inception_resnet_v2 32 110
FP8_BENCH_BIN=.devcarry/ab/test_cuda_fp8_maxnan bench_step irv2-b32-maxnan inception_resnet_v2 32 110
grep -h "per layer\|most lost" "$OUT"/irv2-b32/fp8_bench.md 2>/dev/null | head -12
pack_call call1
