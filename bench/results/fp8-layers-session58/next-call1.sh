#!/usr/bin/env bash
# For session 59 (prepared in session 58, not run): the final code's (7067e8c and after) whole FP8
# suite, then issue 5's batch-32 rows with their torch.compile peers. Session 58 ran test_fp* on
# 7ef1c91 (25 passed) and only the halo tests on 7067e8c (the halo kernels' tile start and epilogue
# changed after 7ef1c91). Before (session 58): IRv2 b32 x 1.273 (H100) / 1.267 (H200), v4 b32
# 1.172, v3 b32 1.175 (H100).
# After tools/prepare-device, carry [".devcarry"] alone (its build.tar.xz holds the binaries,
# which gpu_env unpacks).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_all 240 'test_fp*'
bench_step irv2-b32 inception_resnet_v2 32 110
PEER_MODES=compile peers_step inception_resnet_v2 32 130
bench_step v4-b32 inception_v4 32 100
PEER_MODES=compile peers_step inception_v4 32 80
pack_call next1
