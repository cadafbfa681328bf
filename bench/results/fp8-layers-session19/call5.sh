#!/usr/bin/env bash
# session 19 call 5: the last of issue 4's six rows on the final GPU code: inception_v3 at batch
# 32, infer8 fp16 then torch.compile in the same call (with the device time that was left)
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
echo "== bench_fp16 inception_v3 b32 (t=${SECONDS}s)"
BENCH_ARCHES=inception_v3 BENCH_BATCHES=32 timeout 80 tools/gpu-check bench_fp16 2>&1 | tail -1
python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print('infer8', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -1
echo "== bench_peers inception_v3 b32 compile (t=${SECONDS}s)"
BENCH_ARCHES=inception_v3 BENCH_BATCHES=32 PEER_MODES=compile timeout $((175 - SECONDS)) tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -1
echo "== done (t=${SECONDS}s)"
