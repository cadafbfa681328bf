#!/usr/bin/env bash
# Session 30 call 2: the residual TMA kernels' producer loads a tile's residual after its K slices
# (call 1's Nsight Compute: the ping-pong producer waited on the residual buffer before loading the
# next tile's A and B), and lab variants with a fifth stage (tma128x64s5pr / s5r).
# 1. The lab on the three up-projections at batch 32 in the default recipe's mode (e4m3 in, fp16 +
#    e4m3 out, fp16 residual: mode 4), every kernel checked against the reference and timed.
# 2. GPU tests: the TMA tile loops (test_fp8_tma_residual_loop is new), the fused residuals, the
#    tactics restored (call 1 failed it: choose_own moved forced cuDNN tactics; fixed), the whole
#    IRv2 models (default, residual-fp8), v3 with the own-kernel choice.
# 3. IRv2 `default` at batch 32 (fp8_bench, 7 interleaved rounds against infer8's fp16).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-530}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
for shape in "Block17 up 1x1 384->1088 @17 b32" "Block8 up 1x1 448->2080 @8 b32" "Block35 up 1x1 128->320 @35 b32"; do
  stamp "lab: $shape, mode 4"
  FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=4 timeout $(cap 60) build-device/bin/fp8_lab >>"$OUT/lab-up.txt" 2>&1
  echo "exit $?"
done
grep -E "^(Block|v3|Mixed)|tma|wgmma64x64s2 |best|FAIL|WRONG" "$OUT/lab-up.txt" | grep -v "s4w\|s4rw" | head -60
for filter in 'test_fp8_tma*' 'test_fp8_residual*' test_fp8_tactics_restored 'test_inception_resnet_v2*' test_inception_v3_fp8_own; do
  stamp "test_cuda_fp8 $filter"
  INFER8_TEST_FILTER="$filter" INFER8_CUDA_DEBUG=1 timeout $(cap 150) build-device/tests/test_cuda_fp8 >>"$OUT/fp8_tests.log" 2>&1
  echo "exit $?"
done
grep -E "^\[|max rel|with residual on|on every SM|on 2 blocks|tactics restored|restored vs|own-kernel" "$OUT/fp8_tests.log" | grep -v "^\[ RUN" | tail -40
bench_step irv2-b32 inception_resnet_v2 32 140
pack_call call2
