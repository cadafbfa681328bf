#!/usr/bin/env bash
# For session 66 (prepared in session 65), after next-call1.sh on the same warm machine: the rows
# session 65 could not run (v3 at batch 32 and 1, last timed in session 63) and IRv2 at batch 1,
# each with its torch.compile peer (IRv2's b1 peer needs more than 80 s: 150).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-575}
. tools/device-call.sh
call_setup
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 80
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 1 75
bench_step irv2-b1 inception_resnet_v2 1 75
PEER_MODES=compile peers_step inception_resnet_v2 1 150
pack_call next2
