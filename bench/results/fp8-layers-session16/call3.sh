#!/usr/bin/env bash
# session 16 call 3 (final code): graph-timed tuning. IRv2 FP8 batch 1 first (what it targets),
# then the GPU tests (cuda, FP8 per-op and models), IRv2 batch 32, inception_v3 in the time left
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
bench() { # arch batches timeout tag
  local b=$2; [ "$b" = both ] && b=
  env ${b:+INFER8_FP8_BENCH_BATCHES=$b} INFER8_FP8_BENCH_ARCHES=$1 FP8_BENCH_TIMEOUT=$3 INFER8_CUDA_CUDNN_BUDGET=40 \
    tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|per layer|^\| fp8-layers|exit"
  mv $OUT/fp8_bench.md $OUT/fp8_bench_$4.md; mv $OUT/fp8_bench.log $OUT/fp8_bench_$4.log
}
echo "== fp8_bench IRv2 b1 (t=${SECONDS}s)"; bench inception_resnet_v2 1 120 irv2_b1
echo "== cuda_tests (t=${SECONDS}s)"
INFER8_CUDA_CUDNN_BUDGET=4 timeout 150 tools/gpu-check cuda_tests 2>&1 | tail -2
echo "== fp8_tests (t=${SECONDS}s)"
timeout 250 tools/gpu-check fp8_tests 2>&1 | grep -E "max rel|PASSED|FAILED|exit" | cut -c1-260
echo "== fp8_bench IRv2 b32 (t=${SECONDS}s)"; bench inception_resnet_v2 32 140 irv2_b32
left=$((555 - SECONDS))
[ $left -gt 90 ] && { echo "== fp8_bench v3 (t=${SECONDS}s, ${left}s)"; bench inception_v3 both $left v3; }
echo "== rejections"
grep -h "cuda fp8 check:\|differs from" $OUT/*.log | cut -c1-300 | head -10
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
