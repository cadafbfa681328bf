#!/usr/bin/env bash
# For session 69, after next-call1.sh on the same warm machine: the rows it leaves (v3 and v4 at
# batch 32 and 1, with peers), then inception_v4 at batch 1 without and with the pool pass, twice
# (session 68: with the pass 2 of 3 runs were slower, 0.533 against 0.497 ms in fp16, the time in
# the B blocks' 1x7 / 7x1 convs; without it 0 of 3).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
issue5_rows v3-b32 v3-b1 v4-b32 v4-b1
sink_ab_step v4-b1-a inception_v4 1 50
sink_ab_step v4-b1-b inception_v4 1 50
stamp end
pack_call next2
