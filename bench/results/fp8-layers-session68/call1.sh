#!/usr/bin/env bash
# For session 68 (prepared in session 67). Carry [".devcarry"] after bash tools/prepare-device; best
# on an H200, where issue 5's goal is stated (sessions 63-67 got H100s). The owed check in one call
# (issue5_check_call, tools/device-call.sh): every test_fp* and test_inception_v3_fp8* side by side,
# then issue 5's rows with their torch.compile peers, IRv2 first, as far as the time goes
# (session 67's figures: tests 180 s, IRv2 b32 and its peer 184 s, IRv2 b1 104 s).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
issue5_check_call next1
