# verify: the one-call check of a commit on the GPU machine (tools/gpu-check verify), within one
# device call's 600 s: every GPU test step with small cuDNN budgets (tuning dominates their
# time), then the FP8 benchmark for as long as is left. VERIFY_SECONDS (default 540, from the
# step's start) bounds the whole: each step runs as its own gpu-check under `timeout` with the
# time left, so a hanging step cannot take the call past the device's limit and lose its files.
# Session 12's call 1 ran this sequence in 529 s with inception_resnet_v2 alone (session 13:
# 515 s, and 506 s with VERIFY_SECONDS=560 once the TMA kernels had joined the tuning);
# VERIFY_BENCH_ARCHES names others (v4 and v3 take another ~250 s, a second call). Session 15's
# kernels made tuning longer (IRv2's batch-32 bench alone took 105 s), so the bench runs batch
# 32 first, then batch 1 in what is left. Outputs: the steps' logs and fp8_bench's tables
# (fp8_bench_b32.md, fp8_bench_b1.md) under $OUT (packed by gpu-check beyond 8 files). Not in
# STEPS (it repeats them): run it by name. VERIFY_BENCH_ENV adds VAR=VALUE words to the bench
# steps alone (e.g. INFER8_CUDA_GRAPH_CHOICE=0: the tests keep their defaults).

# verify_step SECONDS STEP [VAR=VALUE ...]: STEP in a child gpu-check (no packing of its own),
# killed with its children after SECONDS; the step's status (124: timed out)
verify_step() {
  local seconds=$1 step=$2
  shift 2
  if [ "$seconds" -lt 30 ]; then
    echo "verify: no time left for $step"
    return 1
  fi
  env "$@" GPU_CHECK_PACK=never timeout "$seconds" "$PWD/tools/gpu-check" "$step" >/dev/null 2>&1
}

verify() {
  local t0=$SECONDS limit=${VERIFY_SECONDS:-540} rc=0
  left() { echo $((limit - (SECONDS - t0))); }
  echo "verify: fp8_tests (t=0 s)"
  verify_step "$(left)" fp8_tests INFER8_CUDA_CUDNN_BUDGET=10 || rc=1
  grep -E "^\[  (PASSED|FAILED)|max rel logit" "$OUT/fp8_tests.log"
  echo "verify: bundle_tactics (t=$((SECONDS - t0)) s)"
  verify_step "$(left)" bundle_tactics || rc=1
  tail -n 1 "$OUT/bundle_tactics.log"
  echo "verify: calib_tests (t=$((SECONDS - t0)) s)"
  verify_step "$(left)" calib_tests || rc=1
  grep -E "^\[  (PASSED|FAILED)" "$OUT/calib_tests.log"
  echo "verify: cuda_tests (t=$((SECONDS - t0)) s)"
  verify_step "$(left)" cuda_tests INFER8_CUDA_CUDNN_BUDGET=4 || rc=1
  grep -E "^\[  (PASSED|FAILED)" "$OUT/cuda_tests.log"
  # batch 32 first (the goal the time left is most likely to cut), each batch in its own run,
  # its tables kept as fp8_bench_bN.md / .log
  local bench_s batch
  for batch in 32 1; do
    bench_s=$(($(left) - 5))
    if [ "$batch" = 1 ] && [ "$bench_s" -lt 60 ]; then # a second call's task, not a failure
      echo "verify: fp8_bench batch 1 skipped: ${bench_s} s left"
      continue
    fi
    echo "verify: fp8_bench ${VERIFY_BENCH_ARCHES:-inception_resnet_v2} batch $batch within ${bench_s} s (t=$((SECONDS - t0)) s)"
    verify_step "$bench_s" fp8_bench INFER8_FP8_BENCH_ARCHES="${VERIFY_BENCH_ARCHES:-inception_resnet_v2}" \
      INFER8_FP8_BENCH_BATCHES=$batch INFER8_CUDA_CUDNN_BUDGET=40 FP8_BENCH_TIMEOUT="$bench_s" \
      ${VERIFY_BENCH_ENV:-} || rc=1
    [ -f "$OUT/fp8_bench.md" ] && mv "$OUT/fp8_bench.md" "$OUT/fp8_bench_b$batch.md"
    [ -f "$OUT/fp8_bench.log" ] && mv "$OUT/fp8_bench.log" "$OUT/fp8_bench_b$batch.log"
    grep -E "^\| (incep|fp8-layers)" "$OUT/fp8_bench_b$batch.md" 2>/dev/null
  done
  echo "verify: exit $rc (t=$((SECONDS - t0)) s)"
  return $rc
}
