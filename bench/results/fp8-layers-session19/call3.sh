#!/usr/bin/env bash
# session 19 call 3: issue 4's batch-1 rows on the final code (1c28c13), infer8 fp16 and
# torch.compile in the same call for the three families, then inception_resnet_v2's FP8
# benchmark at batch 1 (call 1's verify had no time left for it)
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
echo "== bench_fp16 b1 (t=${SECONDS}s)"
BENCH_BATCHES=1 timeout 150 tools/gpu-check bench_fp16 2>&1 | tail -1
python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print('infer8', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -3
echo "== bench_peers b1 compile (t=${SECONDS}s)"
BENCH_BATCHES=1 PEER_MODES=compile timeout $((330 - SECONDS)) tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -4
left=$((440 - SECONDS))
echo "== fp8_bench IRv2 b1 within ${left}s (t=${SECONDS}s)"
if [ $left -gt 60 ]; then
  INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=1 INFER8_CUDA_CUDNN_BUDGET=40 FP8_BENCH_TIMEOUT=$left \
    timeout $left tools/gpu-check fp8_bench 2>&1 | grep -E "^\| (incep|fp8-layers)|exit"
fi
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
