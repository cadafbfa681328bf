#!/usr/bin/env bash
# For session 67 (prepared in session 66), after next-call1.sh on the same warm machine: IRv2 at
# batch 1 (its peer needs more than 80 s: 150), v3 at batch 32 and 1 (last timed in session 63) and,
# when time is left, v4 at batch 32, each with its torch.compile peer.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
row_step irv2-b1 inception_resnet_v2 1 75 150
row_step v3-b32 inception_v3 32 70 80
row_step v3-b1 inception_v3 1 45 75
row_step v4-b32 inception_v4 32 100 85
pack_call next2
