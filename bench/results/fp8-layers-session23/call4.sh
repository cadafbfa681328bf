#!/usr/bin/env bash
# Session 23, call 4 (the run tool's command line, kept here as the record): IRv2 `default` at
# batch 1 on 66d5f82, in the device time left after call 3 (verify in call 2 had none left for it).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never; INFER8_FP8_BENCH_BATCHES=1 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 FP8_BENCH_TIMEOUT=175 tools/gpu-check fp8_bench >/dev/null 2>&1; grep -E "^\| incep|roofline bound|per layer|^\| fp8-layers" $OUT/fp8_bench.md; grep -E "tuned in" $OUT/fp8_bench.log | head -4
