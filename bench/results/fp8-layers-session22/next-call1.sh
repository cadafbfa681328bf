#!/usr/bin/env bash
# Prepared for the next session (not run): does the TMA producer's per-slice integer work hold
# back the im2col kernels? Session 22's PDL build added runtime divisions to the producer's
# im2col path and those kernels slowed 10-24% (tuner replay times), the pointwise path (the same
# kernel, no divisions) did not. im2col-producer.patch removes the divisions the path still has
# (tap, channel offset and window position counted up slice by slice).
# Here first: git apply bench/results/fp8-layers-session22/im2col-producer.patch && tools/prepare-device
# Then call with carry ["build-device/bin","build-device/tests",".devcarry"].
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never WORK=/tmp/gpu-check-work INFER8=$PWD/build-device/bin/infer8
STEPS=()
for f in tools/gpu-check.d/*.sh; do . "$f"; done
gpu_env >/dev/null
INFER8_TEST_FILTER='test_fp8_im2col*' timeout 200 build-device/tests/test_cuda_fp8 >"$OUT/im2col.log" 2>&1
echo "im2col tests: exit $?"; grep -E "OK \]|FAILED \]|chain on" "$OUT/im2col.log"
INFER8_TEST_FILTER='test_fp8_tma_tile_loop' timeout 120 build-device/tests/test_cuda_fp8 >"$OUT/tile_loop.log" 2>&1
echo "tile loop: exit $?"
INFER8_FP8_BENCH=1 INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 INFER8_FP8_BENCH_TSV="$OUT" \
  INFER8_CUDA_CUDNN_BUDGET=60 timeout 250 build-device/tests/test_cuda_fp8 >"$OUT/fp8_bench_b32.md" 2>"$OUT/fp8_bench_b32.log"
echo "fp8_bench b32: exit $?"; grep -E "^\| incep|per layer" "$OUT/fp8_bench_b32.md"
# the spatial convs' own-kernel replay times, against session 20 (b319374: 1x7 10.2 us, 7x1 16.1,
# mixed_6a 3x3 64.0, mixed_7a 3x3 27.6) and session 22's PDL build (11.9, 20.0, 72.2, 30.0)
grep -E "fp8-dnn: (repeat_1.0.branch1.[12]|mixed_6a.branch1.1|mixed_7a.branch2.1) b32" "$OUT/fp8_bench_b32.log"
cd $OUT && tar czf /tmp/n1.tgz . && rm -rf ./* && mv /tmp/n1.tgz .
