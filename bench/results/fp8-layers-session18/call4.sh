#!/usr/bin/env bash
# session 18 call 4: inception_v3 at batch 32 after the bias change (cuBLASLt out of the fp16
# tactics), infer8 fp16 and torch.compile in the same call
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
echo "== bench_fp16 inception_v3 b32 (t=${SECONDS}s)"
BENCH_ARCHES=inception_v3 BENCH_BATCHES=32 timeout 80 tools/gpu-check bench_fp16 2>&1 | tail -1
echo "== bench_peers inception_v3 b32 compile (t=${SECONDS}s)"
BENCH_ARCHES=inception_v3 BENCH_BATCHES=32 PEER_MODES=compile timeout $((190 - SECONDS)) tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -2
python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print('infer8', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -2
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call4.tgz . && rm -rf ./* && mv /tmp/call4.tgz .
