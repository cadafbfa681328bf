#!/usr/bin/env bash
# Session 57, call 3: what call 2 left. Its `test_fp*` run hit its 160 s cap in test_fp8_pair (the
# 18 tests before it passed; the machine ran them 45% slower than call 1's), and IRv2's batch-32
# torch.compile peer was skipped for time. Here: IRv2 at batch 32 with its peer, the six tests from
# test_fp8_pair on, then v4 and v3 at batch 1 with their peers (the c64 variants default since
# b4ce7f3). Carry ["build-device/bin/infer8", "build-device/tests/test_cuda_fp8",
# "build-device/tests/tools", ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-540}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 110
PEER_MODES=compile peers_step inception_resnet_v2 32 130
for t in test_fp8_pair 'test_fp8_residual*' test_fp8_dual_output_and_concat test_fp8_scale_conflict test_fp8_tactics_restored; do
  fp8_tests_step "rest-${t%\*}" 40 "$t"
done
bench_step v4-b1 inception_v4 1 70
PEER_MODES=compile peers_step inception_v4 1 70
bench_step v3-b1 inception_v3 1 50
PEER_MODES=compile peers_step inception_v3 1 50
pack_call call3
