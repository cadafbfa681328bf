#!/usr/bin/env bash
# Session 27 call 1: the owed one-call check of session 26's final GPU code (5775137 moved the
# critical path into src/graph, e326c57 changed test_fp8_tma_tile_loop's kernel lookup), plus
# this session's change: the stream-priority choice stored with the tactics (i8_cuda_tactic
# flags, tactics.cuda's u32 at byte 84 of each record) and restored untimed.
# 1. test_cuda_backend (with the new test_priority_restored);
# 2. test_cuda_fp8 (every FP8 GPU test);
# 3. bundle_tactics (bundles built with --device cuda restore the choice: "stream priorities restored").
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
cap() { local left=$((580 - (SECONDS - t0))); echo $(( $1 < left ? $1 : (left > 1 ? left : 1) )); }
echo "== cuda_tests (t=$((SECONDS - t0)) s)"
timeout $(cap 260) tools/gpu-check cuda_tests | tail -14
echo "== fp8_tests (t=$((SECONDS - t0)) s)"
INFER8_CUDA_CUDNN_BUDGET=10 timeout $(cap 260) tools/gpu-check fp8_tests | tail -10
echo "== bundle_tactics (t=$((SECONDS - t0)) s)"
timeout $(cap 150) tools/gpu-check bundle_tactics | grep -E "restored|stored tactics|cuda vs ref|FP8 bundle|exit|rror" | tail -12
echo "end t=$((SECONDS - t0)) s"
cd $OUT && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
