#!/usr/bin/env bash
# Session 45, call 2 (session 44's next-call2.sh, run as prepared): issue 5's IRv2 batch-1 row and
# inception_v3's rows at batch 32 and 1 on the final code, each with its PyTorch peer in the same call.
# Run as: bash bench/results/fp8-layers-session45/call2.sh (carry as call1.sh).
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
