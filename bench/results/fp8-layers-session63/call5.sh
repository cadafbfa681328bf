#!/usr/bin/env bash
# Session 63, call 5 (the same warm H100 as call 4, which skipped its peer step with 70 s left):
# IRv2 at batch 32's torch.compile peer. Run as
#   CALL_SECONDS=110 bash -c '. tools/device-call.sh; call_setup; PEER_MODES=compile peers_step inception_resnet_v2 32 100; pack_call call5'
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-110}
. tools/device-call.sh
call_setup
PEER_MODES=compile peers_step inception_resnet_v2 32 100
pack_call call5
