#!/usr/bin/env bash
# Session 56, call 3: call 2 lost IRv2's torch.compile rows (each peer killed at its 80 / 70 s cap
# without a word; peers_step now says so), so IRv2 at batch 1 and 32 again, each with its peer in
# the same call and a longer cap. Carry ["build-device/bin/infer8",
# "build-device/tests/test_cuda_fp8", "build-device/tests/tools", ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-520}
. tools/device-call.sh
call_setup
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 140
bench_step irv2-b32 inception_resnet_v2 32 130
PEER_MODES=compile peers_step inception_resnet_v2 32 130
pack_call call3
