#!/usr/bin/env bash
# Session 27 call 3: the final commit's GPU code in one call: test_cuda_backend, test_cuda_fp8,
# then IRv2 `default` at batch 32 (fp8_bench: FP8 against infer8's own fp16 in the same process,
# 7 interleaved rounds) under $OUT/irv2-b32.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
cap() { local left=$((585 - (SECONDS - t0))); echo $(( $1 < left ? $1 : (left > 1 ? left : 1) )); }
echo "== cuda_tests (t=$((SECONDS - t0)) s)"
timeout $(cap 240) tools/gpu-check cuda_tests | grep -E "PASSED|FAILED|exit|pass [0-9]" | tail -8
echo "== fp8_tests (t=$((SECONDS - t0)) s)"
INFER8_CUDA_CUDNN_BUDGET=10 timeout $(cap 260) tools/gpu-check fp8_tests | grep -E "PASSED|FAILED|exit|max rel logit" | tail -8
echo "== irv2-b32 (t=$((SECONDS - t0)) s)"
FP8_BENCH_INTO=irv2-b32 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 \
  FP8_BENCH_TIMEOUT=$(cap 200) tools/gpu-check fp8_bench
echo "end t=$((SECONDS - t0)) s"
