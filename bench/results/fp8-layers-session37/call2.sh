#!/usr/bin/env bash
# Session 37, call 2 (on the machine call 1 left warm; call 1 showed relu-maxnan.patch level
# with HEAD, so its test_fp8_nan was dropped): the CUDA backend tests (they run the per-node
# profile, now graph replays) and the calibration GPU tests, then issue 5's other rows
# (session 36: IRv2 b1 x 1.046, v4 b32 1.112, v3 b32 1.071, v4 b1 1.167).
# Carry: as call1.sh.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
check_step cuda_tests 170
check_step calib_tests 40
bench_step irv2-b1 inception_resnet_v2 1 85
bench_step v4-b32 inception_v4 32 110
bench_step v3-b32 inception_v3 32 90
bench_step v4-b1 inception_v4 1 60
pack_call call2
