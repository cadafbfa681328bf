#!/usr/bin/env bash
# Prepared for the next session (not run): the owed one-call check of session 26's final commit
# (call 3 ran 41cdddf; 5775137 moved the critical path into src/graph and e326c57 changed a
# test's kernel lookup, neither run on a GPU):
# 1. test_cuda_backend (fp16 GPU tests, test_priority_streams);
# 2. test_cuda_fp8 (every FP8 GPU test, test_fp8_priority, test_fp8_tma_tile_loop);
# 3. fp8_bench IRv2 `default` at batch 32 (FP8 against infer8's fp16 in the same process).
# Then, in a later call: v4 and v3 at batch 1 (FP8_BENCH_INTO=ARCH-b1 INFER8_FP8_BENCH_ARCHES=ARCH
# INFER8_FP8_BENCH_BATCHES=1 tools/gpu-check fp8_bench), and session 25's call3.sh for the
# README's fp16 rows against torch.compile.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
timeout 200 tools/gpu-check cuda_tests | tail -8
echo "t=$((SECONDS - t0)) s"
INFER8_CUDA_CUDNN_BUDGET=10 timeout 260 tools/gpu-check fp8_tests | tail -10
echo "t=$((SECONDS - t0)) s"
if [ "$(left)" -gt 110 ]; then
  FP8_BENCH_INTO=irv2-b32 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 \
    FP8_BENCH_TIMEOUT=$(($(left) - 5)) tools/gpu-check fp8_bench
else
  echo "IRv2 b32 skipped: $(left) s left"
fi
cd $OUT && tar czf /tmp/next-call1.tgz . && rm -rf ./* && mv /tmp/next-call1.tgz .
