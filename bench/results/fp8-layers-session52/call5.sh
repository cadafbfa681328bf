#!/usr/bin/env bash
# Session 52, call 5 (what the last 394 s of device time bought): where the FP8 3x3s with few
# channels lose to fp16 (IRv2's Block35 3x3 32 -> 48 at batch 32: FP8 10.2-10.7 us on halo128x64,
# cuDNN fp16 8.5-8.9 us in calls 1 and 4). The lab times every FP8 kernel that fits it, each output
# checked against the lab's double reference; Nsight Compute profiles the tuner's pick.
#   lab-b35-3x3.txt   fp8_lab, mode 0: wgmma128x64 (17), tma128x64s4c32 (57), halo 58-62
#   ncu-halo61.*      Nsight Compute on halo128x64: speed of light, warp states, SASS stall samples
# The same carry as call1.sh:
#   bash bench/results/fp8-layers-session52/call5.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-200}
. tools/device-call.sh
call_setup
lab_step lab-b35-3x3.txt "Block35 3x3 32->48 @35 b32" FP8_LAB_VARIANT=17,57,58,59,60,61,62
ncu_step ncu-halo61 "Block35 3x3 32->48 @35 b32" 0 61 halo
pack_call call5
