#!/usr/bin/env bash
# Session 24, call 4 (warm machine, right after call 3, same build), as typed into the device
# tool: fp8_bench at batch 1 for inception_v3 and inception_v4 (the README's batch-1 rows of
# those two). Recorded as a script; the results file (key session24, call 4) has the same command.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
for arch in inception_v3 inception_v4; do
  INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=1 FP8_BENCH_TIMEOUT=$((200 - (SECONDS - t0))) \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  echo "fp8_bench $arch b1: exit $? t=$((SECONDS - t0))"
  mkdir -p $OUT/$arch-b1 && mv $OUT/fp8_bench.md $OUT/fp8_bench.log $OUT/fp8-layers-*.tsv $OUT/$arch-b1/ 2>/dev/null
  grep -E "^\| (incep|fp8-layers)|roofline bound" $OUT/$arch-b1/fp8_bench.md
  grep -E "TMA kernels on|graph as tuned" $OUT/$arch-b1/fp8_bench.log
done
cd $OUT && tar czf /tmp/c4.tgz . && rm -rf ./* && mv /tmp/c4.tgz .
