#!/usr/bin/env bash
# Session 68, call 3 (after call2.sh on the same warm machine): batch 1 with the pass and without it
# (INFER8_SINK_AVGPOOL=0) for v3 and v4, then IRv2 at batch 32 with the pass (its mixed_5b pool
# moves too), then torch.compile peers as the time allows.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step v3-b1 inception_v3 1 45
INFER8_SINK_AVGPOOL=0 bench_step v3-b1-nosink inception_v3 1 45
bench_step v4-b1 inception_v4 1 60
INFER8_SINK_AVGPOOL=0 bench_step v4-b1-nosink inception_v4 1 60
bench_step irv2-b32 inception_resnet_v2 32 120
export PEER_MODES=compile
peers_step inception_v4 32 85
peers_step inception_v3 1 75
peers_step inception_v4 1 80
stamp end
pack_call call3
