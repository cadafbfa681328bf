#!/usr/bin/env bash
# Prepared for the next session (not run: this session's device time was spent). Two patches on
# top of 66d5f82, on different kernels, so that one call measures both:
# - bench/results/fp8-layers-session22/im2col-producer.patch: the TMA producer counts its im2col
#   slices (tap, channel offset, window position) up instead of dividing (spatial TMA convs);
# - bench/results/fp8-layers-session23/chan-prefetch.patch: the cp.async kernels (mma.sync with
#   16-byte copies, and wgmma with MINB 1) load their epilogue channels' multipliers and biases,
#   and the residual, before the main loop (the residual also under split-K, in every split's
#   block), as the TMA kernels do since session 13, instead of global round trips one epilogue
#   group after another. These are the kernels batch 1 would use: in session 23's call 4 they ran
#   1.3-2.2x cuDNN e4m3's time on every IRv2 problem at batch 1, with a floor of about 3.2-3.6 us
#   against cuDNN's 2.3-2.5. ptxas: no new spills (-v).
# Here first: git apply bench/results/fp8-layers-session22/im2col-producer.patch
#             git apply bench/results/fp8-layers-session23/chan-prefetch.patch && tools/prepare-device
# Then call with carry ["build-device/bin","build-device/tests",".devcarry"].
# Compare: in the lab's batch-1 rows, variants 0 / 8 (mma.sync 64x64, split-K 1 / 4) and 16 / 24
# (wgmma 64x64, split-K 1 / 4) carry the patch; 32-44 (the lean wgmma family, MINB > 1: no
# registers to spare, so unpatched) are the in-call reference, and session 13's lab
# (fp8-lab-session13/call5-fp8_tma.txt) has the unpatched times of all; the spatial TMA convs' replay times with session 23's call 1 (1x7 9.6 us, 7x1 15.6, mixed_6a
# 3x3 53.1, mixed_7a 3x3 23.5); IRv2 b1 with call 4 (x 1.050, every FP8 conv on cuDNN e4m3).
# Through tools/gpu-check's steps (fp8_tma, fp8_tests, fp8_bench), which set up the libraries.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
FP8_TMA_SHAPE=b1 FP8_TMA_VARIANTS=0,8,16,24,32,36,40,44,48 FP8_TMA_TIMEOUT=100 tools/gpu-check fp8_tma 2>&1 | tail -12
echo "lab done t=$((SECONDS - t0)) s"
INFER8_CUDA_CUDNN_BUDGET=10 timeout 280 tools/gpu-check fp8_tests >/dev/null 2>&1
echo "fp8_tests: exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|max rel logit" "$OUT/fp8_tests.log"
INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=1,32 FP8_BENCH_TIMEOUT=$((575 - (SECONDS - t0))) \
  tools/gpu-check fp8_bench >/dev/null 2>&1
echo "fp8_bench: exit $? t=$((SECONDS - t0)) s"
grep -E "^\| (incep|fp8-layers)|per layer|roofline" "$OUT/fp8_bench.md"
grep -E "fp8-dnn: (repeat_1.0.branch1.[12]|mixed_6a.branch1.1|mixed_7a.branch2.1|repeat_1.0.conv2d) b32" "$OUT/fp8_bench.log" | head
cd $OUT && tar czf /tmp/n1.tgz . && rm -rf ./* && mv /tmp/n1.tgz .
