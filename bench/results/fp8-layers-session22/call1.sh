#!/usr/bin/env bash
# Session 22, call 1: programmatic dependent launch of the TMA kernels (INFER8_CUDA_PDL).
# 1. test_fp8_tma_pdl (the same outputs with PDL; the race without the waits, reported);
# 2. IRv2 fp8_bench at batch 1 with INFER8_CUDA_PDL=0, =1, and =1 with cuDNN's e4m3 graphs left
#    out (INFER8_CUDA_FP8_DNN=0: every FP8 conv on an own kernel, so the chain is theirs);
# 3. batch 32 with PDL, as time allows.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
STEPS=()
for f in tools/gpu-check.d/*.sh; do . "$f"; done
gpu_env >/dev/null
T0=$(date +%s)
INFER8_TEST_FILTER='test_fp8_tma_pdl' timeout 120 build-device/tests/test_cuda_fp8 >"$OUT/pdl_test.log" 2>&1
echo "pdl test: exit $? ($(( $(date +%s) - T0 )) s)"
grep -E "INFER8_CUDA_PDL=|without the waits|PASSED|FAILED|OK \]|FAIL" "$OUT/pdl_test.log"
bench() { # name, batches, then env assignments
  local name=$1 batches=$2; shift 2
  local t=$(date +%s)
  mkdir -p "$OUT/$name"
  env "$@" INFER8_FP8_BENCH=1 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=$batches \
    INFER8_FP8_BENCH_TSV="$OUT/$name" INFER8_CUDA_CUDNN_BUDGET=60 timeout 200 \
    build-device/tests/test_cuda_fp8 >"$OUT/$name/fp8_bench.md" 2>"$OUT/$name/fp8_bench.log"
  echo "== $name ($*): exit $? ($(( $(date +%s) - t )) s)"
  grep -E "^\| incep|per layer|roofline bound" "$OUT/$name/fp8_bench.md"
  grep -E "tuned in|graph as tuned" "$OUT/$name/fp8_bench.log" | head -4
}
bench b1-pdl0 1 INFER8_CUDA_PDL=0
bench b1-pdl1 1 INFER8_CUDA_PDL=1
bench b1-pdl1-nodnn 1 INFER8_CUDA_PDL=1 INFER8_CUDA_FP8_DNN=0
left=$(( 560 - ($(date +%s) - T0) ))
echo "left: $left s"
[ $left -gt 170 ] && bench b32-pdl1 32 INFER8_CUDA_PDL=1
cd $OUT && tar czf /tmp/c1.tgz . && rm -rf ./* && mv /tmp/c1.tgz .
