#!/usr/bin/env bash
# Prepared in session 53 (no device machine was lent that session; not run yet): the batch-32 rows
# of issue 5 on the final code with their torch.compile peers, in one call (IRv2's batch-32 row is
# in bench/results/fp8-layers-session52/next-call1.sh; its peer is here):
#   v4-b32, v3-b32   fp16 against FP8 `default`, 7 interleaved rounds
#   peers-*-b32      peers_torch.py (torch.compile) on the same snapshots, same call
# The same carry as next-call2.sh:
#   bash bench/results/fp8-layers-session53/next-call3.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 120
PEER_MODES=compile peers_step inception_v4 32 120
bench_step v3-b32 inception_v3 32 100
PEER_MODES=compile peers_step inception_v3 32 110
PEER_MODES=compile peers_step inception_resnet_v2 32 110
pack_call next-call3
