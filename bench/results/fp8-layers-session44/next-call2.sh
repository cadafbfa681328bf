#!/usr/bin/env bash
# Prepared in session 44 (no device machine): after next-call1.sh, the rest of issue 5's table on
# the final code, each row with its PyTorch peer in the same call, as session 43's calls 2 and 4
# did: IRv2 at batch 1 (fp8_bench ~56 s, peer ~100 s), then inception_v3 at batch 32 and 1 with
# their peers, as far as the time allows. inception_v4's rows need a third call
# (next-call3.sh).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
bench_step irv2-b1 inception_resnet_v2 1 70
peers_step inception_resnet_v2 1 120
bench_step v3-b32 inception_v3 32 75
bench_step v3-b1 inception_v3 1 50
peers_step inception_v3 32 90
peers_step inception_v3 1 70
pack_call call2
