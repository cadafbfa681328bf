#!/usr/bin/env bash
# Session 35, call 5 (the budget left, about 250 s with the start): merged siblings no longer keep
# a second copy of their weights on the device (each sibling reads its rows of the group's
# concatenated weights; calls 1-4 showed the FP8 weights at 70.8 MiB for IRv2 against 55.4 in
# session 34). Checks: test_fp8_merge (it runs the siblings merged and, while tuning, each alone
# on the shared rows), test_fp8_tma_store_paths (two sibling 1x1s, a group whether merged or not)
# and test_fp8_tactics_restored, then inception_v3 at batch 1 (its weights figure; session 34:
# 25.0 MiB, calls 2-4: 30.6). The whole test_cuda_fp8 would not fit in the budget left.
# Carry: build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-160}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
fp8_tests_step fp8_tests_merge 45 "test_fp8_merge"
fp8_tests_step fp8_tests_stores 40 "test_fp8_tma_store_paths"
fp8_tests_step fp8_tests_restored 30 "test_fp8_tactics_restored"
bench_step v3-b1 inception_v3 1 55
grep -o "weights [0-9.]* -> [0-9.]* MiB" "$OUT/v3-b1/fp8_bench.md" 2>/dev/null
pack_call call5
