#!/usr/bin/env bash
# Session 21, call 2: the study's residual-FP8 variants on the current kernels (last timed in
# session 3's study, before the wgmma / TMA / cuDNN e4m3 tactics): IRv2 `residual-fp8` (all 40
# blocks) at batch 1 and 32, `residual-fp8:10-39` at batch 32; then the `default` table of
# inception_v4 and inception_v3 on the final code in the time left (issue 5: "same table").
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
run() { # NAME RECIPE ARCHES BATCHES TIMEOUT
  echo "== fp8_bench $3 recipe $2 batches ${4:-1,32} (t=${SECONDS}s)"
  env ${4:+INFER8_FP8_BENCH_BATCHES=$4} INFER8_FP8_BENCH_RECIPE=$2 INFER8_FP8_BENCH_ARCHES="$3" FP8_BENCH_TIMEOUT=$5 \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  mkdir -p $OUT/$1 && mv $OUT/fp8_bench.md $OUT/fp8_bench.log $OUT/fp8-layers-*.tsv $OUT/$1/ 2>/dev/null
  grep -E "^\| incep|per layer|fp8_roofline|^\| fp8-layers" $OUT/$1/fp8_bench.md; grep -E "tuned in" $OUT/$1/fp8_bench.log | head -4
}
run residual-fp8 residual-fp8 inception_resnet_v2 "" 200
run residual-fp8-10-39 residual-fp8:10-39 inception_resnet_v2 32 120
left=$((585 - SECONDS)); [ $left -gt 60 ] && run v4-default default inception_v4 32 $((left > 130 ? 130 : left))
left=$((585 - SECONDS)); [ $left -gt 50 ] && run v3-default default inception_v3 "" $left
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
