#!/usr/bin/env bash
# Session 25, call 2 (session 24's next-call2.sh, run as prepared). weights-resident.patch adds the TMA im2col variant
# tma128x64s4c32w (58; the lab's own variants move to 59-65): the 32-channel kernel (57) with the
# weights resident. A conv with c_out <= 64 has one N tile, so every tile loaded the same weight
# sub-slices again: four 2-D TMA boxes per stage beside the four im2col boxes of A. Now the
# producer loads all of B once per block (at most TMA_WR_KB = 5 K slices, 40 KB: a 3x3 with
# c_in <= 64) and the stages hold A alone, so the producer's TMA issues per stage halve. Target:
# IRv2's Block35 3x3s at batch 32 (32 -> 32, 32 -> 48, 48 -> 64), on the critical path, where
# cuDNN e4m3 (10.2 / 13.4 / 19.6 us) beat 57 (15.6 / 14.2 / 23.0) in session 24's tuning.
# Prepared here: it compiles, ptxas -v reports no spills (120 registers), the PTX of every other
# TMA kernel is unchanged (same instructions), and test_cuda_fp8_variants passes (numbering,
# fits: c_out <= 64 and at most 5 K slices). The GPU tests: test_fp8_im2col runs each im2col
# variant on the cases it fits (58: 3 of them), test_fp8_im2col_chain a third chain ("small":
# every spatial conv with c_in and c_out <= 64) on all five im2col variants.
# narrow128.patch, on top of it, adds variant 59, tma128x128s3c32: the 32-channel kernel 128 wide
# (c_out up to 128 in one N tile), for inception_v3's 3x3 64 -> 96 at 35x35, where the 128-channel
# im2col kernel (half of each K slice zeros at c_in 64, two N tiles of 64) ran 27-28 us against
# fp16's 23-25 in session 24 (v3 b32 x 0.989). Prepared the same way: no spills (165 registers),
# the other kernels' PTX unchanged, test_cuda_fp8_variants passes; the lab's variants move to 60-66.
# Here first: git apply bench/results/fp8-layers-session24/weights-resident.patch &&
#   git apply bench/results/fp8-layers-session24/narrow128.patch && tools/prepare-device;
# then call with carry ["build-device/bin","build-device/tests",".devcarry"].
# It also runs next-call1.sh's measurement (lab and Nsight Compute on Block35's 3x3 at batch 32),
# with 58 beside 57 and 54.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
FP8_IM2COL_TIMEOUT=200 tools/gpu-check fp8_im2col 2>&1 | grep -E "tma128x64s4c32w|tma128x128s3c32|chain on|OK \]|FAILED \]|WRONG|exit" | head -40
rc=${PIPESTATUS[0]}
echo "im2col tests: exit $rc t=$((SECONDS - t0)) s"
if [ $rc -eq 0 ]; then
  for shape in "Block35 3x3 32->48" "Mixed_5b 3x3 64->96"; do
    FP8_TMA_SHAPE="$shape" FP8_TMA_VARIANTS=16,32,54,55,57,58,59 FP8_TMA_TIMEOUT=100 tools/gpu-check fp8_tma 2>&1 | tail -8
    mv "$OUT/fp8_tma.txt" "$OUT/lab-${shape%% *}.txt"; mv "$OUT/fp8_tma_table.md" "$OUT/lab-${shape%% *}.md"
  done
  echo "lab done t=$((SECONDS - t0)) s"
  FP8_NCU_SHAPE="Block35 3x3 32->48 @35 b32" FP8_NCU_MODE=0 FP8_NCU_VARIANTS="58 57 54" tools/gpu-check fp8_ncu 2>&1 |
    grep -E "fp8_ncu|Duration|Issued Warp|No Eligible|Stall" | head -30
  echo "ncu done t=$((SECONDS - t0)) s"
  for arch in inception_v3 inception_resnet_v2; do # v3 first: the shorter run
    INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=32 FP8_BENCH_TIMEOUT=$((575 - (SECONDS - t0))) \
      tools/gpu-check fp8_bench >/dev/null 2>&1
    echo "fp8_bench $arch b32: exit $? t=$((SECONDS - t0)) s"
    mkdir -p "$OUT/$arch" && mv "$OUT/fp8_bench.md" "$OUT/fp8_bench.log" "$OUT"/fp8-layers-*.tsv "$OUT/$arch/" 2>/dev/null
    grep -E "^\| (incep|fp8-layers)|roofline" "$OUT/$arch/fp8_bench.md"
    grep -E "fp8-dnn: repeat\.0\.branch(1\.1|2\.[12]) b32|Mixed_5.\.branch3x3dbl_2 b32" "$OUT/$arch/fp8_bench.log"
    awk -F'\t' '$16 == 58 || $16 == 59' "$OUT/$arch"/fp8-layers-*.tsv | cut -f2,7,8,13-16
  done
fi
cd $OUT && tar czf /tmp/n2.tgz . && rm -rf ./* && mv /tmp/n2.tgz .
