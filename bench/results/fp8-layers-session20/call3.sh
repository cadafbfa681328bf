#!/usr/bin/env bash
# Session 20 call 3: issue 4's batch-32 rows on the final code, the three families against
# torch.compile in one call: inception_v4 as its parity build (the fp16 bundle with
# --adaptive-rounding stem over 16 calibration images, gen-images seed 1) next to its plain
# checkpoint (bench_split), inception_resnet_v2 and inception_v3 from their checkpoints
# (bench_fp16), then torch.compile on the same three snapshots (bench_peers).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
W=/tmp/gpu-check-work
mkdir -p $W
(STEPS=(); source tools/gpu-check.d/cuda.sh; gpu_env >/dev/null &&
  build-device/bin/infer8 gen-images --count 16 --seed 1 -o $W/rounding-images >/dev/null) || echo "gen-images failed"
AR="--adaptive-rounding stem --rounding-images $W/rounding-images"
echo "== bench_split inception_v4 b32 $AR (t=${SECONDS}s)"
BENCH_ARCHES=inception_v4 BENCH_BATCHES=32 VARIANT_BUILD_ARGS="$AR" timeout 180 tools/gpu-check bench_split 2>&1 | tail -1
grep -h "tuned in" $OUT/bench_split.log
echo "== bench_fp16 inception_resnet_v2 inception_v3 b32 (t=${SECONDS}s)"
BENCH_ARCHES="inception_resnet_v2 inception_v3" BENCH_BATCHES=32 timeout 180 tools/gpu-check bench_fp16 2>&1 | tail -1
grep -h "tuned in" $OUT/bench_fp16.log
python3 -c "
import json
for f in ('$OUT/infer8-split.json', '$OUT/infer8-cuda-fp16.json'):
    for r in json.load(open(f))['rows']: print('infer8', r['model'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))"
echo "== bench_peers b32 compile (t=${SECONDS}s)"
BENCH_ARCHES="inception_resnet_v2 inception_v4 inception_v3" BENCH_BATCHES=32 PEER_MODES=compile timeout $((570 - SECONDS)) \
  tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -3
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
