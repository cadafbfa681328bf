#!/usr/bin/env bash
# Session 29 call 2, the final code (30af05e: session 28's 88395b8 with the stream-K and halo-1x1
# trial taken out again): the FP8 GPU tests (the owed check of 9c1d596 / 02ac089 / 88395b8), then
# inception_v4 `default` at batch 32 twice: as tuned, and with the halo kernels left out of the
# tuning (INFER8_CUDA_FP8_VARIANT = every other variant), for whether its halo choices (the 3x3
# 64 -> 96 convs, chosen timed alone) cost the whole graph time (session 28: 2.976 -> 3.032 ms).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
cap() { local l=$(left); echo $(( $1 < l ? $1 : (l > 1 ? l : 1) )); }
echo "== fp8_tests (t=$((SECONDS - t0)) s)"
INFER8_CUDA_CUDNN_BUDGET=10 timeout $(cap 260) tools/gpu-check fp8_tests | grep -E "PASSED|FAILED|exit|max rel logit|top-1|checks failed" | tail -14
no_halo=$(seq -s, 0 57)
for spec in "v4-b32:" "v4-b32-nohalo:$no_halo"; do
  name=${spec%%:*} only=${spec#*:}
  if [ "$(left)" -lt 80 ]; then echo "$name skipped: $(left) s left"; continue; fi
  echo "== $name (t=$((SECONDS - t0)) s)"
  INFER8_CUDA_FP8_VARIANT=$only FP8_BENCH_INTO=$name INFER8_FP8_BENCH_ARCHES=inception_v4 INFER8_FP8_BENCH_BATCHES=32 \
    FP8_BENCH_TIMEOUT=$(cap 130) tools/gpu-check fp8_bench 2>&1 | tail -8
  awk -F'\t' '$15 == "own fp8" && $16 >= 58 {n++; printf "  halo %s %s %s us (fp16 %s us)\n", $2, $16, $13 * 1000, $12 * 1000} END {print "  convs on halo kernels: " n + 0}' "$OUT/$name"/fp8-layers-*.tsv 2>/dev/null | tail -12
done
echo "end t=$((SECONDS - t0)) s"
cd "$OUT" && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
