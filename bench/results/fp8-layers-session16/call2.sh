#!/usr/bin/env bash
# session 16 call 2 (b4b2677): the uint8 input path on the GPU (cuda_tests, host-call timing),
# IRv2 FP8 at batch 1 (skipped by call 1's verify), inception_v3 FP8 at batch 1 and 32
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
echo "== cuda_tests (t=${SECONDS}s)"
INFER8_CUDA_CUDNN_BUDGET=4 timeout 200 tools/gpu-check cuda_tests 2>&1 | tail -4
grep -E "uint8|differ|FAIL|ERROR" $OUT/cuda_tests.log | head -10
echo "== cuda_bench IRv2: replay and host calls (t=${SECONDS}s)"
INFER8_CUDA_BENCH_ARCHES=inception_resnet_v2 INFER8_CUDA_CUDNN_BUDGET=30 tools/gpu-check cuda_bench 2>&1 | grep -E "^\||exit"
echo "== fp8_bench IRv2 b1 (t=${SECONDS}s)"
INFER8_FP8_BENCH_BATCHES=1 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 FP8_BENCH_TIMEOUT=150 INFER8_CUDA_CUDNN_BUDGET=40 \
  tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|per layer|^\| fp8-layers|exit"
mv $OUT/fp8_bench.md $OUT/fp8_bench_irv2_b1.md; mv $OUT/fp8_bench.log $OUT/fp8_bench_irv2_b1.log
echo "== fp8_bench v3 b1, b32 (t=${SECONDS}s)"
left=$((560 - SECONDS))
INFER8_FP8_BENCH_ARCHES=inception_v3 FP8_BENCH_TIMEOUT=$left INFER8_CUDA_CUDNN_BUDGET=40 \
  tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|per layer|^\| fp8-layers|exit"
mv $OUT/fp8_bench.md $OUT/fp8_bench_v3.md; mv $OUT/fp8_bench.log $OUT/fp8_bench_v3.log
echo "== rejections"
grep -h "cuda fp8 check:\|differs from" $OUT/*.log | cut -c1-300 | head -10
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
