#!/usr/bin/env bash
# Session 24, call 1 (fresh machine).
# 1. Owed by session 23: the GPU tests and the benchmark in one call on the current GPU code
#    (90a94aa; GPU code unchanged since 66d5f82): test_cuda_fp8 (every FP8 GPU test), then IRv2
#    fp8_bench at batch 32 (README's settings: cuDNN budget 60 s).
# 2. Then the three prepared patches of session 23 stacked (im2col-narrow, im2col-producer-on-narrow,
#    chan-prefetch; binaries built here into .devcarry/bins-p): test_fp8_im2col alone first (the
#    narrow variant on 7 spatial cases against the CPU emulation), then the lab's batch-1 shapes on
#    the cp.async kernels that chan-prefetch changes (0, 8, 16, 24) with the lean family (32-44,
#    unpatched) as the in-call reference.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((575 - (SECONDS - t0))); }
cmp -s build-device/tests/test_cuda_fp8 .devcarry/bins-p/test_cuda_fp8 && echo "WARNING: build-device holds the patched binaries"
INFER8_CUDA_CUDNN_BUDGET=10 timeout 270 tools/gpu-check fp8_tests >/dev/null 2>&1
echo "fp8_tests (head): exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|max rel logit" "$OUT/fp8_tests.log"
mv "$OUT/fp8_tests.log" "$OUT/head_fp8_tests.log"
INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 FP8_BENCH_TIMEOUT=$(($(left) - 150)) \
  tools/gpu-check fp8_bench >/dev/null 2>&1
echo "fp8_bench b32 (head): exit $? t=$((SECONDS - t0)) s"
grep -E "^\| (incep|fp8-layers)|roofline" "$OUT/fp8_bench.md"
mv "$OUT/fp8_bench.md" "$OUT/head_fp8_bench_b32.md"; mv "$OUT/fp8_bench.log" "$OUT/head_fp8_bench_b32.log"
mkdir -p "$OUT/head" && mv "$OUT"/fp8-layers-*.tsv "$OUT/head/" 2>/dev/null
# the stacked patches
cp .devcarry/bins-p/test_cuda_fp8 build-device/tests/ && cp .devcarry/bins-p/infer8 .devcarry/bins-p/fp8_lab build-device/bin/
INFER8_TEST_FILTER='test_fp8_im2col' timeout $(($(left) - 20)) tools/gpu-check fp8_tests >/dev/null 2>&1
echo "im2col (patched): exit $? t=$((SECONDS - t0)) s"
mv "$OUT/fp8_tests.log" "$OUT/p_im2col.log"; grep -E "tma128x64s4c32|OK \]|FAILED \]|ERROR|WRONG" "$OUT/p_im2col.log" | head -20
if [ "$(left)" -gt 40 ]; then
  FP8_TMA_SHAPE=b1 FP8_TMA_VARIANTS=0,8,16,24,32,36,40,44,48 FP8_TMA_TIMEOUT=$(($(left) - 10)) tools/gpu-check fp8_tma 2>&1 | tail -14
  echo "lab (patched) done t=$((SECONDS - t0)) s"
fi
cd $OUT && tar czf /tmp/c1.tgz . && rm -rf ./* && mv /tmp/c1.tgz .
