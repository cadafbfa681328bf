#!/usr/bin/env bash
# session 19 call 4: inception_v4 parity with --split-weights stem (the stem's 11 convs run as
# fp16 hi + lo halves, i8_pass_split_weights), then its cost: the plain checkpoint and the split
# fp16 bundle in one interleaved infer8 bench at batch 1 and 32 (tools/gpu-check bench_split)
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
echo "== parity inception_v4 --split-weights stem (t=${SECONDS}s)"
PARITY_ARCHES=inception_v4 PARITY_CUDA_ARGS="--split-weights stem" timeout 200 tools/gpu-check parity 2>&1 | grep -E "batch|timm fp16|reference vs" | tail -6
echo "== bench_split inception_v4 (t=${SECONDS}s)"
BENCH_ARCHES=inception_v4 timeout $((420 - SECONDS)) tools/gpu-check bench_split 2>&1 | tail -2
python3 -c "
import json; d=json.load(open('$OUT/infer8-split.json'))
for r in d['rows']: print(r.get('model'), r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']), r.get('x_vs_first'))" 2>&1 | tail -4
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call4.tgz . && rm -rf ./* && mv /tmp/call4.tgz .
