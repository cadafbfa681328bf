#!/usr/bin/env bash
# For session 63 (prepared in session 62). Carry [".devcarry"]; best on an H200 (kind nvidia-h200:
# issue 5's goal is stated for it). Session 62 ran session 61's final code on an H100 (calls 1-2:
# all 25 test_fp* passed; IRv2 x 1.054 at batch 1, 1.280 at batch 32; v4 b32 1.174; v3 b1 1.115)
# and then, on an H200, IRv2 at batch 32 after choose_merge began judging its candidates with PDL
# (aa43054): x 1.324, the unmerged graph kept at 2.691 ms with PDL over the BN 64 merge's 2.755.
# Not yet run on the mended code: every test_fp* (call 3 ran test_fp8_merge and
# test_inception_v3_fp8 only), and the other rows, above all v4 at batch 32, whose call-2 graph
# kept the BN 64 merge under the old rule. In order:
# 1. every test_fp* (158 s in session 62's call 1);
# 2. v4 at batch 32 and IRv2 at batch 1, each with its torch.compile peer;
# 3. IRv2 at batch 1 with INFER8_CUDA_CHOICE_WARMUP_MS=300 (an experiment: 300 ms of replays before
#    the whole-graph choices, against the first-timed graph's drift);
# 4. v3 at batch 1 and IRv2 at batch 32 again, each with its peer, if time is left.
# next-call2.sh has the rest.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_all 220 'test_fp*'
bench_step v4-b32 inception_v4 32 80
PEER_MODES=compile peers_step inception_v4 32 90
bench_step irv2-b1 inception_resnet_v2 1 60
PEER_MODES=compile peers_step inception_resnet_v2 1 80
# the post-tuning drift (choose_graph's warm_before_choices, off by default): with 300 ms of replays
# first, does "graph as tuned" (choose_plain) match the merge choice's "graph" (its log's debug lines)?
INFER8_CUDA_CHOICE_WARMUP_MS=300 bench_step irv2-b1-warm inception_resnet_v2 1 45
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 1 75
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 75
pack_call next1
