#!/usr/bin/env bash
# session 16 call 4 (7b5e946, diagnosis): IRv2 FP8 batch 1 without the cuDNN e4m3 configs
# (INFER8_CUDA_FP8_DNN=0): the own kernels' graph under graph-timed tuning, against call 3's all-cuDNN graph
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
INFER8_CUDA_FP8_DNN=0 INFER8_FP8_BENCH_BATCHES=1 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 FP8_BENCH_TIMEOUT=110 INFER8_CUDA_CUDNN_BUDGET=40 \
  tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|per layer|^\| fp8-layers|exit"
cd $OUT && tar czf /tmp/call4.tgz . && rm -rf ./* && mv /tmp/call4.tgz .
