#!/usr/bin/env bash
# Session 24, call 2 (warm machine, right after call 1), as typed into the device tool: the three
# patches' binaries (built here from 2cd8d29's tree into .devcarry/bins-p) over build-device, then
# test_cuda_fp8 (every FP8 GPU test) and IRv2 fp8_bench at batch 32 and 1. Recorded as a script;
# the results file (key session24, call 2) has the same command.
cd "$(dirname "$0")/../../.."
cp .devcarry/bins-p/test_cuda_fp8 build-device/tests/ && cp .devcarry/bins-p/infer8 .devcarry/bins-p/fp8_lab build-device/bin/
export GPU_CHECK_PACK=never
t0=$SECONDS
INFER8_CUDA_CUDNN_BUDGET=10 timeout 250 tools/gpu-check fp8_tests >/dev/null 2>&1
echo "fp8_tests (p): exit $? t=$((SECONDS - t0))"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|max rel logit" $OUT/fp8_tests.log
for b in 32 1; do
  INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 INFER8_FP8_BENCH_BATCHES=$b FP8_BENCH_TIMEOUT=$((570 - (SECONDS - t0))) \
    tools/gpu-check fp8_bench >/dev/null 2>&1
  echo "bench b$b (p): exit $? t=$((SECONDS - t0))"
  grep -E "^\| (incep|fp8-layers)|roofline" $OUT/fp8_bench.md
  mv $OUT/fp8_bench.md $OUT/p_fp8_bench_b$b.md; mv $OUT/fp8_bench.log $OUT/p_fp8_bench_b$b.log
done
cd $OUT && tar czf /tmp/c2.tgz . && rm -rf ./* && mv /tmp/c2.tgz .
