#!/usr/bin/env bash
# Prepared for the next session (not run): a profile of the residual TMA kernel after session 33's
# warp-uniform indices, the Block35 branch 1x1 (320 -> 32) that FP8 barely speeds up, and the CLI
# parity of FP8 on IRv2 on the final code.
# 1. Nsight Compute, SASS-level stall samples, on tma128x64s4pr (variant 53) for the Block17
#    up-projection at batch 32, mode 4: $OUT/ncu-b17up-53*. Compare with session 32's
#    bench/results/fp8-layers-session32/s31-next-call1/ncu-b17up-53-sass.csv.gz (K slice 70 warp
#    instructions, 32 of them R2UR; epilogue 734 per warp and tile).
# 2. (Ran in session 34's call1.sh: the lab on "Block35 branch 1x1 320->32 @35 b32", every
#    variant; best tma128x64s4p 8.71 us.)
# 3. fp8_parity on IRv2 (the CLI on cuda against the CPU emulation, three recipes; last run on
#    be87941).
# Carry: build-device/bin, build-device/tests/tools, .devcarry (after tools/prepare-device here).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
ncu_step ncu-b17up-53 "Block17 up 1x1 384->1088 @17 b32" 4 53
stamp fp8_parity
FP8_PARITY_ARCHES=inception_resnet_v2 timeout $(cap 300) tools/gpu-check fp8_parity 2>&1 | grep -E "parity|max rel|agree|exit" | tail -8
pack_call next-call1
