#!/usr/bin/env bash
# Session 58, call 6 (the budget's last 157 s): the final code's halo tests (test_fp8_halo,
# _halo_chain, _halo_prefetch: modes 1-3, mode 3 for the first time), then IRv2's batch-32 row as
# far as the time goes. Carry [".devcarry"] alone.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-130}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_halo 70 'test_fp8_halo*'
bench_step irv2-b32 inception_resnet_v2 32 50
pack_call call6
