#!/usr/bin/env bash
# Session 21, call 3: the 128-wide TMA residual tile (tma128x128s3r: fp16 residual in two boxes,
# or the e4m3 copy the residual-FP8 recipes read, in one). (1) The GPU tests it touches: the new
# test_fp8_tma_residual_tile (forced on a residual conv, against the emulation), every residual
# test and IRv2 with both recipes, the tile-loop test (the 64-wide residual tiles' reads moved to
# the same addressing); (2) IRv2 residual-fp8 at batch 32 (call 2: x 0.889, its 40 residual
# convs x 0.82); (3) IRv2 default at batch 32 (call 1: x 0.895).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
(STEPS=(); source tools/gpu-check.d/cuda.sh; gpu_env >/dev/null
 echo "== test_cuda_fp8 *residual* (t=${SECONDS}s)"
 INFER8_TEST_FILTER='*residual*' timeout 300 build-device/tests/test_cuda_fp8 >$OUT/fp8_tests_residual.log 2>&1; echo "exit $?"
 grep -E "^\[|max rel|tma128x128s3r|top-1|WRONG|FAIL|rror" $OUT/fp8_tests_residual.log | tail -30
 echo "== test_cuda_fp8 tile loop (t=${SECONDS}s)"
 INFER8_TEST_FILTER='test_fp8_tma_tile_loop' timeout 60 build-device/tests/test_cuda_fp8 >$OUT/fp8_tests_tile.log 2>&1; echo "exit $?"
 grep -E "^\[|tma128|WRONG|FAIL|rror" $OUT/fp8_tests_tile.log | tail -8)
run() { # NAME RECIPE ARCHES BATCHES TIMEOUT
  echo "== fp8_bench $3 recipe $2 batches ${4:-1,32} (t=${SECONDS}s)"
  env ${4:+INFER8_FP8_BENCH_BATCHES=$4} INFER8_FP8_BENCH_RECIPE=$2 INFER8_FP8_BENCH_ARCHES="$3" FP8_BENCH_TIMEOUT=$5 \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  mkdir -p $OUT/$1 && mv $OUT/fp8_bench.md $OUT/fp8_bench.log $OUT/fp8-layers-*.tsv $OUT/$1/ 2>/dev/null
  grep -E "^\| incep|per layer|most lost|^\| fp8-layers" $OUT/$1/fp8_bench.md; grep -E "tuned in|differs" $OUT/$1/fp8_bench.log | head -6
}
left=$((575 - SECONDS)); [ $left -gt 60 ] && run residual-fp8 residual-fp8 inception_resnet_v2 32 $((left > 130 ? 130 : left))
left=$((575 - SECONDS)); [ $left -gt 60 ] && run default default inception_resnet_v2 32 $left
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
