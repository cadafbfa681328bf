#!/usr/bin/env bash
# For session 68, after next-call1.sh on the same warm machine: the rows next-call1.sh leaves (v3 and
# v4 at batch 32 and 1), each with its torch.compile peer (session 67: 57 + 42 s, 27 + 38 s,
# 71 + 76 s; session 65: v4 b1 45 + 63 s).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
issue5_rows v3-b32 v3-b1 v4-b32 v4-b1
pack_call next2
