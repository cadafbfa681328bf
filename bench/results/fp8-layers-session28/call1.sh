#!/usr/bin/env bash
# Session 28 call 1: the halo kernels (variants 58-62) on the GPU: their tests alone (fp8_halo),
# then IRv2 `default` at batch 32 and 1, inception_v3 and inception_v4 at batch 32 (fp8_bench:
# FP8 against infer8's own fp16 in the same process, 7 interleaved rounds; every conv's tactic
# and time in each run's TSV), each under $OUT/NAME.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
cap() { local l=$(left); echo $(( $1 < l ? $1 : (l > 1 ? l : 1) )); }
echo "== fp8_halo (t=$((SECONDS - t0)) s)"
FP8_HALO_TIMEOUT=$(cap 150) tools/gpu-check fp8_halo | grep -E "halo|chain on|PASSED|FAILED|WRONG|exit" | tail -60
for spec in inception_resnet_v2:32:irv2-b32:150 inception_v3:32:v3-b32:90 inception_v4:32:v4-b32:90 inception_resnet_v2:1:irv2-b1:70; do
  IFS=: read -r arch batch name need <<<"$spec"
  if [ "$(left)" -lt "$need" ]; then echo "$name skipped: $(left) s left"; continue; fi
  echo "== $name (t=$((SECONDS - t0)) s)"
  FP8_BENCH_INTO=$name INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=$batch \
    FP8_BENCH_TIMEOUT=$(cap $((need + 40))) tools/gpu-check fp8_bench 2>&1 | tail -8
  awk -F'\t' '$15 == "own fp8" && $16 >= 58 {n++; printf "  halo %s %s %s us\n", $2, $16, $13 * 1000} END {print "  convs on halo kernels: " n + 0}' "$OUT/$name"/fp8-layers-*.tsv 2>/dev/null | tail -40
done
echo "end t=$((SECONDS - t0)) s"
