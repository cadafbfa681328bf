#!/usr/bin/env bash
# Session 38, call 2 (warm, right after call 1): IRv2 batch 1 with the patches and with 89b62d6's
# binary (the A/B), then the FP8 model test call 1's 150 s cap cut off (IRv2 residual-fp8).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
bench_step irv2-b1 inception_resnet_v2 1 85
FP8_BENCH_BIN=.devcarry/head/test_cuda_fp8 bench_step irv2-b1-head inception_resnet_v2 1 85
grep -h "profile " "$OUT"/irv2-*/fp8_bench.md 2>/dev/null
grep -h "conv2d_1a" "$OUT"/irv2-*/fp8-layers-*.tsv 2>/dev/null | head -4
fp8_tests_step fp8_residual 200 'test_inception_resnet_v2_residual*'
bench_step v4-b32 inception_v4 32 100
pack_call call2
