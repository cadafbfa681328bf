#!/usr/bin/env bash
# session 17 call 4 (the 235 s left): this session's GPU changes on the GPU. The new FP8 test
# (TMA grids and INFER8_CUDA_GRAPH_WAVES), the per-op CUDA graphs with the cuBLASLt reduction
# assertion, then IRv2 at batch 32 with the waves graph choice, fp16 peer in the same run
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
end=175
echo "== test_fp8_tma_waves (t=${SECONDS}s)"
INFER8_TEST_FILTER='test_fp8_tma_waves' timeout 60 tools/gpu-check fp8_tests 2>&1 | grep -E "^\[|waves|persistent|per SM|graph choice|max rel" | cut -c1-220
echo "== test_cuda_backend per-op graphs (t=${SECONDS}s)"
INFER8_TEST_FILTER='test_per_op_graphs' INFER8_CUDA_CUDNN_BUDGET=4 timeout 60 tools/gpu-check cuda_tests 2>&1 | grep -E "^\[|reduction|FAIL" | tail -6
left=$((end - SECONDS))
echo "== fp8_bench IRv2 b32, INFER8_CUDA_GRAPH_WAVES=16, within ${left}s (t=${SECONDS}s)"
INFER8_CUDA_GRAPH_WAVES=16 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 \
  INFER8_CUDA_CUDNN_BUDGET=10 FP8_BENCH_TIMEOUT=$left timeout $left tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|per layer|exit"
grep -h "blocks per SM\|graph as tuned" $OUT/*.log | head -4
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call4.tgz . && rm -rf ./* && mv /tmp/call4.tgz .
