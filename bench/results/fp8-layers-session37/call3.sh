#!/usr/bin/env bash
# Session 37, call 3: the rest of the check on this session's final code (as session 36's call2.sh):
# the CUDA backend tests (they run the per-node profile, now graph replays) and the calibration GPU
# tests, then issue 5's other rows against infer8's fp16 (session 36: IRv2 b1 x 1.046, v4 b32
# 1.112 / b1 1.167, v3 b32 1.071 / b1 1.119), each printing the device weights.
# Carry: as call2.sh.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
check_step cuda_tests 170
check_step calib_tests 40
bench_step v4-b32 inception_v4 32 110
bench_step irv2-b1 inception_resnet_v2 1 85
bench_step v3-b32 inception_v3 32 90
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 45
grep -ho "weights [0-9.]* -> [0-9.]* MiB" "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call3
