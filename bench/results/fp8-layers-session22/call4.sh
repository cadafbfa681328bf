#!/usr/bin/env bash
# Session 22, call 4, the final GPU code (call 3's verify code without the cap experiment, which
# is only removed code, and test_fp8_tma_pdl without an fp16 conv): test_fp8_tma_pdl three times,
# the TMA tile-loop and im2col tests, then the IRv2 batch-1 fp8_bench that verify had no time for.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never WORK=/tmp/gpu-check-work INFER8=$PWD/build-device/bin/infer8
STEPS=()
for f in tools/gpu-check.d/*.sh; do . "$f"; done
gpu_env >/dev/null
for r in 1 2 3; do
  INFER8_TEST_FILTER='test_fp8_tma_pdl' timeout 120 build-device/tests/test_cuda_fp8 >"$OUT/pdl_test_$r.log" 2>&1
  echo "pdl test run $r: exit $?"
  grep -E "INFER8_CUDA_PDL=|without the waits|OK \]|FAILED \]|ERROR" "$OUT/pdl_test_$r.log"
done
INFER8_TEST_FILTER='test_fp8_tma_tile_loop' timeout 120 build-device/tests/test_cuda_fp8 >"$OUT/tile_loop.log" 2>&1
echo "tile loop: exit $?"; grep -E "OK \]|FAILED \]" "$OUT/tile_loop.log"
INFER8_TEST_FILTER='test_fp8_im2col*' timeout 200 build-device/tests/test_cuda_fp8 >"$OUT/im2col.log" 2>&1
echo "im2col: exit $?"; grep -E "OK \]|FAILED \]" "$OUT/im2col.log"
INFER8_FP8_BENCH=1 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=1 INFER8_FP8_BENCH_TSV="$OUT" \
  INFER8_CUDA_CUDNN_BUDGET=60 timeout 200 build-device/tests/test_cuda_fp8 >"$OUT/fp8_bench_b1.md" 2>"$OUT/fp8_bench_b1.log"
echo "fp8_bench b1: exit $?"; grep -E "^\| incep|per layer|roofline" "$OUT/fp8_bench_b1.md"
cd $OUT && tar czf /tmp/c4.tgz . && rm -rf ./* && mv /tmp/c4.tgz .
