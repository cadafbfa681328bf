#!/usr/bin/env bash
# Session 67's second call, on call1's warm H100 with 441 s of budget left: the peers call1 had no
# time for (IRv2 and v3 at batch 1) and the v3 own-choice test its 120 s cap stopped.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-330}
. tools/device-call.sh
call_setup
PEER_MODES=compile peers_step inception_resnet_v2 1 150
suites_parts 0 4 "fp8_own 100 test_inception_v3_fp8_own"
PEER_MODES=compile peers_step inception_v3 1 75
pack_call call2
