#!/usr/bin/env bash
# tools/gpu-check's fp8_im2col step runs the FP8 GPU test program on its im2col tests alone
# (INFER8_TEST_FILTER), keeps its output as $OUT/fp8_im2col.log and passes its exit status on.
# No GPU here: a stand-in test_cuda_fp8 prints the filter it was given, and fails on request.
. "$SRC/tests/lib/common.sh"
repo="$WORK/repo" out="$WORK/out"
mkdir -p "$repo/build-device/tests" "$out"
cat >"$repo/build-device/tests/test_cuda_fp8" <<'SH'
#!/bin/sh
echo "[ RUN      ] filter=$INFER8_TEST_FILTER"
echo "  tma128x64s4c32 3x3 pad 1, c_in 32: ok"
[ -z "${STANDIN_FAIL:-}" ]
SH
chmod +x "$repo/build-device/tests/test_cuda_fp8"
# the step's functions (gpu_test from cuda.sh), without the device's library setup
run_step() {
  (cd "$repo" && OUT="$out" bash -c '. "$1/tools/gpu-check.d/cuda.sh"; . "$1/tools/gpu-check.d/fp8.sh"; gpu_env() { :; }; fp8_im2col' _ "$SRC")
}
run_step >"$WORK/step.txt" || fail "fp8_im2col failed: $(cat "$WORK/step.txt")"
grep -qx '\[ RUN      \] filter=test_fp8_im2col\*' "$out/fp8_im2col.log" || fail "not filtered to the im2col tests: $(cat "$out/fp8_im2col.log")"
grep -q "tma128x64s4c32 3x3" "$WORK/step.txt" || fail "the variants' lines are not shown: $(cat "$WORK/step.txt")"
grep -q "fp8_im2col: exit 0" "$WORK/step.txt" || fail "no exit status: $(cat "$WORK/step.txt")"
STANDIN_FAIL=1 run_step >"$WORK/fail.txt" && fail "a failing test program gave exit 0"
grep -q "fp8_im2col: exit 1" "$WORK/fail.txt" || fail "no failure reported: $(cat "$WORK/fail.txt")"
echo "ok: fp8_im2col runs the im2col tests alone, logs them in \$OUT and passes their status on"
