#!/usr/bin/env bash
# Session 29 call 3: the own-kernel whole-graph choice (choose_own: the convs that cuDNN e4m3 won
# alone on their own kernel, then also the halo winners off halo; call 2 measured inception_v4's
# FP8 graph at 2.950 ms with own kernels only against 3.029 as tuned). The whole-model FP8 tests
# (test_inception_v3_fp8_own: v3 with the own candidate forced; the other whole-model tests passed in call 2),
# then inception_v4 and IRv2 `default` at batch 32 (as far as the device time left allows; CALL_SECONDS) (fp8_bench, 7 interleaved rounds against
# infer8's fp16 in the same process), each under $OUT/NAME.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
left() { echo $((${CALL_SECONDS:-360} - (SECONDS - t0))); }
cap() { local l=$(left); echo $(( $1 < l ? $1 : (l > 1 ? l : 1) )); }
echo "== whole-model FP8 tests (t=$((SECONDS - t0)) s)"
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
INFER8_TEST_FILTER='test_inception_v3_fp8_own' INFER8_FP8_TEST_IMAGES=16 INFER8_CUDA_CUDNN_BUDGET=10 INFER8_CUDA_DEBUG=1 timeout $(cap 90) \
  build-device/tests/test_cuda_fp8 >"$OUT/fp8_models.log" 2>&1; echo "exit $?"
grep -E "^\[|max rel logit|own-kernel choice|convs on own kernels" "$OUT/fp8_models.log" | tail -24
for spec in inception_v4:v4-b32:110 inception_resnet_v2:irv2-b32:140; do
  IFS=: read -r arch name need <<<"$spec"
  if [ "$(left)" -lt "$need" ]; then echo "$name skipped: $(left) s left"; continue; fi
  echo "== $name (t=$((SECONDS - t0)) s)"
  FP8_BENCH_INTO=$name INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=32 \
    FP8_BENCH_TIMEOUT=$(cap $((need + 30))) tools/gpu-check fp8_bench 2>&1 | tail -8
  grep -E "convs on own kernels" "$OUT/$name/fp8_bench.log" | head -4
done
echo "end t=$((SECONDS - t0)) s"
cd "$OUT" && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
