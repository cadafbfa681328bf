#!/usr/bin/env bash
# For session 69 (prepared in session 68). Carry [".devcarry"] after bash tools/prepare-device; best
# on an H200, where issue 5's goal is stated (sessions 63-68 got H100s). The owed check of session
# 68's final code in one call (issue5_check_call, tools/device-call.sh): every test_fp* and
# test_inception_v3_fp8* beside cuda_tests (the fp16 families and the per-op graphs, the pools
# i8_pass_sink_avgpool moves among them), then issue 5's rows with their torch.compile peers, IRv2
# first, as far as the time goes (session 68: tests 184 s, IRv2 b32 bench 72 s).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
issue5_check_call next1
