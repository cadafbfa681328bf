#!/usr/bin/env bash
# Prepared in session 28, not run: the owed check of session 28's final code (88395b8 and before: the tuner
# checks halo winners against qmma, as every wgmma variant; the spatial-case helper of
# test_cuda_fp8; INFER8_CUDA_FP8_VARIANT as a 128-variant set), then IRv2 `default` at batch 32 (are the halo kernels still chosen after the
# check? "N checks failed" in fp8_bench.log) and batch 1 (not measured with the wgmma halo
# kernels), then Nsight Compute on halo128x32 (variant 60) against tma128x64s4c32 (57) on
# Block35's 3x3 32 -> 48 at batch 32, for where the halo kernel's 14 us go.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
cap() { local l=$(left); echo $(( $1 < l ? $1 : (l > 1 ? l : 1) )); }
echo "== fp8_tests (t=$((SECONDS - t0)) s)"
INFER8_CUDA_CUDNN_BUDGET=10 timeout $(cap 250) tools/gpu-check fp8_tests | grep -E "PASSED|FAILED|exit|max rel logit|checks failed" | tail -12
for spec in inception_resnet_v2:32:irv2-b32:150 inception_resnet_v2:1:irv2-b1:70; do
  IFS=: read -r arch batch name need <<<"$spec"
  if [ "$(left)" -lt "$need" ]; then echo "$name skipped: $(left) s left"; continue; fi
  echo "== $name (t=$((SECONDS - t0)) s)"
  FP8_BENCH_INTO=$name INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=$batch \
    FP8_BENCH_TIMEOUT=$(cap $((need + 40))) tools/gpu-check fp8_bench 2>&1 | tail -8
  grep -c 'differs from' "$OUT/$name/fp8_bench.log"
done
echo "== fp8_ncu (t=$((SECONDS - t0)) s)"
FP8_NCU_VARIANTS="60 57" FP8_NCU_SHAPE="Block35 3x3 32->48 @35 b32" FP8_NCU_MODE=0 timeout $(cap 120) tools/gpu-check fp8_ncu
echo "end t=$((SECONDS - t0)) s"
cd "$OUT" && tar czf /tmp/next-call1.tgz . && rm -rf ./* && mv /tmp/next-call1.tgz .
