#!/usr/bin/env bash
# Prepared in session 36 (not run): the per-node profile timed as graph replays
# (profile-replays.patch: cuda_profile captures each node launched 10 times and replays it, as the
# tuner times a conv; an event pair around one launch on an idle GPU also counted the launch's host
# cost). Here, before the call: git apply bench/results/fp8-layers-session36/profile-replays.patch
# (and relu-maxnan.patch if next-call1.sh's A/B says so), tools/prepare-device.
# Checks: cuda_tests (test_cuda_backend runs the profile), test_fp8_nan and test_fp8_pdl; then
# fp8_bench rows, whose "per layer" lines print the profile's sums beside the tuner's: with the
# patch the two should agree within a few percent (before it, Block8's 1x3 at 8x8 took 0.0135 ms
# isolated against 0.0035 tuned).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
check_step cuda_tests 170
fp8_tests_step fp8_nan 45 'test_fp8_nan'
fp8_tests_step fp8_pdl 60 'test_fp8_pdl'
bench_step irv2-b32 inception_resnet_v2 32 140
bench_step irv2-b1 inception_resnet_v2 1 85
bench_step v3-b32 inception_v3 32 90
grep -h "per layer\|most lost" "$OUT"/*/fp8_bench.md 2>/dev/null | head -30
pack_call next-call2
