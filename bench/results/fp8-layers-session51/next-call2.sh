#!/usr/bin/env bash
# Prepared in session 51 (not run): inception_v4's and v3's batch-32 rows with and without the
# three-consumer kernels (INFER8_CUDA_FP8_SKIP=66,67,68,69), then their batch-1 rows; the same carry
# as next-call1.sh:
#   bash bench/results/fp8-layers-session51/next-call2.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 120
INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step v4-b32-nop3 inception_v4 32 90
bench_step v3-b32 inception_v3 32 100
INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step v3-b32-nop3 inception_v3 32 80
bench_step v4-b1 inception_v4 1 70
bench_step v3-b1 inception_v3 1 60
pack_call next-call2
