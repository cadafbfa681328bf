# FP8 steps of tools/gpu-check (sourced by it; gpu_env comes from cuda.sh): fp8_tests, fp8_bench,
# fp8_lab. Run from the repository root on the GPU machine; results under $OUT.
STEPS+=(fp8_tests fp8_bench fp8_lab)

# FP8 CUDA path against the CPU FP8 emulation (tests/unit/test_cuda_fp8.c): per-op graphs (1x1,
# 3x3, fused residual with and without residual_fp8, dual-output producer, concat read as FP8,
# scale conflict) and quantized inception_v3 / inception_resnet_v2 at batch 1 and 4.
# INFER8_FP8_TEST_IMAGES overrides the number of whole-model inputs (default 64 v3, 16 IRv2).
fp8_tests() {
  gpu_env >/dev/null
  timeout 540 build-device/tests/test_cuda_fp8 >"$OUT/fp8_tests.log" 2>&1
  local rc=$?
  grep -E '^\[|max rel|ms/forward|top-1|SKIP|FAIL|Error|error|prepare|run:' "$OUT/fp8_tests.log" | tail -60
  echo "fp8_tests: exit $rc"
  return $rc
}

# fp16 vs FP8 of the same model (IRv2 and v3, recipe default; INFER8_FP8_BENCH_RECIPE and
# INFER8_FP8_BENCH_ARCHES override): 7 interleaved rounds of CUDA-graph replays at batch 1 and
# 32, median (min-max) and x = fp16 / fp8, arena and weight memory, per-layer-type profile.
fp8_bench() {
  gpu_env >/dev/null
  INFER8_FP8_BENCH=1 INFER8_CUDA_CUDNN_BUDGET=${INFER8_CUDA_CUDNN_BUDGET:-15} timeout 540 \
    build-device/tests/test_cuda_fp8 >"$OUT/fp8_bench.md" 2>"$OUT/fp8_bench.log"
  local rc=$?
  tail -20 "$OUT/fp8_bench.log"
  cat "$OUT/fp8_bench.md"
  echo "fp8_bench: exit $rc"
  return $rc
}

# Kernel lab (dev/kernels/fp8_lab.cu, built into build-device/bin by hand): validates and times
# the FP8 conv kernel's tile variants and I/O modes on IRv2's 1x1 GEMMs, fp16 own kernel beside.
fp8_lab() {
  gpu_env >/dev/null
  if [ -x build-device/bin/fp8_lab ]; then
    timeout 120 build-device/bin/fp8_lab >"$OUT/fp8_lab.txt" 2>&1
    local rc=$?
    cat "$OUT/fp8_lab.txt"
    echo "fp8_lab: exit $rc"
    return $rc
  fi
  echo "fp8_lab: build-device/bin/fp8_lab not built (see dev/kernels/fp8_lab.cu)"
}
