#!/usr/bin/env bash
# Session 54, call 1: the pair kernels (src/backends/cuda/cuda_fp8_pair.cu, new: a branch's
# reduction 1x1 and its 1 x k / k x 1 consumer as one kernel) on a GPU for the first time, and
# the GPU tests and issue 5's IRv2 rows with their peers in the same call:
#   pair_lab.txt    dev/kernels/pair_lab.cu: each pair variant against the two product kernels
#   fp8_small       test_cuda_fp8's single-op and small-graph tests (test_fp*: test_fp8_pair, and
#                   test_fp8_halo_prefetch, session 52's halo PIPE modes, never yet run on a GPU)
#   irv2-b1/-b32    fp16 against FP8 `default`, 7 interleaved rounds; the pair choice's graph times
#                   (choose_pair) in fp8_bench.log
#   peers-*         peers_torch.py (torch.compile) on the same snapshot, same call
# Run after tools/prepare-device, carrying build-device/bin, build-device/tests/test_cuda_fp8,
# build-device/tests/tools and .devcarry:
#   bash bench/results/fp8-layers-session54/call1.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
pair_lab_step
fp8_tests_step fp8_small 200 'test_fp*'
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 80
bench_step irv2-b32 inception_resnet_v2 32 130
PEER_MODES=compile peers_step inception_resnet_v2 32 70
pack_call call1
