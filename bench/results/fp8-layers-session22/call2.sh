#!/usr/bin/env bash
# Session 22, call 2: what programmatic dependent launch does to a chain of own kernels at batch 1:
# IRv2 fp8_bench with cuDNN's e4m3 graphs left out (INFER8_CUDA_FP8_DNN=0, 217 of 239 FP8 convs
# on TMA kernels), INFER8_CUDA_PDL=0 and =1 alternating, two runs each.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never WORK=/tmp/gpu-check-work INFER8=$PWD/build-device/bin/infer8
STEPS=()
for f in tools/gpu-check.d/*.sh; do . "$f"; done
gpu_env >/dev/null
bench() { # name, batches, then env assignments
  local name=$1 batches=$2; shift 2
  local t=$(date +%s)
  mkdir -p "$OUT/$name"
  env "$@" INFER8_FP8_BENCH=1 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=$batches \
    INFER8_FP8_BENCH_TSV="$OUT/$name" INFER8_CUDA_CUDNN_BUDGET=60 timeout 200 \
    build-device/tests/test_cuda_fp8 >"$OUT/$name/fp8_bench.md" 2>"$OUT/$name/fp8_bench.log"
  echo "== $name ($*): exit $? ($(( $(date +%s) - t )) s)"
  grep -E "^\| incep" "$OUT/$name/fp8_bench.md"
  grep -E "graph as tuned" "$OUT/$name/fp8_bench.log" | head -2
}
for r in 1 2; do
  bench b1-nodnn-pdl0-r$r 1 INFER8_CUDA_PDL=0 INFER8_CUDA_FP8_DNN=0
  bench b1-nodnn-pdl1-r$r 1 INFER8_CUDA_PDL=1 INFER8_CUDA_FP8_DNN=0
done
cd $OUT && tar czf /tmp/c2.tgz . && rm -rf ./* && mv /tmp/c2.tgz .
