#!/usr/bin/env bash
# Session 25, call 1 (fresh machine), on e91c9b9's build (session 24's owed check):
# 1. test_cuda_fp8, every FP8 GPU test;
# 2. fp8_bench IRv2 `default` at batch 32 (FP8 against infer8's fp16 graph, interleaved);
# 3. test_cuda_backend, the fp16 GPU tests (issue 4), on the same code;
# 4. in the time left: inception_v3 fp16 at batch 32 against torch.compile (issue 4's thinnest
#    row: 1.04x in session 20), both in this call on the same snapshot.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
INFER8_CUDA_CUDNN_BUDGET=10 timeout 260 tools/gpu-check fp8_tests >/dev/null 2>&1
echo "fp8_tests: exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|max rel logit" "$OUT/fp8_tests.log" | tail -20
INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 FP8_BENCH_TIMEOUT=160 \
  tools/gpu-check fp8_bench >/dev/null 2>&1
echo "fp8_bench IRv2 b32: exit $? t=$((SECONDS - t0)) s"
mkdir -p "$OUT/irv2-b32" && mv "$OUT/fp8_bench.md" "$OUT/fp8_bench.log" "$OUT"/fp8-layers-*.tsv "$OUT/irv2-b32/" 2>/dev/null
grep -E "^\| (incep|fp8-layers)|roofline bound" "$OUT/irv2-b32/fp8_bench.md"
if [ "$(left)" -gt 100 ]; then
  tools/gpu-check cuda_tests 2>&1 | tail -4
  echo "cuda_tests: t=$((SECONDS - t0)) s"
fi
if [ "$(left)" -gt 150 ]; then
  BENCH_ARCHES=inception_v3 BENCH_BATCHES=32 timeout 80 tools/gpu-check bench_fp16 2>&1 | tail -1
  grep -h "tuned in" "$OUT/bench_fp16.log"
  BENCH_ARCHES=inception_v3 BENCH_BATCHES=32 PEER_MODES=compile timeout $(($(left) - 3)) tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -1
  python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print('infer8', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -1
  echo "v3 b32 row: t=$((SECONDS - t0)) s"
else
  echo "v3 b32 row skipped: $(left) s left"
fi
cd $OUT && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
