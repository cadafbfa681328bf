#!/usr/bin/env bash
# Session 65, call 4 (same warm H100, the last 102 s of budget): v4 b32's peer.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-88}
. tools/device-call.sh
call_setup
PEER_MODES=compile peers_step inception_v4 32 85
pack_call next4
