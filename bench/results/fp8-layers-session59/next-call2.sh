#!/usr/bin/env bash
# For session 60 (prepared in session 59, not run), best on an H200 (kind nvidia-h200: issue 5's
# goal is stated for it, and its last full table is session 50's): issue 5's rows on the final
# code, each with its torch.compile peer in the same call, in the order of the goal's weight. If
# next-call1.sh found INFER8_CUDA_CARVEOUT=100 faster, run this with it exported as well as
# without (CARVE=100 bash ...). Before (session 59, H100): IRv2 b1 x 1.060, b32 1.280; v4 1.171 /
# 1.167; v3 1.113 / 1.172. Session 58 (H200): IRv2 b32 x 1.267, v3 b1 1.146. Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
[ -n "${CARVE:-}" ] && export INFER8_CUDA_CARVEOUT=$CARVE && echo "INFER8_CUDA_CARVEOUT=$CARVE"
bench_step irv2-b32 inception_resnet_v2 32 115
PEER_MODES=compile peers_step inception_resnet_v2 32 130
bench_step irv2-b1 inception_resnet_v2 1 75
PEER_MODES=compile peers_step inception_resnet_v2 1 130
bench_step v4-b32 inception_v4 32 100
PEER_MODES=compile peers_step inception_v4 32 80
bench_step v3-b1 inception_v3 1 50
PEER_MODES=compile peers_step inception_v3 1 50
pack_call next2
