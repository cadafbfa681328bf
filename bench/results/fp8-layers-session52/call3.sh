#!/usr/bin/env bash
# Session 52, call 3 (H200): inception_v4's and v3's batch-32 rows without the three-consumer
# kernels (INFER8_CUDA_FP8_SKIP=66,67,68,69; call 2 has them with), then their batch-1 rows. The
# same carry as call1.sh:
#   bash bench/results/fp8-layers-session52/call3.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step v4-b32-nop3 inception_v4 32 110
INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step v3-b32-nop3 inception_v3 32 90
bench_step v4-b1 inception_v4 1 70
bench_step v3-b1 inception_v3 1 60
PEER_MODES=compile peers_step inception_v3 32 120
pack_call call3
