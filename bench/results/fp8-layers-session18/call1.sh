#!/usr/bin/env bash
# session 18 call 1: the owed GPU check of session 17's final code (beae810): verify runs
# test_fp8_tma_waves, the cuBLASLt reduction assertion, fp8_bench IRv2 b32 then b1 with
# INFER8_CUDA_GRAPH_WAVES=16 (the kept graph timed with persistent and wide TMA grids)
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
VERIFY_BENCH_ENV=INFER8_CUDA_GRAPH_WAVES=16 VERIFY_SECONDS=560 tools/gpu-check verify 2>&1 | tail -45
echo "== rejections / waves / reductions"
grep -h "cuda fp8 check:\|differs from\|blocks per SM\|reduction" $OUT/*.log | cut -c1-300 | head -12
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
