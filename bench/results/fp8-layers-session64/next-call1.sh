#!/usr/bin/env bash
# For session 65 (prepared in session 64). Carry [".devcarry"]; best on an H200 (issue 5's goal is
# stated for it; sessions 63-64 got H100s only). In order:
# 1. the lab at batch 1 on the two shapes, e4m3-only output (FP8_LAB_MODE=6) and dual (mode 0),
#    with tma128x64s4d (lab variant 90, 5d3bcd2: the direct epilogue, stores from registers and
#    channel scales from L1, no staging, no TMA store, no channel-stage barriers; outputs checked)
#    next to tma128x64s4 (48). Session 64's lab (H100, mode 6): tma128x64s4 3.66 / 6.58 us,
#    abl-noepi 2.41 / 4.72, abl-nostore 3.32 / 6.39, abl-nochan 3.42 / 6.03 (320->32 / 2080->192);
#    cuDNN e4m3 2.40 / 4.48 in session 63's profile. Also the generic stores (FP8_LAB_TMA_STORE=0)
#    in mode 6 for comparison;
# 2. Nsight Compute on one warm launch of variant 90 on 320->32 in mode 6 (as session 64's of 48);
# 3. IRv2 at batch 32 and at batch 1 with their torch.compile peers (the peer at batch 32 took more
#    than 70 s in session 64's call 1: 95 s here).
# If tma128x64s4d wins at batch 1 on both shapes, the product's cooperative TMA kernels can take
# it where an output has no TMA store to gain (batch 1), then test_fp* and the rows.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
lab_step lab-b1-qq.txt "320->32 @35 b1" FP8_LAB_MODE=6
lab_step lab-b1-qq.txt "2080->192 @8 b1" FP8_LAB_MODE=6
lab_step lab-b1-dual.txt "320->32 @35 b1"
lab_step lab-b1-dual.txt "2080->192 @8 b1"
lab_step lab-b1-qq-generic.txt "320->32 @35 b1" FP8_LAB_MODE=6 FP8_LAB_TMA_STORE=0
lab_step lab-b1-qq-generic.txt "2080->192 @8 b1" FP8_LAB_MODE=6 FP8_LAB_TMA_STORE=0
NCU_SKIP=20 NCU_FLAGS="--cache-control none --clock-control none --warp-sampling-interval 0" \
  ncu_step ncu-b35-b1-v90-qq-warm "320->32 @35 b1" 6 90
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 95
bench_step irv2-b1 inception_resnet_v2 1 80
PEER_MODES=compile peers_step inception_resnet_v2 1 85
pack_call next1
