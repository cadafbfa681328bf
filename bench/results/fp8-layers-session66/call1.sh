#!/usr/bin/env bash
# Session 66: session 65's two owed calls squeezed into one (the session's first ~1000 s of device
# time went to a machine taken back mid-call and to failed starts). The two test processes run side
# by side (4 OpenMP threads each; they check correctness only), then IRv2's rows with their peers:
# 1. every test_fp* and test_inception_v3_fp8* on the final code (9897e1a, f944129);
# 2. IRv2 at batch 32 and its torch.compile peer; IRv2 at batch 1 and its peer when time is left.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
suites_parts 0 4 "fp8_all 240 test_fp*" "fp8_v3 120 test_inception_v3_fp8*"
stamp "suites done"
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 95
bench_step irv2-b1 inception_resnet_v2 1 75
PEER_MODES=compile peers_step inception_resnet_v2 1 120
pack_call call1
