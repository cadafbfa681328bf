#!/usr/bin/env bash
# Prepared in session 42 (not run): the chained-stage kernels as product variants, tested and timed
# in one call. Before the call, here:
#   git apply bench/results/fp8-layers-session42/chained-variants.patch && tools/prepare-device
# The patch numbers three TMA variants after the halo kernels (I8_FP8_TMA_LATE_FIRST = 63):
# 63 tma128x64s4-pi2, 64 tma128x64s4r-pi2, 65 tma128x64s4c-pi2 (tma_fp8_kernel's PI = 2: each
# stage's wgmma issued before the one before is waited for, sums promoted to fp32 every 2 stages).
# The tuner keeps a wgmma variant only when its output matches the mma.sync kernel's. Here, with
# the patch: test_cuda_fp8_variants, dev/wgmma_pipelined and dev/kernel_labs_compile pass, the nine
# existing TMA kernels compile to the same .text bytes, the two new ones without spills.
# Run it after next-call1.sh says a chained kernel is faster in the lab.
#   suites     test_cuda_fp8 (the im2col tests run 65 on every case) beside cuda_tests
#   irv2-b32   issue 5's row with the per-layer table (which convs took 63-65)
#   lab-*      fp8_lab, product 48 50 54 56 against 63 64 65
#   v4-b32     as time allows
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_split_step 330
bench_step irv2-b32 inception_resnet_v2 32 130
V=48,50,54,56,63,64,65
lab_step lab-7x1.txt "7x1 160->192 @17 b32" FP8_LAB_VARIANT=$V
lab_step lab-b17branch.txt "Block17 branch 1x1 1088->192 @17 b32" FP8_LAB_VARIANT=$V
lab_step lab-b17up.txt "Block17 up 1x1 384->1088 @17 b32 +res" FP8_LAB_MODE=4 FP8_LAB_VARIANT=$V
bench_step v4-b32 inception_v4 32 80
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call next-call2
