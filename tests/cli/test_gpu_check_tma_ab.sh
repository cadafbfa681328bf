#!/usr/bin/env bash
# tools/gpu-check's fp8_tma_ab step runs the FP8 benchmark twice, with the TMA kernels left out
# of the tuning (INFER8_CUDA_FP8_TMA=0) and in (=1), at the one batch size asked for, and reports
# a failing run. No GPU here: a stand-in test_cuda_fp8 prints the settings it was given, as a
# benchmark row, so the rows show what the real program would have run.
. "$SRC/tests/lib/common.sh"
repo="$WORK/repo" out="$WORK/out"
mkdir -p "$repo/build-device/tests" "$out"
cat >"$repo/build-device/tests/test_cuda_fp8" <<'SH'
#!/bin/sh
echo "| $INFER8_FP8_BENCH_ARCHES | default | $INFER8_FP8_BENCH_BATCHES | tma=$INFER8_CUDA_FP8_TMA bench=$INFER8_FP8_BENCH budget=$INFER8_CUDA_CUDNN_BUDGET${INFER8_CUDA_FP8_DNN:+ dnn=$INFER8_CUDA_FP8_DNN} |"
[ -z "${STANDIN_FAIL:-}" ]
SH
chmod +x "$repo/build-device/tests/test_cuda_fp8"
# the step's functions, without the device's library setup
run_ab() { (cd "$repo" && OUT="$out" bash -c '. "$1/tools/gpu-check.d/fp8.sh"; gpu_env() { :; }; fp8_tma_ab' _ "$SRC"); }
run_ab >"$WORK/ab.txt" || fail "fp8_tma_ab failed: $(cat "$WORK/ab.txt")"
grep -qx "| inception_resnet_v2 | default | 1 | tma=0 bench=1 budget=40 |" "$WORK/ab.txt" || fail "no TMA-off row at batch 1: $(cat "$WORK/ab.txt")"
grep -qx "| inception_resnet_v2 | default | 1 | tma=1 bench=1 budget=40 |" "$WORK/ab.txt" || fail "no TMA-on row at batch 1: $(cat "$WORK/ab.txt")"
[ -s "$out/fp8_tma_ab_0.md" ] && [ -s "$out/fp8_tma_ab_1.md" ] || fail "the two runs' tables are not in \$OUT"
FP8_AB_ARCH=inception_v4 FP8_AB_BATCH=32 run_ab >"$WORK/ab32.txt" || fail "fp8_tma_ab (v4, b32) failed"
grep -q "| inception_v4 | default | 32 | tma=0 " "$WORK/ab32.txt" || fail "FP8_AB_ARCH / FP8_AB_BATCH not passed on: $(cat "$WORK/ab32.txt")"
rm -f "$out"/fp8_tma_ab_*.md # the tables checked next must be this run's
FP8_AB_VAR=INFER8_CUDA_FP8_DNN FP8_AB_VALUES="1 0" FP8_AB_BATCH=32 run_ab >"$WORK/dnn.txt" || fail "fp8_tma_ab (cuDNN e4m3) failed"
grep -qx "| inception_resnet_v2 | default | 32 | tma= bench=1 budget=40 dnn=0 |" "$WORK/dnn.txt" ||
  fail "FP8_AB_VAR / FP8_AB_VALUES not run: $(cat "$WORK/dnn.txt")"
grep -qx "INFER8_CUDA_FP8_DNN=1:" "$WORK/dnn.txt" && [ -s "$out/fp8_tma_ab_1.md" ] && [ -s "$out/fp8_tma_ab_0.md" ] || fail "no dnn=1 run or no table: $(cat "$WORK/dnn.txt")"
STANDIN_FAIL=1 run_ab >"$WORK/abfail.txt" && fail "a failing benchmark run gave exit 0"
grep -q "fp8_tma_ab: exit 1" "$WORK/abfail.txt" || fail "no failure reported: $(cat "$WORK/abfail.txt")"
# a call that did not carry the test binary is told which file to carry, with the shell's exit 127
(cd "$repo" && OUT="$out" FP8_BENCH_BIN=build-device/tests/absent FP8_BENCH_INTO=nobin \
  bash -c '. "$1/tools/gpu-check.d/fp8.sh"; gpu_env() { :; }; fp8_bench' _ "$SRC") >"$WORK/nobin.txt" && rc=0 || rc=$?
[ "$rc" -eq 127 ] || fail "fp8_bench without its binary did not exit 127: $(cat "$WORK/nobin.txt")"
grep -q "build-device/tests/absent is missing: carry it" "$WORK/nobin.txt" || fail "no message naming the binary: $(cat "$WORK/nobin.txt")"
echo "ok: fp8_tma_ab runs the benchmark with the TMA kernels out and in (or another variable's values), at the batch asked for"
