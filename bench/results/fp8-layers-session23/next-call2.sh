#!/usr/bin/env bash
# Prepared for the next session (not run). im2col-narrow.patch adds one TMA im2col variant,
# tma128x64s4c32 (58 variants): K slices of 32 channels (32-byte swizzle boxes, wgmma descriptors
# of layout type 3), four per stage, so that a 3x3 conv with c_in 32 puts four taps in a stage
# instead of one tap padded with 96 zero channels. It fits spatial convs with e4m3 input and
# c_in <= 64: IRv2's Block35 3x3s (32 -> 32, 32 -> 48, 48 -> 64 at 35x35, x 0.82-0.90 on cuDNN
# e4m3 in session 23), mixed_5b's 5x5 and 3x3, v4's and v3's small spatial convs.
# Not applied with session 22's im2col-producer.patch (both change the producer's im2col branch);
# chan-prefetch.patch applies beside it.
# The patch also adds a c_in 32 case to test_fp8_im2col (the 32-channel variant runs the cases with
# c_in <= 64), a chain of spatial convs with c_in <= 64 to test_fp8_im2col_chain (all four im2col
# variants on it, against the wgmma kernel on the same chain), i8_cuda_conv_fp8_im2col_span, and
# the lab's variant numbers moved to 58-64 (tools/gpu-check.d/fp8.sh).
# Here first: git apply bench/results/fp8-layers-session23/im2col-narrow.patch && tools/prepare-device
# (prepared in session 23: test_cuda_fp8_variants, the CPU-side numbering, span and fits test,
# passes with it; so do the labs' compile test and ptxas -v without spills). Then call with carry
# ["build-device/bin","build-device/tests",".devcarry"].
# Order: the im2col test first, alone (test_fp8_im2col forces each im2col variant on 7 spatial
# cases against the CPU emulation; a layout or descriptor mistake shows there as WRONG, a
# transaction-count mistake as a trapped launch), and nothing else if it fails.
# Through tools/gpu-check's steps (fp8_tests with INFER8_TEST_FILTER, fp8_bench), which set up
# the libraries; each filtered test run's log is kept under its own name.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
INFER8_TEST_FILTER='test_fp8_im2col' timeout 240 tools/gpu-check fp8_tests >/dev/null 2>&1
rc=$?
mv "$OUT/fp8_tests.log" "$OUT/im2col.log"
echo "im2col: exit $rc t=$((SECONDS - t0)) s"; grep -E "tma128x64s4c32|OK \]|FAILED \]|ERROR" "$OUT/im2col.log" | head -20
if [ $rc -eq 0 ]; then
  INFER8_TEST_FILTER='test_fp8_im2col_chain' timeout 150 tools/gpu-check fp8_tests >/dev/null 2>&1
  echo "im2col chain: exit $?"
  mv "$OUT/fp8_tests.log" "$OUT/im2col_chain.log"; grep -E "chain on|OK \]|FAILED \]" "$OUT/im2col_chain.log"
  INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=32 FP8_BENCH_TIMEOUT=$((575 - (SECONDS - t0))) \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  echo "fp8_bench b32: exit $? t=$((SECONDS - t0)) s"
  grep -E "^\| (incep|fp8-layers)|per layer|roofline" "$OUT/fp8_bench.md"
  # the Block35 3x3s: session 23's call 1 ran them on cuDNN e4m3 (x 0.82-0.90)
  grep -E "fp8-dnn: repeat\.0\.branch(1\.1|2\.[12]) b32" "$OUT/fp8_bench.log"
fi
cd $OUT && tar czf /tmp/n2.tgz . && rm -rf ./* && mv /tmp/n2.tgz .
