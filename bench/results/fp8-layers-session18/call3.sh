#!/usr/bin/env bash
# session 18 call 3: 9a9655d on the GPU. cuBLASLt's fp16 convs now read the fp32 bias; the new
# test_fp16_single_rounding checks every tactic kind rounds each output once (and, with
# INFER8_CUDA_LOSSY_ENGINES=1, prints what the old fp16 bias gives); the review's CUDA host
# changes (shared capture and replay timing, the uint8 input as a launch parameter, TMA driver
# lookups once per context, node_take_plan) under cuda_tests, fp8_tests, bundle_tactics,
# calib_tests; inception_v3 parity and fp16 speed after the bias change
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
cap() { local left=$((565 - SECONDS)); echo $(( $1 < left ? $1 : (left > 1 ? left : 1) )); }
step() { # SECONDS STEP [VAR=VALUE ...]: at most SECONDS, and within the call's 565 s
  local s=$(cap $1) st=$2; shift 2
  echo "== $st (t=${SECONDS}s)"
  env "$@" timeout "$s" tools/gpu-check "$st" 2>&1 | grep -E "^\[  (PASSED|FAILED)|exit|max rel logit|FP8 bundle|FAIL" | tail -8
}
step 150 cuda_tests INFER8_CUDA_CUDNN_BUDGET=4
grep -E "single_rounding|fp16 ulp|\[  (OK|FAILED|ERROR)|LINE" $OUT/cuda_tests.log | head -40
echo "== parity inception_v3 (t=${SECONDS}s)"
PARITY_ARCHES=inception_v3 timeout $(cap 120) tools/gpu-check parity 2>&1 | grep -E "inception_v3 batch" | tail -4
step 240 fp8_tests INFER8_CUDA_CUDNN_BUDGET=10
step 120 bundle_tactics
step 40 calib_tests
echo "== bench_fp16 inception_v3 b1,32 (t=${SECONDS}s)"
BENCH_ARCHES=inception_v3 timeout $(cap 130) tools/gpu-check bench_fp16 2>&1 | tail -2
python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print(r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -3
if [ $SECONDS -lt 540 ]; then
  echo "== single rounding, INFER8_CUDA_LOSSY_ENGINES=1 (t=${SECONDS}s)"
  mv $OUT/cuda_tests.log $OUT/cuda_tests_default.log
  INFER8_CUDA_LOSSY_ENGINES=1 INFER8_TEST_FILTER=test_fp16_single_rounding INFER8_CUDA_CUDNN_BUDGET=4 timeout 40 \
    tools/gpu-check cuda_tests >/dev/null 2>&1
  grep -E "fp16 ulp" $OUT/cuda_tests.log | grep -E "cublaslt" | head -12
  mv $OUT/cuda_tests.log $OUT/cuda_tests_lossy.log
fi
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
