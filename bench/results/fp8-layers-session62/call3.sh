#!/usr/bin/env bash
# Session 62, call 3 (carry [".devcarry"]): the merge choice judged with PDL. Call 2 (H100, 43c0923)
# timed IRv2 at batch 32 unmerged at 2.858 ms with PDL in choose_own, then choose_merge kept the
# BN 64 merge on plain times (3.032 against 3.075) and that graph ran 2.992 with PDL, the row's
# 2.998 ms (x 1.280). Now choose_merge captures every candidate with PDL too and judges each by
# its faster form (launch_judged_ms, as choose_own does); choose_plain times its two graphs
# interleaved. Checks: test_fp8_merge (the merged kernels) and test_inception_v3_fp8 (asserts the
# plain and merge choices keep the fastest judged graph); then the rows that moved, each with its
# torch.compile peer in the same call.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-440}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_v3 100 'test_inception_v3_fp8'
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 75
fp8_tests_step fp8_merge 40 'test_fp8_merge'
bench_step v4-b32 inception_v4 32 80
bench_step irv2-b1 inception_resnet_v2 1 60
pack_call call3
