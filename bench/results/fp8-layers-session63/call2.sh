#!/usr/bin/env bash
# Session 63, call 2 (warm H100 after call 1 = session 62's next-call1.sh on 2e4cd8b, which ran every
# test_fp* and v4 b32 / IRv2 b1 with peers, then ran out of time). Carry [".devcarry"].
# 1. test_inception_v3_fp8* (the own- and merge-choice assertions after choose_own went interleaved
#    and PDL forms became conditional: not a test_fp* test, so call 1 did not run it);
# 2. IRv2 at batch 32 and v3 at batch 1 with their torch.compile peers (call 1 skipped them);
# 3. the lab at batch 1 timed as graph replays (301f41d), if time is left.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-470}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_v3 120 'test_inception_v3_fp8*'
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 75
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 1 75
lab_step lab-b1-graph.txt "320->32 @35 b1"
lab_step lab-b1-graph.txt "2080->192 @8 b1"
pack_call call2
