#!/usr/bin/env bash
# Session 67's call: session 66's next-call1.sh (every test_fp* and test_inception_v3_fp8* side by
# side, then IRv2 at batch 32 with its torch.compile peer), then next-call2.sh's rows in turn, each
# skipped when the time left is less than it needs. Failed starts left budget for one call only.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
suites_parts 0 4 "fp8_all 240 test_fp*" "fp8_v3 120 test_inception_v3_fp8*"
stamp "suites done"
row_step irv2-b32 inception_resnet_v2 32 120 95
row_step irv2-b1 inception_resnet_v2 1 75 150
row_step v3-b32 inception_v3 32 70 80
row_step v3-b1 inception_v3 1 45 75
pack_call call1
