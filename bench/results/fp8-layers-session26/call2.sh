#!/usr/bin/env bash
# Session 26, call 2 (fresh machine): the FP8 convs off the critical path on kernels without TMA
# (choose_priority's third graph).
# 1. test_cuda_fp8, every FP8 GPU test, with test_fp8_priority_alt (that graph forced);
# 2. fp8_bench IRv2 `default` at batch 32: the three graphs timed in the same process, the
#    fastest kept, then FP8 against fp16 in 7 interleaved rounds;
# 3. in the time left, fp8_bench inception_v4 at batch 32.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
INFER8_CUDA_CUDNN_BUDGET=10 timeout 270 tools/gpu-check fp8_tests >/dev/null 2>&1
echo "fp8_tests: exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|max rel logit|critical path" "$OUT/fp8_tests.log" | tail -20
for arch in inception_resnet_v2 inception_v4; do
  if [ "$(left)" -lt 110 ]; then echo "$arch skipped: $(left) s left"; continue; fi
  INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=32 FP8_BENCH_TIMEOUT=$(( $(left) < 170 ? $(left) - 5 : 170 )) \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  echo "fp8_bench $arch b32: exit $? t=$((SECONDS - t0)) s"
  mkdir -p "$OUT/$arch-b32" && mv "$OUT/fp8_bench.md" "$OUT/fp8_bench.log" "$OUT"/fp8-layers-*.tsv "$OUT/$arch-b32/" 2>/dev/null
  grep -E "^\| (incep|fp8-layers)|roofline bound" "$OUT/$arch-b32/fp8_bench.md"
  grep -E "high priority|graph as tuned" "$OUT/$arch-b32/fp8_bench.log"
done
cd $OUT && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
