#!/usr/bin/env bash
# Prepared in session 19 for the next session's first device call (not run: no device time was
# left). On a FRESH machine, benchmark first: inception_v3 at batch 32 against torch.compile
# (the row that lost on a fresh machine, 0.61x), which checks 85f25d5's budget fix where it failed
# (bench_fp16.log's "cuda: batch 32: ... tuned in" line says how far the budget reached); then
# every GPU test step (verify) in the time left, its FP8 benchmark skipped if none is.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
echo "== bench_fp16 inception_v3 b32 (t=${SECONDS}s)"
BENCH_ARCHES=inception_v3 BENCH_BATCHES=32 timeout 90 tools/gpu-check bench_fp16 2>&1 | tail -1
grep -h "tuned in" $OUT/bench_fp16.log
echo "== bench_peers inception_v3 b32 compile (t=${SECONDS}s)"
BENCH_ARCHES=inception_v3 BENCH_BATCHES=32 PEER_MODES=compile timeout $((190 - SECONDS)) tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -1
python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print('infer8', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -1
echo "== verify (t=${SECONDS}s)"
VERIFY_SECONDS=$((570 - SECONDS)) tools/gpu-check verify 2>&1 | tail -30
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/next1.tgz . && rm -rf ./* && mv /tmp/next1.tgz .
