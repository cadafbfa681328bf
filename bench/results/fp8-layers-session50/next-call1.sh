#!/usr/bin/env bash
# Prepared in session 50 (not run: no device time left): IRv2's rows of issue 5 on the final code
# (the mixed-width im2col kernels in the tuning) with their torch.compile peers in the same call,
# which session 50's calls 1-4 could not fit. Session 49's call 3 (the same steps) took about 500 s.
# Run after tools/prepare-device, carrying build-device/bin, build-device/tests/test_cuda_fp8 (the
# benchmark), build-device/tests/tools and .devcarry:
#   bash bench/results/fp8-layers-session50/next-call1.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 130
PEER_MODES=compile peers_step inception_resnet_v2 32 150
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 120
pack_call next-call1
