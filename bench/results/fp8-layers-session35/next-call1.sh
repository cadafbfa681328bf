#!/usr/bin/env bash
# Prepared for the next session (not run): the check owed on session 35's final code. Calls 1-4
# ran 7ef7589; 0828884 (merged siblings read their rows of the group's weights) ran only in call
# 5's three tests and v3 b1; the review's graphs_ms refactor of choose_merge's timing has not run.
# Before the call, here: tools/prepare-device.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
# 1. test_cuda_fp8 whole (every FP8 GPU test and the model tests; ~320 s).
# 2. IRv2 `default` at batch 32 (session 35: x 1.205 / 1.208, merged on BN 64, PDL kept) and, with
#    what is left, the lab's merged Block17 siblings (each in its own scale).
# next-call2.sh: cuda_tests, calib_tests and the other rows.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_tests 340
bench_step irv2-b32 inception_resnet_v2 32 140
grep -o "weights [0-9.]* -> [0-9.]* MiB" "$OUT/irv2-b32/fp8_bench.md" 2>/dev/null
lab_step lab-siblings.txt "Block17 siblings merged" FP8_LAB_SPLIT=192,128
pack_call next-call1
