#!/usr/bin/env bash
# Session 21, call 4 (run inline on the machine call 3 left warm; recorded here): IRv2
# residual-fp8 at batch 32 with tma128x128s3r in the tuning (call 3's run of it timed out).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
INFER8_FP8_BENCH_BATCHES=32 INFER8_FP8_BENCH_RECIPE=residual-fp8 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 FP8_BENCH_TIMEOUT=230 \
  tools/gpu-check fp8_bench >/dev/null 2>&1
grep -E "^\| incep|per layer|most lost|^\| fp8-layers" $OUT/fp8_bench.md; grep -E "tuned in|differs" $OUT/fp8_bench.log | head -4
cd $OUT && tar czf /tmp/c4.tgz . && rm -rf ./* && mv /tmp/c4.tgz .
