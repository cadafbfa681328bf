#!/usr/bin/env bash
# Session 54, call 2 (owed to the next session): why the pair kernels take 13-30 us where their two
# convs take 7-10 (call 1's pair_lab.txt), and whether the bulk-copy loads fix it:
#   pair_lab.txt      every shape, each variant with the 16-byte cp.async loads and with the bulk
#                     copies on mbarriers (INFER8_CUDA_PAIR_BULK's path, new, never run on a GPU)
#   ncu-pair-*        Nsight Compute of pair-c4 on Block17's 1088 -> 128 -> 1x7 at batch 1 (the 31st
#                     launch, warm), cp.async loads, then bulk loads
#   fp8_pair.log      test_fp8_pair: six cases (cluster sizes 1-8, both band kinds, both load paths)
#                     held to the same graph without pairs
# Carry ["build-device/bin/pair_lab", "build-device/tests/test_cuda_fp8", ".devcarry"] after
# tools/prepare-device (the whole build-device/bin is too near the 64 MiB limit).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-420}
. tools/device-call.sh
call_setup
pair_lab_step
PAIR_LAB_BULK=0 NCU_LAB=pair_lab NCU_SKIP=30 ncu_step ncu-pair-b17-c4 "Block17 1x1 1088->128 + 1x7 ->160 @17 b1" 0 2 conv_fp8_pair
PAIR_LAB_BULK=1 NCU_LAB=pair_lab NCU_SKIP=30 ncu_step ncu-pair-b17-c4-bulk "Block17 1x1 1088->128 + 1x7 ->160 @17 b1" 0 2 conv_fp8_pair
unit_test_step fp8_pair test_cuda_fp8 test_fp8_pair 200
grep -E "pairs on" "$OUT/fp8_pair.log"
pack_call call2
