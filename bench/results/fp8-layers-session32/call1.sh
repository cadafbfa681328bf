#!/usr/bin/env bash
# Session 32 call 1: TMA stores in the TMA kernels' epilogue, checked and timed, then every FP8
# GPU test and IRv2 `default` at batch 32 on the final code.
# The change: each consumer warp wrote its 16 rows of the tile into padded staging rows and then
# read them back and stored them with 16- / 8-byte stores (about 104 instructions per warp and
# tile of tma128x64s4pr in session 32's profile of session 31's code: staging reads, 64-bit
# addresses, bounds branches). The staging tiles are now laid out as TMA boxes (swizzled rows), and
# one lane stores them with cp.async.bulk.tensor; outputs whose base or row stride is not 16-byte
# aligned keep the 16- / 8-byte stores (forced everywhere with INFER8_CUDA_TMA_STORE=0, or
# FP8_LAB_TMA_STORE=0 in the lab).
# 1. The lab: base (.devcarry/fp8_lab_base, built from be87941, session 31's final code), the new
#    build, and the new build with FP8_LAB_TMA_STORE=0, in turn per shape, on the three
#    up-projections with their residual (mode 4), a branch 1x1 (mode 0) and a 1x7 conv (mode 0,
#    im2col kernels); then the new build with FP8_LAB_SLICE=1 (outputs as a channel slice of a wider
#    tensor: every byte outside it must keep its poison). Every output is checked against the
#    lab's reference; a wrong output of the new build ends the call.
# 2. test_cuda_fp8 whole (every FP8 GPU test, with the new test_fp8_tma_store_paths), cuDNN budget 10 s.
# 3. IRv2 `default` at batch 32 (fp8_bench: 7 interleaved rounds against infer8's fp16).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-590}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
export FP8_LAB_VARIANT=48,49,50,51,52,53,54,55,56,57 # the TMA kernels (I8_FP8_TMA_FIRST on)
lab_fail() {
  echo "new build WRONG on $1: call ends"; grep -E "WRONG|FAIL|exit" "$OUT/lab-part.txt" | head
  rm -f "$OUT/lab-part.txt"; pack_call call1; exit 1
}
for spec in "4:Block17 up 1x1 384->1088 @17 b32" "4:Block8 up 1x1 448->2080 @8 b32" "4:Block35 up 1x1 128->320 @35 b32" \
  "0:Block17 branch 1x1 1088->192 @17 b32" "0:Block17 1x7 128->160 @17 b32"; do
  mode=${spec%%:*} shape=${spec#*:}
  for lab in base new new-store-off; do
    bin=build-device/bin/fp8_lab store=1
    [ $lab = base ] && bin=.devcarry/fp8_lab_base
    [ $lab = new-store-off ] && store=0
    stamp "lab $lab: $shape, mode $mode"
    { echo "### $lab"; FP8_LAB_TMA_STORE=$store FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode timeout $(cap 40) $bin; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
    cat "$OUT/lab-part.txt" >>"$OUT/lab.txt"
    grep -E "tma128x(64|128)s[34](p|pr|r|c|pc)? |best" "$OUT/lab-part.txt" | head -8
    if [ $lab != base ] && grep -qE "WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt"; then lab_fail "$shape ($lab)"; fi
  done
done
stamp "lab new, outputs as a channel slice"
{ echo "### new slice"; FP8_LAB_SLICE=1 FP8_LAB_SHAPE="Block17 up 1x1 384->1088 @17 b32" FP8_LAB_MODE=4 timeout $(cap 40) build-device/bin/fp8_lab; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
cat "$OUT/lab-part.txt" >>"$OUT/lab.txt"
grep -E "tma128x64s4(p|pr|r)? |best" "$OUT/lab-part.txt" | head -6
if grep -qE "WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt"; then lab_fail "the slice run"; fi
rm -f "$OUT/lab-part.txt"
stamp "test_cuda_fp8 (all)"
INFER8_CUDA_CUDNN_BUDGET=10 INFER8_CUDA_DEBUG=1 timeout $(cap 340) build-device/tests/test_cuda_fp8 >"$OUT/fp8_tests.log" 2>&1
echo "test_cuda_fp8 exit $?"
grep -E "^\[  (PASSED|FAILED)|^\[ +(FAILED|SKIPPED) |max rel logit|TMA stores|stores forced" "$OUT/fp8_tests.log" | tail -20
bench_step irv2-b32 inception_resnet_v2 32 130
pack_call call1
