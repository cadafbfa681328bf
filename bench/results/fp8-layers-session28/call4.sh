#!/usr/bin/env bash
# Session 28 call 4: the final GPU code (the wgmma halo kernels of call 3) through every FP8 GPU
# test (test_cuda_fp8: per-op graphs on each kernel family, the halo kernels forced on their cases
# and chain, whole models against the CPU emulation's floor) and the CUDA backend's tests
# (test_cuda_backend), in one call.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
cap() { local left=$((470 - (SECONDS - t0))); echo $(( $1 < left ? $1 : (left > 1 ? left : 1) )); }
echo "== fp8_tests (t=$((SECONDS - t0)) s)"
INFER8_CUDA_CUDNN_BUDGET=10 timeout $(cap 250) tools/gpu-check fp8_tests | grep -E "PASSED|FAILED|exit|max rel logit|halo [0-9]" | tail -12
echo "== cuda_tests (t=$((SECONDS - t0)) s)"
timeout $(cap 215) tools/gpu-check cuda_tests | grep -E "PASSED|FAILED|exit|pass [0-9]" | tail -8
echo "end t=$((SECONDS - t0)) s"
cd "$OUT" && tar czf /tmp/call4.tgz . && rm -rf ./* && mv /tmp/call4.tgz .
