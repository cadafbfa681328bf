#!/usr/bin/env bash
# For session 64 (prepared in session 63), after next-call1.sh. Carry [".devcarry"]; best on an
# H200. IRv2 at batch 1, v4 and v3 at batch 32, each with its torch.compile peer (session 63's
# H100 rows: IRv2 b1 x 1.059, v4 b32 1.179, v3 b32 1.178).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step irv2-b1 inception_resnet_v2 1 80
PEER_MODES=compile peers_step inception_resnet_v2 1 80
bench_step v4-b32 inception_v4 32 110
PEER_MODES=compile peers_step inception_v4 32 85
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 80
pack_call next2
