#!/usr/bin/env bash
# For session 62 (prepared in session 61 as its call 2 ran), best on an H200 (kind nvidia-h200: issue 5's goal is
# stated for it, and its last full table is session 50's): issue 5's rows on the final code, each
# with its torch.compile peer in the same call, in the order of the goal's weight. If next-call1.sh
# found the own kernels with PDL faster at batch 1, run this with INFER8_CUDA_OWN_CHOICE=1 exported
# as well as without (OWN=1 bash ...). Before (session 60, H100): IRv2 b1 x 1.076, b32 1.282; v4
# 1.187 / 1.167; v3 1.135 / 1.180. Session 58 (H200): IRv2 b32 x 1.267, v3 b1 1.146. The peers'
# caps are session 60's setup times plus timing (v4's torch.compile took 56 s to set up at batch
# 32). Session 61 (H100, 5d169bc): IRv2 b32 x 1.282, b1 x 1.052 / 1.037; v4 b32 x 1.196; v3 b1
# x 1.129; the v4 and v3 peers ran out of time. Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
[ -n "${OWN:-}" ] && export INFER8_CUDA_OWN_CHOICE=$OWN && echo "INFER8_CUDA_OWN_CHOICE=$OWN"
# the own-kernel choice judged with PDL (session 61, never run): test_inception_v3_fp8 asserts that
# every graph choose_own timed has its PDL form and that the one kept is the fastest so judged (88 s
# in session 52)
fp8_tests_step fp8_v3 110 'test_inception_v3_fp8'
bench_step irv2-b32 inception_resnet_v2 32 115
PEER_MODES=compile peers_step inception_resnet_v2 32 100
bench_step irv2-b1 inception_resnet_v2 1 75
PEER_MODES=compile peers_step inception_resnet_v2 1 80
bench_step v4-b32 inception_v4 32 80
PEER_MODES=compile peers_step inception_v4 32 90
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 1 75 # session 61: 55 s was not enough
pack_call next2
