#!/usr/bin/env bash
# Session 20 call 2, on a fresh machine:
# 1. 85f25d5's budget fallback where it matters: inception_v3 at batch 32 with the cuDNN budget
#    forced down to 3 s on a cold machine (bench_fp16.log's "tuned in" line counts the fp16
#    problems after the budget; before the fix they kept the own kernels: 3.30 ms in session 19);
# 2. inception_v4 parity with --adaptive-rounding stem (16 calibration images, gen-images seed 1;
#    the parity images are seed 20000);
# 3. its cost: the checkpoint against its adaptive-rounding fp16 bundle, batch 1 and 32;
# 4. torch.compile on the same weights, batch 32 then batch 1.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
W=/tmp/gpu-check-work
echo "== bench_fp16 inception_v3 b32, cuDNN budget 3 s (t=${SECONDS}s)"
INFER8_CUDA_CUDNN_BUDGET=3 BENCH_ARCHES=inception_v3 BENCH_BATCHES=32 timeout 100 tools/gpu-check bench_fp16 2>&1 | tail -1
grep -h "tuned in" $OUT/bench_fp16.log
mv $OUT/bench_fp16.log $OUT/bench_fp16_budget3.log && mv $OUT/infer8-cuda-fp16.json $OUT/infer8-cuda-fp16-budget3.json
python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16-budget3.json'))
for r in d['rows']: print('infer8 budget 3 s', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))"
export LD_LIBRARY_PATH=$(sed -n 's/^LD_LIBRARY_PATH=//p' $OUT/cuda_env.txt)
build-device/bin/infer8 gen-images --count 16 --seed 1 -o $W/rounding-images >/dev/null || echo "gen-images failed"
AR="--adaptive-rounding stem --rounding-images $W/rounding-images"
echo "== parity inception_v4 $AR (t=${SECONDS}s)"
PARITY_ARCHES=inception_v4 PARITY_CUDA_ARGS="$AR" timeout 240 tools/gpu-check parity 2>&1 | grep -E "batch|timm fp16|reference vs|parity" | tail -8
echo "== bench_split inception_v4 $AR (t=${SECONDS}s)"
BENCH_ARCHES=inception_v4 VARIANT_BUILD_ARGS="$AR" timeout $((480 - SECONDS)) tools/gpu-check bench_split 2>&1 | tail -2
python3 -c "
import json; d=json.load(open('$OUT/infer8-split.json'))
for r in d['rows']: print(r.get('model'), r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']), r.get('x_vs_first'))" 2>&1 | tail -4
for b in 32 1; do
  left=$((585 - SECONDS))
  [ $left -gt 45 ] || { echo "== peers b$b skipped: ${left}s left"; continue; }
  echo "== bench_peers inception_v4 b$b compile (t=${SECONDS}s)"
  BENCH_ARCHES=inception_v4 BENCH_BATCHES=$b PEER_MODES=compile timeout $left tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -1
  [ -f $OUT/peers-inception_v4.json ] && mv $OUT/peers-inception_v4.json $OUT/peers-inception_v4-b$b.json
done
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
