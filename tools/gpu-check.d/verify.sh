# verify: the one-call check of a commit on the GPU machine (tools/gpu-check verify), within one
# device call's 600 s: every GPU test step with small cuDNN budgets (tuning dominates their
# time), then the FP8 benchmark for as long as is left (VERIFY_SECONDS, default 540, from the
# step's start). Session 12's call 1 ran this sequence in 529 s with inception_resnet_v2 alone;
# VERIFY_BENCH_ARCHES names others (v4 and v3 take another ~250 s, a second call). Outputs:
# the steps' logs and fp8_bench's tables under $OUT (packed by gpu-check beyond 8 files). Not in
# STEPS (it repeats them): run it by name.

verify() {
  local t0=$SECONDS limit=${VERIFY_SECONDS:-540} rc=0 left
  echo "verify: fp8_tests (t=0 s)"
  INFER8_CUDA_CUDNN_BUDGET=10 fp8_tests >/dev/null || rc=1
  grep -E "^\[  (PASSED|FAILED)|max rel logit" "$OUT/fp8_tests.log"
  echo "verify: bundle_tactics (t=$((SECONDS - t0)) s)"
  bundle_tactics >/dev/null || rc=1
  tail -n 1 "$OUT/bundle_tactics.log"
  echo "verify: calib_tests (t=$((SECONDS - t0)) s)"
  calib_tests >/dev/null || rc=1
  grep -E "^\[  (PASSED|FAILED)" "$OUT/calib_tests.log"
  echo "verify: cuda_tests (t=$((SECONDS - t0)) s)"
  INFER8_CUDA_CUDNN_BUDGET=4 cuda_tests >/dev/null || rc=1
  grep -E "^\[  (PASSED|FAILED)" "$OUT/cuda_tests.log"
  left=$((limit - (SECONDS - t0)))
  echo "verify: fp8_bench ${VERIFY_BENCH_ARCHES:-inception_resnet_v2} within ${left} s (t=$((SECONDS - t0)) s)"
  if [ "$left" -lt 60 ]; then
    echo "verify: no time left for fp8_bench"
    rc=1
  else
    INFER8_FP8_BENCH_ARCHES=${VERIFY_BENCH_ARCHES:-inception_resnet_v2} INFER8_CUDA_CUDNN_BUDGET=40 FP8_BENCH_TIMEOUT=$left \
      fp8_bench >/dev/null || rc=1
    grep -E "^\| (incep|fp8-layers)" "$OUT/fp8_bench.md"
  fi
  echo "verify: exit $rc (t=$((SECONDS - t0)) s)"
  return $rc
}
