#!/usr/bin/env bash
# Session 35, call 1: session 34's three prepared patches applied (siblings.patch, merge.patch,
# pdl-noprio.patch; committed together after this call if it passes).
# Carry: build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools, .devcarry.
# 1. test_cuda_fp8 whole: every FP8 GPU test, test_fp8_merge (siblings merged on BN 64 / 128
#    against the emulation), the choice tests, and the model tests (IRv2's groups merged where the
#    choice keeps them).
# 2. The merged sibling kernel in the lab, each sibling in its own scale (FP8_LAB_SPLIT).
# 3. IRv2 `default` at batch 32 (merge choice, priority choice, PDL with the third candidate).
# 4. inception_v4 at batch 32 with what is left.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
fp8_tests_step fp8_tests 330
for spec in "32,32,32:Block35 siblings merged" "192,128:Block17 siblings merged" "192,192:Block8 siblings merged"; do
  split=${spec%%:*} shape=${spec#*:}
  [ "$(left)" -lt 175 ] && { echo "lab split $shape skipped"; continue; }
  stamp "lab $shape, FP8_LAB_SPLIT=$split"
  { echo "### $shape split $split"; FP8_LAB_SPLIT=$split FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=0 timeout $(cap 30) build-device/bin/fp8_lab; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
  cat "$OUT/lab-part.txt" >>"$OUT/lab-siblings.txt"
  grep -E "tma128x|best|WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt" | head -4
done
rm -f "$OUT/lab-part.txt"
bench_step irv2-b32 inception_resnet_v2 32 140
grep -E "merge|pdl" "$OUT/irv2-b32/fp8_bench.log" 2>/dev/null | head -6
bench_step v4-b32 inception_v4 32 110
pack_call call1
