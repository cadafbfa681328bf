#!/usr/bin/env bash
# Prepared for the next session (not run): on the final code of session 26 (cefe5ec or later),
# 1. test_cuda_backend, the fp16 GPU tests (cefe5ec moved the critical path into src/graph
#    after call 3; its behaviour is the same and test_graph checks it in CI);
# 2. fp8_bench inception_v4 and inception_v3 at batch 1, the README FP8 table's two rows session
#    26 did not measure (each graph's priority choice printed).
# Then session 25's call3.sh (issue 4's rows against torch.compile) refreshes the README fp16
# table, since the priority choice changed IRv2 at batch 32.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((585 - (SECONDS - t0))); }
timeout 200 tools/gpu-check cuda_tests | tail -8
echo "t=$((SECONDS - t0)) s"
for arch in inception_v4 inception_v3; do
  [ "$(left)" -gt 100 ] || { echo "$arch b1 skipped: $(left) s left"; continue; }
  FP8_BENCH_INTO=$arch-b1 INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=1 \
    FP8_BENCH_TIMEOUT=$(( $(left) < 170 ? $(left) - 5 : 170 )) tools/gpu-check fp8_bench
done
cd $OUT && tar czf /tmp/next-call1.tgz . && rm -rf ./* && mv /tmp/next-call1.tgz .
