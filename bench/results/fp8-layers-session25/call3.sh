#!/usr/bin/env bash
# Session 25, call 3: issue 4's six rows on the final code (e91c9b9's GPU code; call 1 ran its GPU
# tests): infer8 fp16 for the three families at batch 1 and 32 in one interleaved run at the
# default tuning effort (the README's build), then torch.compile (peers_torch.py --modes compile,
# freezing, CUDA-graph replay) on the same snapshots, family by family in the time left
# (torch.compile's setup alone is 31-84 s per family and batch).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((588 - (SECONDS - t0))); }
timeout 240 tools/gpu-check bench_fp16 2>&1 | tail -1
echo "bench_fp16: t=$((SECONDS - t0)) s"
grep -h "tuned in" "$OUT/bench_fp16.log"
python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print('infer8', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -6
for arch in inception_v3 inception_v4 inception_resnet_v2; do
  [ "$(left)" -gt 60 ] || { echo "no time for torch.compile $arch"; continue; }
  BENCH_ARCHES=$arch PEER_MODES=compile timeout $(($(left) - 3)) tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -2
  echo "bench_peers $arch: t=$((SECONDS - t0)) s"
  python3 -c "
import json
for r in json.load(open('$OUT/peers-$arch.json')): print('torch.compile', r['model'], r['batch'], '%.3f [%.3f, %.3f] setup %.0f s' % (r['median_ms'], r['min_ms'], r['max_ms'], r['setup_s']))" 2>&1 | tail -2
done
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
