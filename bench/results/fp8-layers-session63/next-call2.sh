#!/usr/bin/env bash
# For session 64 (prepared in session 63), after next-call1.sh. Carry [".devcarry"]; best on an
# H200 (issue 5's goal is stated for it). IRv2 at batch 32 and batch 1, and v4 at batch 32, each
# with its torch.compile peer (session 63's H100 rows: IRv2 x 1.295-1.316 and 1.059, v4 1.179;
# session 62's H200: IRv2 b32 x 1.324).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 120
PEER_MODES=compile peers_step inception_resnet_v2 32 80
bench_step irv2-b1 inception_resnet_v2 1 80
PEER_MODES=compile peers_step inception_resnet_v2 1 80
bench_step v4-b32 inception_v4 32 110
PEER_MODES=compile peers_step inception_v4 32 85
pack_call next2
