#!/usr/bin/env bash
# Session 23, call 3: the rest of issue 5's table on the phased TMA epilogue (66d5f82):
# inception_v4 and inception_v3 `default` at batch 32 and 1, then IRv2 `residual-fp8` at batch 32
# (its 40 residual convs read the e4m3 copy and run only on the own kernels) in the time left.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
run() { # NAME RECIPE ARCHES BATCHES TIMEOUT
  echo "== fp8_bench $3 recipe $2 batches ${4:-1,32} (t=${SECONDS}s)"
  env ${4:+INFER8_FP8_BENCH_BATCHES=$4} INFER8_FP8_BENCH_RECIPE=$2 INFER8_FP8_BENCH_ARCHES="$3" FP8_BENCH_TIMEOUT=$5 \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  mkdir -p $OUT/$1 && mv $OUT/fp8_bench.md $OUT/fp8_bench.log $OUT/fp8-layers-*.tsv $OUT/$1/ 2>/dev/null
  grep -E "^\| incep|per layer|roofline bound|^\| fp8-layers" $OUT/$1/fp8_bench.md; grep -E "tuned in" $OUT/$1/fp8_bench.log | head -4
}
run v4-default default inception_v4 "" 190
run v3-default default inception_v3 "" 130
left=$((440 - SECONDS)); [ $left -gt 90 ] && run residual-fp8-b32 residual-fp8 inception_resnet_v2 32 $left
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
