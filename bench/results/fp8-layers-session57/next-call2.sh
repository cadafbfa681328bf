#!/usr/bin/env bash
# For session 58 (prepared in session 57, not run): issue 5's other rows on the final code (73-75
# default), each with its torch.compile peer in the same call: IRv2 at batch 32 and 1, then v4 and
# v3 at batch 1 as far as the time goes. Before (session 57, H100, calls 2 and 3): IRv2 x 1.056 /
# 1.249, v4 b1 x 1.176, v3 b1 x 1.127. Same carry as next-call1.sh.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 110
PEER_MODES=compile peers_step inception_resnet_v2 32 130
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 140
bench_step v4-b1 inception_v4 1 60
PEER_MODES=compile peers_step inception_v4 1 70
pack_call next2
