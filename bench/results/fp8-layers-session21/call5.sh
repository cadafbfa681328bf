#!/usr/bin/env bash
# Session 21, call 5: fp8_bench's new per-recipe roofline line (eval/roofline.c on the FP8
# graph), on IRv2 residual-fp8 at batch 1 (CPU: infer8 inspect --roofline gives 1.86 at b1).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
INFER8_FP8_BENCH_BATCHES=1 INFER8_FP8_BENCH_RECIPE=residual-fp8 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 FP8_BENCH_TIMEOUT=150 \
  tools/gpu-check fp8_bench >/dev/null 2>&1
grep -E "^\| incep|roofline bound|per layer|^\| fp8-layers" $OUT/fp8_bench.md; grep -E "tuned in" $OUT/fp8_bench.log | head -4
cd $OUT && tar czf /tmp/c5.tgz . && rm -rf ./* && mv /tmp/c5.tgz .
