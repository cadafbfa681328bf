#!/usr/bin/env bash
# Session 26, call 3 (fresh machine), the final code (the priority choice of two graphs; the
# third graph of call 2 removed): every GPU test and the IRv2 benchmark in one call.
# 1. test_cuda_backend (fp16 GPU tests, test_priority_streams);
# 2. test_cuda_fp8 (every FP8 GPU test, test_fp8_priority);
# 3. fp8_bench IRv2 `default` at batch 32.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
timeout 200 tools/gpu-check cuda_tests >/dev/null 2>&1
echo "cuda_tests: exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|high priority" "$OUT/cuda_tests.log" | tail -6
INFER8_CUDA_CUDNN_BUDGET=10 timeout 260 tools/gpu-check fp8_tests >/dev/null 2>&1
echo "fp8_tests: exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|max rel logit|critical path" "$OUT/fp8_tests.log" | tail -8
if [ "$(left)" -gt 110 ]; then
  INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 FP8_BENCH_TIMEOUT=$(($(left) - 5)) \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  echo "fp8_bench IRv2 b32: exit $? t=$((SECONDS - t0)) s"
  mkdir -p "$OUT/irv2-b32" && mv "$OUT/fp8_bench.md" "$OUT/fp8_bench.log" "$OUT"/fp8-layers-*.tsv "$OUT/irv2-b32/" 2>/dev/null
  grep -E "^\| (incep|fp8-layers)|roofline bound" "$OUT/irv2-b32/fp8_bench.md"
  grep -E "high priority|graph as tuned" "$OUT/irv2-b32/fp8_bench.log"
else
  echo "IRv2 b32 skipped: $(left) s left"
fi
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
