#!/usr/bin/env bash
# Session 34 call 1, on HEAD 882bbd4 + bench/results/fp8-layers-session33/pdl.patch (programmatic
# dependent launch for the own FP8 kernels, off unless INFER8_CUDA_PDL=1 / FP8_LAB_PDL=1):
# session 33's prepared next-call2.sh, regrouped with next-call1.sh's lab step.
# 1. The lab on "Block35 branch 1x1 320->32 @35 b32", every variant, mode 0 (PDL off): IRv2's
#    graph keeps cuDNN e4m3 there.
# 2. The lab at batch 1, FP8_LAB_PDL=0 then 1 (Block17 branch 1x1, Block17 up-projection).
# 3. IRv2 `default` at batch 1 with INFER8_CUDA_PDL=1, batch 32 with PDL=1, then batch 1 with PDL=0
#    (fp8_bench: infer8's fp16 against FP8, interleaved rounds, same process).
# 4. test_cuda_fp8's test_fp8_* tests with INFER8_CUDA_PDL=1, in what is left.
# Carry: build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
stamp "lab Block35 branch 320->32 b32"
FP8_LAB_SHAPE="Block35 branch 1x1 320->32 @35 b32" FP8_LAB_MODE=0 timeout $(cap 40) build-device/bin/fp8_lab >"$OUT/lab-b35-branch.txt" 2>&1
echo "lab exit $?"; grep -vE "^\s*$" "$OUT/lab-b35-branch.txt" | tail -40
for spec in "0:Block17 branch 1x1 1088->192 @17 b1" "4:Block17 up 1x1 384->1088 @17 b1"; do
  mode=${spec%%:*} shape=${spec#*:}
  for pdl in 0 1; do
    stamp "lab PDL $pdl: $shape, mode $mode"
    { echo "### pdl $pdl: $shape"; FP8_LAB_PDL=$pdl FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode timeout $(cap 30) build-device/bin/fp8_lab; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
    cat "$OUT/lab-part.txt" >>"$OUT/lab-pdl.txt"
    grep -E "best|WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt" | head -6
  done
done
rm -f "$OUT/lab-part.txt"
INFER8_CUDA_PDL=1 bench_step irv2-b1-pdl1 inception_resnet_v2 1 60
INFER8_CUDA_PDL=1 bench_step irv2-b32-pdl1 inception_resnet_v2 32 130
INFER8_CUDA_PDL=0 bench_step irv2-b1-pdl0 inception_resnet_v2 1 60
INFER8_CUDA_PDL=1 fp8_tests_step fp8_tests_pdl 300 "test_fp8_*"
pack_call call1
