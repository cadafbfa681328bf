#!/usr/bin/env bash
# Session 64, call 2, on call 1's warm H100: IRv2 at batch 32's torch.compile peer (cut at call 1's
# 70 s cap), then IRv2 at batch 1 with its peer. Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-300}
. tools/device-call.sh
call_setup
PEER_MODES=compile peers_step inception_resnet_v2 32 95
bench_step irv2-b1 inception_resnet_v2 1 80
PEER_MODES=compile peers_step inception_resnet_v2 1 85
pack_call call2
