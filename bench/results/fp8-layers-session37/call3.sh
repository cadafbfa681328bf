#!/usr/bin/env bash
# Session 37, call 3 (on the machine calls 1 and 2 left warm): issue 5's last row (session 36:
# v3 b1 x 1.119), then IRv2 `default` at batch 32 from 7ef7589 (session 35's x 1.208 / 1.205) on the
# machine where call 1 measured HEAD and maxnan at x 1.207.
# Carry: as call1.sh.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
bench_step v3-b1 inception_v3 1 45
FP8_BENCH_BIN=.devcarry/ab/test_cuda_fp8_7ef7589 bench_step irv2-b32-7ef7589 inception_resnet_v2 32 110
pack_call call3
