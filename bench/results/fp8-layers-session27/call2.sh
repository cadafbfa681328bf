#!/usr/bin/env bash
# Session 27 call 2: issue 5's rows on the final GPU code: IRv2 `default` at batch 32 and 1, then
# inception_v4 and inception_v3 at batch 1 (fp8_bench: FP8 against infer8's own fp16 in the same
# process, 7 interleaved rounds), each under $OUT/NAME.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
for spec in inception_resnet_v2:32:irv2-b32 inception_resnet_v2:1:irv2-b1 inception_v4:1:v4-b1 inception_v3:1:v3-b1; do
  IFS=: read -r arch batch name <<<"$spec"
  if [ "$(left)" -lt 70 ]; then echo "$name skipped: $(left) s left"; continue; fi
  echo "== $name (t=$((SECONDS - t0)) s)"
  FP8_BENCH_INTO=$name INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=$batch \
    FP8_BENCH_TIMEOUT=$(($(left) - 5)) tools/gpu-check fp8_bench 2>&1 | grep -E '^\| inception|graph|exit' | tail -4
done
echo "end t=$((SECONDS - t0)) s"
cd $OUT && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
