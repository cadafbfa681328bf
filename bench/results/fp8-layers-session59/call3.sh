#!/usr/bin/env bash
# Session 59, call 3 (420 s of device time left): INFER8_CUDA_CARVEOUT, new and opt-in. Every kernel
# node of the forward's graphs gets one preferred shared-memory carveout (100: the most shared
# memory, which the TMA kernels need anyway), so that no kernel waits for its SM to drain and
# reconfigure between the TMA kernels and cuDNN's / the pools' (the CUDA docs: a different
# preference "may insert a device-side synchronization point"); session 33 left open why own
# kernels lose about 2 us each inside the batch-1 graph. First test_fp8_carveout (bit-identical
# outputs with 100 / 0 / a bad value), then IRv2 at batch 1 without and with it (same machine,
# same call), then batch 32 with it (its baseline: call 1 of this session, same kind of GPU).
# After tools/prepare-device, carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-330}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_carveout 60 'test_fp8_carveout'
bench_step irv2-b1 inception_resnet_v2 1 75
INFER8_CUDA_CARVEOUT=100 bench_step irv2-b1-carve inception_resnet_v2 1 75
INFER8_CUDA_CARVEOUT=100 bench_step irv2-b32-carve inception_resnet_v2 32 120
pack_call call3
