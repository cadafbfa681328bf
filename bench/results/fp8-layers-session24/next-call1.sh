#!/usr/bin/env bash
# Prepared for the next session (not run: this session's device time was spent). Where does the
# 32-channel im2col kernel (variant 57, tma128x64s4c32) spend its time on Block35's 3x3 32 -> 48 at
# batch 32, the conv on IRv2's critical path where cuDNN e4m3 (13.4 us in session 24's tuning)
# still beats it (14.2 us)? Before writing a weight-resident variant ("Next" 1 in
# docs/performance.md, "Session 24"), this measures:
# 1. the kernel lab on that shape (added in session 24; also the batch-8 one): the cp.async
#    kernels 16 / 32, the 128-channel im2col TMA kernels 54 / 55 / 56 and the narrow 57, every
#    output checked, and the lab's best own fp16 kernel;
# 2. Nsight Compute on 57 and 54 there (mode 0, q->dual): stall reasons, issue slots, memory.
# Here first: tools/prepare-device; then call with carry ["build-device/bin","build-device/tests",".devcarry"].
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
FP8_TMA_SHAPE="Block35 3x3 32->48" FP8_TMA_VARIANTS=16,32,54,55,56,57 FP8_TMA_TIMEOUT=150 tools/gpu-check fp8_tma 2>&1 | tail -12
echo "lab done t=$((SECONDS - t0)) s"
FP8_NCU_SHAPE="Block35 3x3 32->48 @35 b32" FP8_NCU_MODE=0 FP8_NCU_VARIANTS="57 54" tools/gpu-check fp8_ncu 2>&1 | tail -40
echo "ncu done t=$((SECONDS - t0)) s"
cd $OUT && tar czf /tmp/n1.tgz . && rm -rf ./* && mv /tmp/n1.tgz .
