#!/usr/bin/env bash
# Session 23, call 1: the TMA kernels' epilogue in phases (every read, then the arithmetic, then
# the staging writes, then the stores; until now each fragment pair's reads waited behind the
# writes before it, and each residual load was a global round trip of its own).
# 1. The kernel lab on its four batch-32 shapes, product variants only (32: the cp.async wgmma
#    kernel, unchanged, as the in-call reference; 48-53: the TMA kernels): every output checked,
#    times to compare with session 13's call 5 (bench/results/fp8-lab-session13/call5-fp8_tma.txt).
# 2. test_cuda_fp8 (all FP8 GPU tests; the TMA kernels' residual, tile-loop, im2col and model tests).
# 3. IRv2 fp8_bench at batch 32 (README's settings: budget 60 s), its per-conv times.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never WORK=/tmp/gpu-check-work INFER8=$PWD/build-device/bin/infer8
STEPS=()
for f in tools/gpu-check.d/*.sh; do . "$f"; done
gpu_env >/dev/null
t0=$SECONDS
FP8_TMA_SHAPE=b32 FP8_TMA_VARIANTS=32,48,49,50,51,52,53 FP8_TMA_TIMEOUT=120 fp8_tma 2>&1 | tail -30
echo "lab done t=$((SECONDS - t0)) s"
INFER8_CUDA_CUDNN_BUDGET=10 timeout 200 build-device/tests/test_cuda_fp8 >"$OUT/fp8_tests.log" 2>&1
echo "test_cuda_fp8: exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|max rel logit" "$OUT/fp8_tests.log"
left=$((570 - (SECONDS - t0)))
INFER8_FP8_BENCH=1 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 INFER8_FP8_BENCH_TSV="$OUT" \
  INFER8_CUDA_CUDNN_BUDGET=60 timeout $left build-device/tests/test_cuda_fp8 >"$OUT/fp8_bench_b32.md" 2>"$OUT/fp8_bench_b32.log"
echo "fp8_bench b32: exit $? t=$((SECONDS - t0)) s"
grep -E "^\| (incep|fp8-layers)|per layer|roofline" "$OUT/fp8_bench_b32.md"
grep -E "fp8-dnn: (repeat_1.0.branch1.[12]|mixed_6a.branch1.1|mixed_7a.branch2.1|repeat_1.0.conv2d) b32" "$OUT/fp8_bench_b32.log" | head
cd $OUT && tar czf /tmp/c1.tgz . && rm -rf ./* && mv /tmp/c1.tgz .
