#!/usr/bin/env bash
# Session 42 call 1: the narrow im2col kernels on every spatial conv they shorten, tested and timed.
# The 32-channel im2col variant (57, tma128x64s4c32) fitted only c_in <= 64. It now fits any conv
# where its stages are fewer than the 128-channel kernels' (IRv2's Block17 7x1 160 -> 192: 9 against
# 14, a conv that ran x 1.01 in FP8 in session 41), and variant 63, tma128x64s4pc32, is its
# ping-pong form (the 7x1's kernel was the ping-pong tma128x64s4pc).
#   suites   test_cuda_fp8 (all tests, three processes by name; the im2col tests now run the two
#            narrow kernels on every case and both chains) beside cuda_tests
#   *-b32    issue 5's rows at batch 32, recipe `default` against infer8 fp16, same process, with
#            the per-layer table (which variant each conv took) and the isolated-node profiles
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_split_step 330
bench_step irv2-b32 inception_resnet_v2 32 130
bench_step v4-b32 inception_v4 32 75
bench_step v3-b32 inception_v3 32 70
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call1
