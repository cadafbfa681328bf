#!/usr/bin/env bash
# Session 65, call 3 (same warm H100): test_inception_v3_fp8*, v4 b32.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-225}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_v3 100 'test_inception_v3_fp8*'
bench_step v4-b32 inception_v4 32 110
pack_call next3
