#!/usr/bin/env bash
# Session 24, call 3 (fresh machine): the graph's TMA grid choice (uncommitted on top of 2cd8d29:
# the tuned graph is also captured with the TMA kernels' grids capped at 3/4, 1/2 and 1/4 of the
# SMs, and the fastest of the four kept; INFER8_CUDA_TMA_GRID forces a cap).
# 1. test_cuda_fp8, every FP8 GPU test (the tile-loop test now also on a 2-block grid; the model
#    tests check that the capped graphs were timed and run on the kept one);
# 2. fp8_bench at batch 32 (the grid choice matters where TMA convs run): IRv2, inception_v3,
#    inception_v4, each in its own run, in the time left.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((580 - (SECONDS - t0))); }
INFER8_CUDA_CUDNN_BUDGET=10 timeout 260 tools/gpu-check fp8_tests >/dev/null 2>&1
echo "fp8_tests: exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|max rel logit|kept .* blocks|2 blocks|every SM" "$OUT/fp8_tests.log"
for arch in inception_resnet_v2 inception_v3 inception_v4; do
  [ "$(left)" -gt 45 ] || { echo "no time for $arch"; continue; }
  INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=32 FP8_BENCH_TIMEOUT=$(($(left) - 5)) \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  echo "fp8_bench $arch b32: exit $? t=$((SECONDS - t0)) s"
  mkdir -p "$OUT/$arch" && mv "$OUT/fp8_bench.md" "$OUT/fp8_bench.log" "$OUT"/fp8-layers-*.tsv "$OUT/$arch/" 2>/dev/null
  grep -E "^\| (incep|fp8-layers)|roofline bound" "$OUT/$arch/fp8_bench.md"
  grep -E "TMA kernels on|graph as tuned" "$OUT/$arch/fp8_bench.log"
done
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
