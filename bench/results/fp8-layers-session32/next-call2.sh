#!/usr/bin/env bash
# Prepared for the next session (not run): the other rows of issue 5's table on session 32's final
# code (IRv2 b32 ran in call 1, IRv2 b1 in next-call1.sh), then the fp16 backend's and the
# calibration tests. First, when .devcarry/fp8_lab_uniform exists, the lab A/B of
# uniform-indices.patch (warp-uniform warpgroup and warp indices: R2UR 66 -> 10 in tma128x64s4pr,
# statically) against the final build on the shapes of call 1; build it here with
#   git worktree add /tmp/uni HEAD && git -C /tmp/uni apply bench/results/fp8-layers-session32/uniform-indices.patch
#   cmake -S /tmp/uni -B /tmp/uni/b -DINFER8_CUDA=ON -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/uni/b --target fp8_lab
#   cp /tmp/uni/b/bin/fp8_lab .devcarry/fp8_lab_uniform
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-575}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
if [ -x .devcarry/fp8_lab_uniform ]; then
  export FP8_LAB_VARIANT=48,49,50,51,52,53,54,55,56,57 # the TMA kernels
  for spec in "4:Block17 up 1x1 384->1088 @17 b32" "4:Block8 up 1x1 448->2080 @8 b32" "4:Block35 up 1x1 128->320 @35 b32" \
    "0:Block17 branch 1x1 1088->192 @17 b32" "0:Block17 1x7 128->160 @17 b32"; do
    mode=${spec%%:*} shape=${spec#*:}
    for bin in build-device/bin/fp8_lab .devcarry/fp8_lab_uniform; do
      stamp "lab $bin: $shape, mode $mode"
      { echo "### $bin"; FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode timeout $(cap 40) $bin; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
      cat "$OUT/lab-part.txt" >>"$OUT/lab.txt"
      grep -E "tma128x(64|128)s[34](p|pr|r|c|pc)? |best|FAIL" "$OUT/lab-part.txt" | head -8
    done
  done
  rm -f "$OUT/lab-part.txt"
  unset FP8_LAB_VARIANT
fi
bench_step v4-b32 inception_v4 32 95
bench_step v3-b32 inception_v3 32 85
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 50
for step in cuda_tests calib_tests; do
  if [ "$(left)" -lt 60 ]; then echo "$step skipped: $(left) s left"; continue; fi
  stamp "$step"
  INFER8_CUDA_CUDNN_BUDGET=4 timeout $(cap 150) tools/gpu-check $step 2>&1 | grep -E "PASSED|FAILED|exit" | tail -3
done
pack_call next-call2
