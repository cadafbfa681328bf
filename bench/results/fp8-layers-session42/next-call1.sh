#!/usr/bin/env bash
# Prepared in session 42 for the next session's device time (not run): the lab's chained-stage TMA
# kernels (dev/kernels/fp8_tma.cu, template parameter PI of tma_fp8_kernel; the product's kernels
# compile to the same bytes) against the product's, on the four IRv2 batch-32 convs of session 42's
# call 2. Nsight Compute put a quarter of the 7x1 kernel's stall samples on its consumers' wait for
# the wgmma they had just issued; these kernels issue each stage's wgmma before waiting for the one
# before, promoting the sums to fp32 every 2 or 4 stages (PI) instead of every stage.
#   lab variants 73 tma128x64s4-pi2, 74 tma128x64s4r-pi2, 75 tma128x64s4c-pi2, 76 tma128x64s4c-pi4,
#   77 tma128x64s4pc-pi2 (ping-pong; spills 276 bytes), 78 tma128x64s4c-pi0 (one promotion a tile;
#   timed, output not checked); product 48 s4, 50 s4r, 52 s4p, 53 s4pr, 54 s4c, 56 s4pc.
# Their outputs are checked against the lab's double-precision reference (fp16 max |diff| / max
# |ref| <= 2e-3, e4m3 codes within one step, fewer than 1% differing): a longer chain in the tensor
# cores' accumulator rounds more. If one is faster and passes, it goes into the product as a variant
# numbered after the halo kernels (d32c14a has that numbering, I8_FP8_TMA_LATE_FIRST), and the GPU
# suites and issue 5's rows follow in the same call.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-300}
. tools/device-call.sh
call_setup
V=48,50,52,53,54,56,73,74,75,76,77,78
lab_step lab-7x1.txt "7x1 160->192 @17 b32" FP8_LAB_VARIANT=$V
lab_step lab-1x7.txt "1x7 128->160 @17 b32" FP8_LAB_VARIANT=$V
lab_step lab-b17branch.txt "Block17 branch 1x1 1088->192 @17 b32" FP8_LAB_VARIANT=$V
lab_step lab-b17up.txt "Block17 up 1x1 384->1088 @17 b32 +res" FP8_LAB_MODE=4 FP8_LAB_VARIANT=$V
lab_step lab-b35up.txt "Block35 up 1x1 128->320 @35 b32 +res" FP8_LAB_MODE=4 FP8_LAB_VARIANT=$V
ncu_step ncu-7x1-75 "7x1 160->192 @17 b32" 0 75
pack_call next-call1
