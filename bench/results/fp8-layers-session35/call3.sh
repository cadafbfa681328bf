#!/usr/bin/env bash
# Session 35, call 3, on the final GPU code (as call 2), with the budget left (about 500 s):
# 1. INFER8_CUDA_PDL_TUNE=1 (the tuner times each conv with PDL launches; session 34's call 1,
#    tuned so, put 10 more IRv2 convs on TMA kernels) for IRv2, v4 and v3 at batch 32, each
#    against infer8's fp16 in the same process, to compare with calls 1 and 2 (tuned without).
# 2. The lab on the separate sibling shapes of Block17 and Block8 (batch 32), the other half of
#    call 1's merged-kernel figures.
# Carry: build-device/bin, build-device/tests/tools, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-470}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
INFER8_CUDA_PDL_TUNE=1 bench_step irv2-b32-pdltune inception_resnet_v2 32 140
for shape in "Block17 branch 1x1 1088->192 @17 b32" "Block17 branch 1x1 1088->128 @17 b32" "Block8 branch 1x1 2080->192 @8 b32"; do
  [ "$(left)" -lt 20 ] && { echo "lab $shape skipped"; continue; }
  stamp "lab $shape"
  { echo "### $shape"; FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=0 timeout $(cap 30) build-device/bin/fp8_lab; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
  cat "$OUT/lab-part.txt" >>"$OUT/lab-separate.txt"
  grep -E "best|WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt" | head -3
done
rm -f "$OUT/lab-part.txt"
INFER8_CUDA_PDL_TUNE=1 bench_step v4-b32-pdltune inception_v4 32 110
INFER8_CUDA_PDL_TUNE=1 bench_step v3-b32-pdltune inception_v3 32 85
pack_call call3
