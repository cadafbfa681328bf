#!/usr/bin/env bash
# Prepared for the next session (not run): the PDL experiment of pdl.patch (programmatic dependent
# launch for the own FP8 kernels, off unless INFER8_CUDA_PDL=1). Before the call, here:
#   git apply bench/results/fp8-layers-session33/pdl.patch && tools/prepare-device
# Carry: build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools, .devcarry.
# 1. test_cuda_fp8 whole with INFER8_CUDA_PDL=1 (every FP8 GPU test, launches and CUDA graphs with
#    programmatic edges).
# 2. The lab at batch 1 (Block17 branch 1x1, Block17 up-projection with residual), FP8_LAB_PDL=0
#    then 1: back-to-back launches of one kernel, each one's setup overlapping the end of the last.
# 3. IRv2 `default` at batch 1 with INFER8_CUDA_PDL=0 and 1 (fp8_bench: fp16 against FP8 in one
#    process; the graph choice "cuDNN e4m3 convs on own kernels" shows whether own kernels now win
#    at batch 1), then batch 32 with INFER8_CUDA_PDL=1.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
INFER8_CUDA_PDL=1 fp8_tests_step fp8_tests_pdl 360
for spec in "0:Block17 branch 1x1 1088->192 @17 b1" "4:Block17 up 1x1 384->1088 @17 b1"; do
  mode=${spec%%:*} shape=${spec#*:}
  for pdl in 0 1; do
    stamp "lab PDL $pdl: $shape, mode $mode"
    { echo "### pdl $pdl"; FP8_LAB_PDL=$pdl FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode timeout $(cap 30) build-device/bin/fp8_lab; echo "exit $?"; } >>"$OUT/lab-pdl.txt" 2>&1
    tail -12 "$OUT/lab-pdl.txt" | grep -E "best|WRONG|FAIL|exit [1-9]"
  done
done
INFER8_CUDA_PDL=0 bench_step irv2-b1-pdl0 inception_resnet_v2 1 60
INFER8_CUDA_PDL=1 bench_step irv2-b1-pdl1 inception_resnet_v2 1 60
INFER8_CUDA_PDL=1 bench_step irv2-b32-pdl1 inception_resnet_v2 32 130
pack_call next-call2
