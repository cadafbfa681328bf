#!/usr/bin/env bash
# Session 29 call 1: the stream-K TMA kernels (variants 63-66): their test alone (fp8_stream_k:
# forced on a Block17-like pair of 1x1s, every SM and capped grids), the halo tests (the halo
# kernels now take 1x1s too: test_fp8_halo_pointwise) and the im2col tests (the stream-K kernels'
# spatial twins among the im2col variants), the kernel lab on the few-tile shapes (each variant's
# time and output check), then IRv2 `default` at batch 32 and 1 (fp8_bench, 7 interleaved rounds
# against infer8's fp16 in the same process), each under $OUT/NAME. Also the owed check of session
# 28's last code (the halo winners checked against qmma: "checks failed" in fp8_bench.log).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never INFER8_CUDA_CUDNN_BUDGET=10
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
cap() { local l=$(left); echo $(( $1 < l ? $1 : (l > 1 ? l : 1) )); }
echo "== fp8_stream_k (t=$((SECONDS - t0)) s)"
FP8_STREAM_K_TIMEOUT=$(cap 120) tools/gpu-check fp8_stream_k | grep -E "tma128|PASSED|FAILED|WRONG|exit|rror" | tail -30
echo "== fp8_halo (t=$((SECONDS - t0)) s)"
FP8_HALO_TIMEOUT=$(cap 120) tools/gpu-check fp8_halo | grep -E "1x1|chain on|PASSED|FAILED|WRONG|exit|rror" | tail -20
echo "== fp8_im2col (t=$((SECONDS - t0)) s)"
FP8_IM2COL_TIMEOUT=$(cap 150) tools/gpu-check fp8_im2col | grep -E "k |chain on|PASSED|FAILED|WRONG|exit|rror" | tail -40
unset INFER8_CUDA_CUDNN_BUDGET
echo "== lab (t=$((SECONDS - t0)) s)"
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
for shape in "1088->128 @17 b32" "2080->192 @8 b32" "1088->192 @17 b1" "2080->192 @8 b1" "1x7 128->160 @17 b32" "320->32 @35 b32"; do
  FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=0 FP8_LAB_VARIANT=17,48,49,54,55,57,58,60,61,63,64,65,66 \
    timeout $(cap 30) build-device/bin/fp8_lab 2>&1 | tee -a "$OUT/lab.txt" | grep -vE '^device' | head -16
done
for spec in inception_resnet_v2:32:irv2-b32:150 inception_resnet_v2:1:irv2-b1:70; do
  IFS=: read -r arch batch name need <<<"$spec"
  if [ "$(left)" -lt "$need" ]; then echo "$name skipped: $(left) s left"; continue; fi
  echo "== $name (t=$((SECONDS - t0)) s)"
  FP8_BENCH_INTO=$name INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=$batch \
    FP8_BENCH_TIMEOUT=$(cap $((need + 40))) tools/gpu-check fp8_bench 2>&1 | tail -8
  grep -E "checks failed" "$OUT/$name/fp8_bench.log" | head -4
  awk -F'\t' '$15 == "own fp8" && $16 >= 58 {n++; printf "  %s %s %s %s us (fp16 %s us)\n", $16 >= 63 ? "stream-K" : "halo", $2, $16, $13 * 1000, $12 * 1000} END {print "  convs on halo / stream-K kernels: " n + 0}' "$OUT/$name"/fp8-layers-*.tsv 2>/dev/null | tail -40
done
echo "end t=$((SECONDS - t0)) s"
# the device brings back 8 files at most: one archive
cd "$OUT" && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
