#!/usr/bin/env bash
# Prepared in session 40, not run (its device budget was spent): the rows of issue 5's table that
# session 40's final code (66ed9cd) did not reach, with the GPU tests the brief asks for in the
# same call. cuda_tests and test_cuda_fp8 side by side as in session 40's call 3 (about 376 s
# together), then inception_v3 at batch 32 and inception_v4 / v3 at batch 1 as time allows
# (session 39 measured the batch-1 rows on ae8595d; their pools are small at batch 1).
# The PyTorch peers for v4 and v3: bench/results/fp8-layers-session39/next-call2.sh (a call of
# its own). Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,
# test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_step fp8_tests 420 300
bench_step v3-b32 inception_v3 32 85
bench_step v4-b1 inception_v4 1 70
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call next-call1
