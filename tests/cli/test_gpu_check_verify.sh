#!/usr/bin/env bash
# tools/gpu-check verify runs every GPU test step, then the FP8 benchmark at batch 32 first and
# batch 1 in the time left, each in its own run with its tables kept apart, and skips the
# batch-1 run (saying so) when too little time is left. No GPU here: stand-in test
# programs log how they were called; the CLI stand-in fails, so bundle_tactics fails as a real
# failure would (verify must say so in its exit status).
. "$SRC/tests/lib/common.sh"
repo="$WORK/repo" out="$WORK/out" calls="$WORK/calls.txt"
mkdir -p "$repo/build-device/tests" "$repo/build-device/bin" "$out"
cp -r "$SRC/tools" "$repo/"
for prog in test_cuda_fp8 test_cuda_backend test_cuda_calib; do
  cat >"$repo/build-device/tests/$prog" <<SH
#!/bin/sh
echo "$prog bench=\${INFER8_FP8_BENCH:-} batches=\${INFER8_FP8_BENCH_BATCHES:-} budget=\${INFER8_CUDA_CUDNN_BUDGET:-}" >>"$calls"
if [ -n "\${INFER8_FP8_BENCH:-}" ]; then
  echo "| inception_resnet_v2 | default | \$INFER8_FP8_BENCH_BATCHES | standin |"
  sleep "\${STANDIN_BENCH_SLEEP:-0}"
else
  echo "[  PASSED  ] 1 test(s)."
fi
SH
  chmod +x "$repo/build-device/tests/$prog"
done
printf '#!/bin/sh\nexit 1\n' >"$repo/build-device/bin/infer8"
chmod +x "$repo/build-device/bin/infer8"
run_verify() { (cd "$repo" && env -u INFER8 OUT="$out" WORK="$WORK/gc" GPU_CHECK_PACK=never tools/gpu-check verify); }

run_verify >"$WORK/verify.txt" 2>&1 && fail "verify passed though bundle_tactics failed: $(cat "$WORK/verify.txt")"
grep -q "verify: exit 1" "$WORK/verify.txt" || fail "no failing exit reported: $(cat "$WORK/verify.txt")"
# the benchmark: batch 32, then batch 1, with the verify budget; the tests before it
benches=$(grep "bench=1" "$calls" | sed 's/.*batches=\([0-9]*\).*/\1/' | tr '\n' ' ')
[ "$benches" = "32 1 " ] || fail "bench batches in order '32 1' expected, got '$benches': $(cat "$calls")"
grep -q "test_cuda_fp8 bench= batches= budget=10" "$calls" || fail "fp8_tests did not run with budget 10: $(cat "$calls")"
grep -q "test_cuda_backend bench= batches= budget=4" "$calls" || fail "cuda_tests did not run: $(cat "$calls")"
[ "$(grep -c "bench=1.*budget=40" "$calls")" = 2 ] || fail "bench runs not at budget 40: $(cat "$calls")"
grep -qx "| inception_resnet_v2 | default | 32 | standin |" "$out/fp8_bench_b32.md" || fail "no batch-32 table in fp8_bench_b32.md"
grep -qx "| inception_resnet_v2 | default | 1 | standin |" "$out/fp8_bench_b1.md" || fail "no batch-1 table in fp8_bench_b1.md"
grep -q "| inception_resnet_v2 | default | 32 | standin |" "$WORK/verify.txt" || fail "the batch-32 row is not printed"

# too little time after batch 32: batch 1 is skipped, and the log says so
rm -f "$calls" "$out"/*
VERIFY_SECONDS=70 STANDIN_BENCH_SLEEP=20 run_verify >"$WORK/verify2.txt" 2>&1 || true
grep -q "verify: fp8_bench batch 1 skipped" "$WORK/verify2.txt" || fail "batch 1 not reported as skipped: $(cat "$WORK/verify2.txt")"
[ "$(grep -c "bench=1" "$calls")" = 1 ] || fail "a batch-1 bench ran without the time for it: $(cat "$calls")"
echo "ok: verify benchmarks batch 32 first, then batch 1 in the time left, tables kept apart"
