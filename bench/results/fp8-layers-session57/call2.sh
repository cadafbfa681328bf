#!/usr/bin/env bash
# Session 57, call 2: the final code's GPU check. Call 1 (session 56's next-call1.sh) passed the
# 64-channel im2col variants' GPU tests and timed them; they are now tuned by default
# (INFER8_CUDA_FP8_C64=0 leaves them out). Here: every FP8 GPU test, then IRv2 at batch 1 and 32,
# each with its torch.compile peer in the same call; then the lab on IRv2's Block35 3x3 32->48
# at batch 32 (FP8 slower than fp16 there in call 1's graph: 10.6-11.1 us on halo128x32 against 9.1).
# Carry ["build-device/bin/infer8", "build-device/bin/fp8_lab", "build-device/tests/test_cuda_fp8",
# "build-device/tests/tools", ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_all 160 'test_fp*'
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 140
bench_step irv2-b32 inception_resnet_v2 32 110
PEER_MODES=compile peers_step inception_resnet_v2 32 130
lab_step lab_block35.txt "Block35 3x3 32->48 @35 b32" FP8_LAB_MODE=0
pack_call call2
