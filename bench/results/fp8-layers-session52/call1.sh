#!/usr/bin/env bash
# Session 52, call 1 (H200): session 51's owed work on the final code (the three-consumer kernels,
# variants 66-69, the producer's tap walk in one helper, a GPU test of INFER8_CUDA_FP8_MIXED=0):
#   fp8_small     test_cuda_fp8's tests of single ops and small graphs (test_fp*), test_fp8_mixed_off new
#   irv2-b32      issue 5's row: fp16 against FP8 `default`, 7 interleaved rounds, 60 s cuDNN budget
#   irv2-b32-nop3 the same with INFER8_CUDA_FP8_SKIP=66,67,68,69: the whole-graph A/B, same machine
#   peers-*       peers_torch.py (torch.compile) on the same snapshot, same call
# Run after tools/prepare-device, carrying build-device/bin, build-device/tests/test_cuda_fp8,
# build-device/tests/tools and .devcarry:
#   bash bench/results/fp8-layers-session52/call1.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_small 200 'test_fp*'
bench_step irv2-b32 inception_resnet_v2 32 130
INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step irv2-b32-nop3 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 150
pack_call call1
