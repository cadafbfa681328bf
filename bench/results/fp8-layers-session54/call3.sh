#!/usr/bin/env bash
# Session 54, call 3 (the final code's GPU check, owed): the GPU tests of the changed FP8 code
# (test_fp* of test_cuda_fp8: the pair test in six cases, both load paths) and issue 5's IRv2 batch-1
# row with pairs on (INFER8_CUDA_PAIR=1) and its torch.compile peer, in one call; then the pair lab.
# Carry ["build-device/bin/infer8", "build-device/bin/pair_lab", "build-device/tests/test_cuda_fp8",
# "build-device/tests/tools", ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_small 220 'test_fp*'
INFER8_CUDA_PAIR=1 bench_step irv2-b1-pairs inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 80
INFER8_CUDA_PAIR=1 INFER8_CUDA_PAIR_BULK=1 bench_step irv2-b1-pairs-bulk inception_resnet_v2 1 90
pair_lab_step
pack_call call3
