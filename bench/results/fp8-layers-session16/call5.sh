#!/usr/bin/env bash
# session 16 call 5: the final commit's GPU check (what the budget allows)
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
INFER8_CUDA_CUDNN_BUDGET=4 timeout 100 tools/gpu-check cuda_tests 2>&1 | tail -2
cd $OUT && tar czf /tmp/call5.tgz . && rm -rf ./* && mv /tmp/call5.tgz .
