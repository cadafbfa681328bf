#!/usr/bin/env bash
# Session 64, call 1: session 63's next-call1.sh (the lab at batch 1 in e4m3-only and dual output
# with abl-nochan and the tma128x64s4x remedy, warm Nsight Compute profiles of variants 48 and 89,
# every test_fp* and test_inception_v3_fp8*) and, in the same call, IRv2 at batch 32 with its
# torch.compile peer (next-call2.sh's first rows): seven failed starts left 1139 s of the
# session's 1800 for the whole session, so one call does what two were planned for. Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
lab_step lab-b1-qq.txt "320->32 @35 b1" FP8_LAB_MODE=6
lab_step lab-b1-qq.txt "2080->192 @8 b1" FP8_LAB_MODE=6
lab_step lab-b1-dual.txt "320->32 @35 b1"
lab_step lab-b1-dual.txt "2080->192 @8 b1"
NCU_SKIP=20 NCU_FLAGS="--cache-control none --clock-control none --warp-sampling-interval 0" \
  ncu_step ncu-b35-b1-v48-qq-warm "320->32 @35 b1" 6 48
NCU_SKIP=20 NCU_FLAGS="--cache-control none --clock-control none --warp-sampling-interval 0" \
  ncu_step ncu-b35-b1-v89-qq-warm "320->32 @35 b1" 6 89
fp8_tests_step fp8_all 230 'test_fp*'
fp8_tests_step fp8_v3 100 'test_inception_v3_fp8*'
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 70
pack_call call1
