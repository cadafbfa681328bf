#!/usr/bin/env bash
# For session 67 (prepared in session 66). Carry [".devcarry"] after bash tools/prepare-device; best
# on an H200 (issue 5's goal is stated for it). The GPU tests and the benchmark with its peer in one
# call: every test_fp* and test_inception_v3_fp8* side by side (178 s in session 66, 4 OpenMP
# threads each; they check correctness only, so they may share the GPU), then IRv2 at batch 32 with
# its torch.compile peer. IRv2's bench gets 120 s: in session 66 its tuning took more than the 112 s
# left, and the rounds never ran.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
suites_parts 0 4 "fp8_all 240 test_fp*" "fp8_v3 120 test_inception_v3_fp8*"
stamp "suites done"
row_step irv2-b32 inception_resnet_v2 32 120 95
pack_call next1
