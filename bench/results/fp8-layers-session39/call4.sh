#!/usr/bin/env bash
# Session 39, call 4: the stride-1 3x3 pool kernel (pool_s1w3_kernel: 4 outputs down a column a
# thread, each input row read once) on d0ebd8d. inception_v4's 3x3 average pools took 0.59 ms of
# 2.9 at batch 32 in call 3's profile (v3 0.28), reading each pixel from L2 nine times.
#   cuda_tests   per-op graphs (the concat case's 3x3 s1 average pool over 32 channels) and the
#                three models against the CPU reference
#   v4-b32       the profile's avgpool line and the x (call 3: 2.919 / 2.601, x 1.123)
#   fp8 v3       test_inception_v3_fp8 (the pool's e4m3 twin feeds FP8 convs)
#   v3-b32       (call 1: 1.712 / 1.589, x 1.077)
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-440}
. tools/device-call.sh
call_setup
check_step cuda_tests 170
bench_step v4-b32 inception_v4 32 100
grep -h "profile " "$OUT"/v4-b32/fp8_bench.md 2>/dev/null
fp8_tests_step fp8_v3 90 'test_inception_v3_fp8'
bench_step v3-b32 inception_v3 32 100
grep -h "profile " "$OUT"/v3-b32/fp8_bench.md 2>/dev/null
pack_call call4
