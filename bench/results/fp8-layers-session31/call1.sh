#!/usr/bin/env bash
# Session 31 call 1: the kernel changes of d0ee517 / 73876b8 checked, then every FP8 GPU test on
# the final code.
# The changes: the TMA kernels' epilogue converts with relu inside (cvt .relu: 64 FMNMX less per
# warp and tile; NaN stays NaN, as in the CPU reference) and reads the residual tile with ldmatrix
# (one instruction per four 8x8 matrices instead of a load and a swizzled address per value pair);
# session 30's SASS counted 898 epilogue instructions per warp and tile of tma128x64s4pr. The wgmma
# descriptors of a K slice are one base plus constant offsets (wg_desc_add), where each took about
# 8 instructions (97 between a K slice's full-barrier wait and its first wgmma), in the TMA, cp.async and halo kernels.
# 1. The lab, base (session 30's kernels: .devcarry/fp8_lab_base, built from d34d825 with
#    `git worktree add /tmp/base d34d825 && cmake -S /tmp/base -B /tmp/base/b -DINFER8_CUDA=ON
#    -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/base/b --target fp8_lab` and copied from
#    /tmp/base/b/bin/fp8_lab; session 31 copied build-device/bin/fp8_lab before its changes) against the
#    new build, interleaved, on the three up-projections with their residual (mode 4) and a branch
#    1x1 conv (mode 0, dual output); every output checked against the lab's reference. A wrong
#    output of the new build ends the call.
# 2. test_cuda_fp8 whole (every FP8 GPU test), cuDNN budget 10 s as tools/gpu-check verify.
# 3. IRv2 `default` at batch 32 (fp8_bench: 7 interleaved rounds against infer8's fp16), then
#    bundle_tactics (stored tactics and the graph choice restored) and calib_tests in what is left
#    (the device refused three starts: this call may be the only one).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-575}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
for spec in "4:Block17 up 1x1 384->1088 @17 b32" "4:Block8 up 1x1 448->2080 @8 b32" "4:Block35 up 1x1 128->320 @35 b32" \
  "0:Block17 branch 1x1 1088->192 @17 b32"; do
  mode=${spec%%:*} shape=${spec#*:}
  for lab in base new; do
    bin=build-device/bin/fp8_lab
    [ $lab = base ] && bin=.devcarry/fp8_lab_base
    stamp "lab $lab: $shape, mode $mode"
    { echo "### $lab"; FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode timeout $(cap 40) $bin; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
    cat "$OUT/lab-part.txt" >>"$OUT/lab.txt"
    grep -E "tma128x64s4(p|pr|r)? |best" "$OUT/lab-part.txt" | head -6
    if [ $lab = new ] && grep -qE "WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt"; then
      echo "new build WRONG on $shape: call ends"; grep -E "WRONG|FAIL|exit" "$OUT/lab-part.txt" | head; rm -f "$OUT/lab-part.txt"; pack_call call1; exit 1
    fi
  done
done
rm -f "$OUT/lab-part.txt"
stamp "test_cuda_fp8 (all)"
INFER8_CUDA_CUDNN_BUDGET=10 INFER8_CUDA_DEBUG=1 timeout $(cap 400) build-device/tests/test_cuda_fp8 >"$OUT/fp8_tests.log" 2>&1
echo "test_cuda_fp8 exit $?"
grep -E "^\[  (PASSED|FAILED)|^\[ +(OK|FAILED|SKIPPED) |max rel logit|top-1" "$OUT/fp8_tests.log" | tail -40
bench_step irv2-b32 inception_resnet_v2 32 140
for step in bundle_tactics calib_tests; do
  if [ "$(left)" -lt 45 ]; then echo "$step skipped: $(left) s left"; continue; fi
  stamp "$step"
  timeout $(cap 150) tools/gpu-check $step 2>&1 | tail -4
done
pack_call call1
