#!/usr/bin/env bash
# Session 36, call 2: the rest of the owed check on this session's code: the fp16 backend's and
# the calibration GPU tests, then issue 5's other rows against infer8's fp16 (session 35: IRv2 b1
# x 1.047, v4 b32 1.109 / b1 1.166, v3 b32 1.057 / b1 1.123), each printing the device weights.
# Carry: as call1.sh.
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
pack_call call2
