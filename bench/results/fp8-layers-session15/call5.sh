#!/usr/bin/env bash
# session 15 call 5 (final product code): per-op FP8 tests (im2col kernels), IRv2 fp8_bench at
# batch 32 and 1 (whole-graph choice), the model FP8 tests in the time left
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
echo "== per-op fp8 tests (t=${SECONDS}s)"
INFER8_TEST_FILTER='test_fp8_*' timeout 100 tools/gpu-check fp8_tests 2>&1 | tail -4
cp $OUT/fp8_tests.log $OUT/fp8_tests_ops.log
grep -E "max rel|chain|WRONG|ERROR|LINE|FAIL" $OUT/fp8_tests_ops.log | cut -c1-200 | head -50
echo "== fp8_bench IRv2 b32 (t=${SECONDS}s)"
INFER8_FP8_BENCH_BATCHES=32 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 FP8_BENCH_TIMEOUT=180 INFER8_CUDA_CUDNN_BUDGET=40 \
  tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|per layer|most lost|^\| fp8-layers|exit"
mv $OUT/fp8_bench.md $OUT/fp8_bench_b32.md; mv $OUT/fp8_bench.log $OUT/fp8_bench_b32.log
echo "== model fp8 tests (t=${SECONDS}s)"
left=$((530 - SECONDS - 110)); [ $left -gt 170 ] && left=170
INFER8_TEST_FILTER='test_inception_*' timeout $left tools/gpu-check fp8_tests 2>&1 | tail -12
cp $OUT/fp8_tests.log $OUT/fp8_tests_models.log
echo "== fp8_bench IRv2 b1 (t=${SECONDS}s)"
left=$((530 - SECONDS)); [ $left -gt 60 ] && INFER8_FP8_BENCH_BATCHES=1 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 FP8_BENCH_TIMEOUT=$left INFER8_CUDA_CUDNN_BUDGET=40 \
  tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|per layer|^\| fp8-layers|exit"
echo "== rejections"
grep -h "cuda fp8 check:\|differs from" $OUT/*.log | cut -c1-300 | head -10
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call5.tgz . && rm -rf ./* && mv /tmp/call5.tgz .
