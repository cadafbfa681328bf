#!/usr/bin/env bash
# Session 28 call 3: the halo kernels on wgmma with A from registers (calls 1-2 ran mma.sync e4m3,
# which Hopper emulates through fp16): a block walks items, the next halo loading while one computes):
# their tests alone (fp8_halo), the kernel lab on three small-channel spatial shapes (each variant's
# time and output check; FP8_LAB_SLICE=1: outputs into a wider row, nothing outside written), then
# IRv2 `default`, inception_v3 and inception_v4 at batch 32 (fp8_bench, 7 interleaved rounds against
# infer8's fp16 in the same process), each under $OUT/NAME.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
cap() { local l=$(left); echo $(( $1 < l ? $1 : (l > 1 ? l : 1) )); }
echo "== fp8_halo (t=$((SECONDS - t0)) s)"
FP8_HALO_TIMEOUT=$(cap 120) tools/gpu-check fp8_halo | grep -E "halo|chain on|PASSED|FAILED|WRONG|exit" | tail -60
echo "== lab (t=$((SECONDS - t0)) s)"
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
for shape in "Block35 3x3 32->48 @35 b32" "Mixed_5b 3x3 64->96 @35 b8" "Block35 3x3 32->48 @35 b8" "Block17 1x7 128->160 @17 b8"; do
  FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=0 FP8_LAB_SLICE=1 FP8_LAB_VARIANT=1,16,17,54,55,57,58,59,60,61,62 \
    timeout $(cap 40) build-device/bin/fp8_lab 2>&1 | tee -a "$OUT/lab.txt" | grep -vE '^device' | head -20
done
for spec in inception_resnet_v2:32:irv2-b32:150 inception_v3:32:v3-b32:90 inception_v4:32:v4-b32:90; do
  IFS=: read -r arch batch name need <<<"$spec"
  if [ "$(left)" -lt "$need" ]; then echo "$name skipped: $(left) s left"; continue; fi
  echo "== $name (t=$((SECONDS - t0)) s)"
  FP8_BENCH_INTO=$name INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=$batch \
    FP8_BENCH_TIMEOUT=$(cap $((need + 40))) tools/gpu-check fp8_bench 2>&1 | tail -8
  awk -F'\t' '$15 == "own fp8" && $16 >= 58 {n++; printf "  halo %s %s %s us (fp16 %s us)\n", $2, $16, $13 * 1000, $12 * 1000} END {print "  convs on halo kernels: " n + 0}' "$OUT/$name"/fp8-layers-*.tsv 2>/dev/null | tail -40
done
echo "end t=$((SECONDS - t0)) s"
# the device brings back 8 files at most: one archive
cd "$OUT" && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
