#!/usr/bin/env bash
# Session 21, call 1: (1) inception_v4's parity as tools/gpu-check runs it by default
# (--adaptive-rounding stem) on session 20's final host code (owed); (2) IRv2 FP8 with
# INFER8_CUDA_FP8_LT=3 (the 40 residual 1x1s write fp16 only, through cuBLASLt's e4m3 GEMM with the
# residual as C; their readers quantize fp16 while loading, now in the TMA kernels' fp16-input
# mode, which did not exist when session 11 last ran this); (3) IRv2 and v3 at batch 1 against
# torch.compile on the final code, in the time left.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
W=/tmp/gpu-check-work
echo "== parity inception_v4, default parity build (--adaptive-rounding stem) (t=${SECONDS}s)"
PARITY_ARCHES=inception_v4 timeout 220 tools/gpu-check parity 2>&1 | grep -E "batch|timm fp16|reference vs|parity" | tail -8
echo "== fp8_bench IRv2 b32 with INFER8_CUDA_FP8_LT=3 (t=${SECONDS}s)"
INFER8_CUDA_FP8_LT=3 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 FP8_BENCH_TIMEOUT=200 \
  tools/gpu-check fp8_bench >/dev/null 2>&1
mkdir -p $OUT/lt3 && mv $OUT/fp8_bench.md $OUT/fp8_bench.log $OUT/fp8-layers-*.tsv $OUT/lt3/ 2>/dev/null
grep -E "^\| incep|per layer|most lost" $OUT/lt3/fp8_bench.md; grep -E "tuned in|fp8-lt|rejected" $OUT/lt3/fp8_bench.log | head -12
left=$((580 - SECONDS))
if [ $left -gt 200 ]; then
  echo "== bench_fp16 IRv2 v3 b1 (t=${SECONDS}s)"
  BENCH_ARCHES="inception_resnet_v2 inception_v3" BENCH_BATCHES=1 timeout 110 tools/gpu-check bench_fp16 2>&1 | tail -1
  grep -h "tuned in" $OUT/bench_fp16.log
  echo "== bench_peers IRv2 v3 b1 compile (t=${SECONDS}s)"
  BENCH_ARCHES="inception_resnet_v2 inception_v3" BENCH_BATCHES=1 PEER_MODES=compile timeout $((580 - SECONDS)) \
    tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -2
  python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print('infer8', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -2
else
  echo "== batch-1 rows skipped: ${left}s left"
fi
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
