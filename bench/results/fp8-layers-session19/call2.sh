#!/usr/bin/env bash
# session 19 call 2: issue 4's two rows not yet timed against torch.compile on the final code
# (1c28c13): inception_resnet_v2 and inception_v4 at batch 32, infer8 fp16 then the peer
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
echo "== bench_fp16 IRv2 + v4 b32 (t=${SECONDS}s)"
BENCH_ARCHES="inception_resnet_v2 inception_v4" BENCH_BATCHES=32 timeout 200 tools/gpu-check bench_fp16 2>&1 | tail -2
python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print('infer8', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -2
echo "== bench_peers IRv2 + v4 b32 compile (t=${SECONDS}s)"
BENCH_ARCHES="inception_resnet_v2 inception_v4" BENCH_BATCHES=32 PEER_MODES=compile timeout $((560 - SECONDS)) \
  tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -4
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
