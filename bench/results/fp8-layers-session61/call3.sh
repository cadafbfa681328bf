#!/usr/bin/env bash
# Session 61, call 3 (asked with about 100 s of budget left, after the review): the final code's
# quickest GPU check with a benchmark and its peer in one call: test_fp8_pdl (the drain pass) and
# test_fp8_tma_tile_loop (the eight-stage kernel through many barrier phases), then v3 at batch 1
# with its torch.compile peer. Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-85}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_quick 25 'test_fp8_pdl'
fp8_tests_step fp8_loop 20 'test_fp8_tma_tile_loop'
bench_step v3-b1 inception_v3 1 30
PEER_MODES=compile peers_step inception_v3 1 20
pack_call call3
