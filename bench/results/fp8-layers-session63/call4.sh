#!/usr/bin/env bash
# Session 63, call 4: the final code (after the warm-up switch's removal and the CLI tests' mend) in
# one call: test_inception_v3_fp8* (the own- and merge-choice assertions), then IRv2 at batch 32
# with its torch.compile peer. Carry [".devcarry"]; about 300 s of device budget were left.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-270}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_v3 120 'test_inception_v3_fp8*'
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 75
pack_call call4
