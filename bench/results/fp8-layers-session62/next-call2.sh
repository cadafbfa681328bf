#!/usr/bin/env bash
# For session 63, after next-call1.sh (carry [".devcarry"]; an H200 if one comes):
# test_inception_v3_fp8 on the final code (it asserts the plain, merge and own choices), then the
# rows next-call1.sh may have had no time for, each with its torch.compile peer: IRv2 at batch 32,
# v3 at batch 32 and v4 at batch 1 (neither run since session 60); then the lab at batch 1, timed
# as graph replays.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_v3 110 'test_inception_v3_fp8'
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 75
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 80
bench_step v4-b1 inception_v4 1 50
PEER_MODES=compile peers_step inception_v4 1 80
# the lab at batch 1, timed as graph replays since session 62 (its stream-launch times there included
# the host: every ablation of session 62's call 1 came out near 4.5 us): where a small conv's time goes
lab_step lab-b1-graph.txt "320->32 @35 b1"
lab_step lab-b1-graph.txt "2080->192 @8 b1"
pack_call next2
