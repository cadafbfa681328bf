#!/usr/bin/env bash
# Session 55, call 1: session 54's two owed calls (call2.sh, call3.sh) in one, for a device that
# starts rarely: the pair lab on both load paths, Nsight Compute of pair-c4 on Block17 at batch 1
# with each path, the GPU tests of the FP8 code (test_fp*, the pair test among them), IRv2's batch-1
# row with pairs on (INFER8_CUDA_PAIR=1) on both load paths, and its torch.compile peer.
# Carry ["build-device/bin/infer8", "build-device/bin/pair_lab", "build-device/tests/test_cuda_fp8",
# "build-device/tests/tools", ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-575}
. tools/device-call.sh
call_setup
pair_lab_step
PAIR_LAB_BULK=0 NCU_LAB=pair_lab NCU_SKIP=30 ncu_step ncu-pair-b17-c4 "Block17 1x1 1088->128 + 1x7 ->160 @17 b1" 0 2 conv_fp8_pair
PAIR_LAB_BULK=1 NCU_LAB=pair_lab NCU_SKIP=30 ncu_step ncu-pair-b17-c4-bulk "Block17 1x1 1088->128 + 1x7 ->160 @17 b1" 0 2 conv_fp8_pair
fp8_tests_step fp8_small 200 'test_fp*'
grep -E "pairs on|pair" "$OUT/fp8_small.log" | head -20
INFER8_CUDA_PAIR=1 bench_step irv2-b1-pairs inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 80
INFER8_CUDA_PAIR=1 INFER8_CUDA_PAIR_BULK=1 bench_step irv2-b1-pairs-bulk inception_resnet_v2 1 90
pack_call call1
