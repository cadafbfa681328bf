#!/usr/bin/env bash
# Session 37, call 2 (on the machine call 1 left warm):
# 1. test_fp8_nan on 7cd112b + relu-maxnan.patch;
# 2. IRv2 `default` at batch 32 from 7ef7589 (session 35's x 1.208 / 1.205), on the machine that
#    ran call 1's HEAD and maxnan rows;
# 3. the CUDA backend tests (they run the per-node profile, now graph replays) and the
#    calibration GPU tests;
# 4. issue 5's other rows as time allows (session 36: IRv2 b1 x 1.046, v4 b32 1.112).
# Carry: as call1.sh.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
stamp "test_fp8_nan on maxnan"
INFER8_TEST_FILTER='test_fp8_nan' INFER8_CUDA_DEBUG=1 timeout "$(cap 45)" .devcarry/ab/test_cuda_fp8_maxnan >"$OUT/nan-maxnan.log" 2>&1
echo "test_fp8_nan (maxnan): exit $?"; grep -E "NaN outputs|PASSED|FAILED" "$OUT/nan-maxnan.log"
FP8_BENCH_BIN=.devcarry/ab/test_cuda_fp8_7ef7589 bench_step irv2-b32-7ef7589 inception_resnet_v2 32 110
check_step cuda_tests 170
check_step calib_tests 40
bench_step irv2-b1 inception_resnet_v2 1 85
bench_step v4-b32 inception_v4 32 110
pack_call call2
