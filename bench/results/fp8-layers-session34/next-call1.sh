#!/usr/bin/env bash
# Prepared for the next session (not run): pdl-noprio.patch's two follow-ups of the launch choice,
# and siblings.patch's merged-sibling TMA kernel in the lab. Before the call, here:
#   git apply bench/results/fp8-layers-session34/pdl-noprio.patch bench/results/fp8-layers-session34/siblings.patch
#   tools/prepare-device
# Carry: build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools, .devcarry.
# 1. test_fp8_pdl and test_fp8_priority (the choices' GPU tests).
# 2. IRv2 `default` at batch 32, default (the third candidate, PDL without priorities); after the
#    lab (3.), again with INFER8_CUDA_PDL_TUNE=1 (each conv tuned with PDL launches).
# 3. The lab on each residual block's sibling branch 1x1s, separate and merged (batch 32): the
#    separate shapes, the merged ones as one conv (one output, one scale: the bound), and the
#    merged ones with FP8_LAB_SPLIT (each sibling its own outputs and scale: the real thing).
# 4. inception_v3 at batch 32 (PDL with priorities lost there in session 34's call 3) and
#    inception_v4 at batch 32 (PDL won there), both default, in what is left.
# Compare with session 34 (IRv2 b32 x 1.194, v3 b32 x 1.054, v4 b32 x 1.101; call 1 with PDL forced
# everywhere: IRv2 b32 x 1.200).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-580}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
fp8_tests_step fp8_tests_choice 60 "test_fp8_p*"
bench_step irv2-b32 inception_resnet_v2 32 130
# 3. The bound of merging each residual block's sibling branch 1x1s (one launch, the input read
#    once): the lab on the merged shapes and on the separate ones, batch 32, mode 0.
for shape in "Block35 branch 1x1 320->32 @35 b32" "Block35 siblings merged" "Block17 branch 1x1 1088->192 @17 b32" \
             "Block17 branch 1x1 1088->128 @17 b32" "Block17 siblings merged" "Block8 branch 1x1 2080->192 @8 b32" \
             "Block8 siblings merged"; do
  [ "$(left)" -lt 25 ] && { echo "lab $shape skipped"; continue; }
  stamp "lab $shape"
  { echo "### $shape"; FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=0 timeout $(cap 40) build-device/bin/fp8_lab; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
  cat "$OUT/lab-part.txt" >>"$OUT/lab-siblings.txt"
  grep -E "best|WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt" | head -4
done
for spec in "32,32,32:Block35 siblings merged" "192,128:Block17 siblings merged" "192,192:Block8 siblings merged"; do
  split=${spec%%:*} shape=${spec#*:}
  [ "$(left)" -lt 25 ] && { echo "lab split $shape skipped"; continue; }
  stamp "lab $shape, FP8_LAB_SPLIT=$split"
  { echo "### $shape split $split"; FP8_LAB_SPLIT=$split FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=0 timeout $(cap 40) build-device/bin/fp8_lab; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
  cat "$OUT/lab-part.txt" >>"$OUT/lab-siblings.txt"
  grep -E "tma128x|best|WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt" | head -4
done
rm -f "$OUT/lab-part.txt"
INFER8_CUDA_PDL_TUNE=1 bench_step irv2-b32-pdltune inception_resnet_v2 32 130
bench_step v3-b32 inception_v3 32 85
bench_step v4-b32 inception_v4 32 95
pack_call next-call1
