#!/usr/bin/env bash
# Session 22, call 5: IRv2 at batch 32 on the final GPU code, as the README's command runs it
# (recipe default, cuDNN budget 60 s, PDL off): verify's run in call 3 had a 40 s budget.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
INFER8_FP8_BENCH_BATCHES=32 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 FP8_BENCH_TIMEOUT=250 \
  tools/gpu-check fp8_bench >/dev/null 2>&1
grep -E "^\| incep|roofline bound|per layer|^\| fp8-layers" $OUT/fp8_bench.md; grep -E "tuned in|graph as tuned" $OUT/fp8_bench.log | head -4
cd $OUT && tar czf /tmp/c5.tgz . && rm -rf ./* && mv /tmp/c5.tgz .
