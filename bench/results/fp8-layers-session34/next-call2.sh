#!/usr/bin/env bash
# Prepared for the next session (not run): merge.patch, the backend side of merging sibling 1x1s,
# if next-call1.sh's lab shows the merged kernel right and faster than its siblings. Before the
# call, here: git apply bench/results/fp8-layers-session34/siblings.patch bench/results/fp8-layers-session34/merge.patch
# (and pdl-noprio.patch if kept: git add -A src dev tests && git apply --3way ...), tools/prepare-device.
# Carry: build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools, .devcarry.
# 1. test_fp8_merge (siblings merged on BN 64 and 128 against the emulation), test_fp8_tactics_restored,
#    then the IRv2 model test (its Block35 / 17 / 8 groups, merged where the choice keeps them).
# 2. IRv2 `default` at batch 32 and 1, v4 and v3 at batch 32 (the bench line shows the merge choice:
#    the graph unmerged, merged on BN 64 and on BN 128).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-580}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
fp8_tests_step fp8_tests_merge 60 "test_fp8_merge"
fp8_tests_step fp8_tests_restored 40 "test_fp8_tactics_restored"
fp8_tests_step fp8_tests_irv2 150 "test_inception_resnet_v2_fp8"
bench_step irv2-b32 inception_resnet_v2 32 130
bench_step v4-b32 inception_v4 32 95
bench_step v3-b32 inception_v3 32 85
bench_step irv2-b1 inception_resnet_v2 1 60
pack_call next-call2
