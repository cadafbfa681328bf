#!/usr/bin/env bash
# Session 26, call 1 (fresh machine): the critical path on high-priority streams (choose_priority).
# 1. test_cuda_backend: the fp16 GPU tests, with test_priority_streams (IRv2 at batch 1 and 4
#    with the priority graph forced: same logits as the CPU reference);
# 2. fp8_bench IRv2 `default` at batch 32, then 1: each graph (fp16 and FP8) timed in the same
#    process with and without the priorities (choose_priority's line), the faster kept, then
#    FP8 against fp16 in 7 interleaved rounds;
# 3. in the time left, fp8_bench inception_v3 at batch 32 (the same A/B on another family).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
tools/gpu-check cuda_tests >/dev/null 2>&1
echo "cuda_tests: exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|high priority|max rel" "$OUT/cuda_tests.log" | tail -14
for b in 32 1; do
  INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=$b FP8_BENCH_TIMEOUT=$(( $(left) < 170 ? $(left) : 170 )) \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  echo "fp8_bench IRv2 b$b: exit $? t=$((SECONDS - t0)) s"
  mkdir -p "$OUT/irv2-b$b" && mv "$OUT/fp8_bench.md" "$OUT/fp8_bench.log" "$OUT"/fp8-layers-*.tsv "$OUT/irv2-b$b/" 2>/dev/null
  grep -E "^\| (incep|fp8-layers)|roofline bound" "$OUT/irv2-b$b/fp8_bench.md"
  grep -E "high priority|graph as tuned" "$OUT/irv2-b$b/fp8_bench.log"
done
if [ "$(left)" -gt 120 ]; then
  INFER8_FP8_BENCH_ARCHES=inception_v3 INFER8_FP8_BENCH_BATCHES=32 FP8_BENCH_TIMEOUT=$(($(left) - 5)) \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  echo "fp8_bench v3 b32: exit $? t=$((SECONDS - t0)) s"
  mkdir -p "$OUT/v3-b32" && mv "$OUT/fp8_bench.md" "$OUT/fp8_bench.log" "$OUT"/fp8-layers-*.tsv "$OUT/v3-b32/" 2>/dev/null
  grep -E "^\| (incep|fp8-layers)" "$OUT/v3-b32/fp8_bench.md"
  grep -E "high priority" "$OUT/v3-b32/fp8_bench.log"
else
  echo "v3 b32 skipped: $(left) s left"
fi
cd $OUT && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
