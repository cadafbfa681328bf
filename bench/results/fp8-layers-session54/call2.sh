#!/usr/bin/env bash
# Session 54, call 2: why the pair kernels take 13-30 us where their two convs take 7-10 (call 1's
# pair_lab.txt): Nsight Compute of pair-c4 on Block17's 1088 -> 128 -> 1x7 at batch 1 (the 31st
# launch, warm), and test_fp8_pair again with its bound taken from the same graph without pairs.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-160}
. tools/device-call.sh
call_setup
NCU_LAB=pair_lab NCU_SKIP=30 ncu_step ncu-pair-b17-c4 "Block17 1x1 1088->128 + 1x7 ->160 @17 b1" 0 2 conv_fp8_pair
unit_test_step fp8_pair test_cuda_fp8 test_fp8_pair 90
grep -E "pairs on" "$OUT/fp8_pair.log"
pack_call call2
