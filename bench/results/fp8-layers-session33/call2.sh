#!/usr/bin/env bash
# Session 33 call 2, on the final code: uniform-indices.patch applied (the TMA kernels' warpgroup and
# warp indices broadcast from lane 0; call 1's lab: best kernel per shape 0-12% faster, every output
# checked). The GPU tests and the benchmark in one call:
# 1. test_cuda_fp8 whole (every FP8 GPU test), cuDNN budget 10 s.
# 2. IRv2 `default` at batch 32 and 1 against infer8's fp16 (fp8_bench: interleaved rounds).
# 3. An experiment, not in the final code: the same broadcast in the wgmma (cp.async) and halo
#    kernels (.devcarry/fp8_lab_halo_uniform, built from the final code with
#    bench/results/fp8-layers-session33/halo-uniform.patch) against the final build, on Block35's
#    3x3 at batch 32 (halo kernels, IRv2's 32 halo convs) and Mixed_7a's 3x3, every variant.
# 4. inception_v4 at batch 32 in what is left.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-580}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
fp8_tests_step fp8_tests 360
bench_step irv2-b32 inception_resnet_v2 32 130
bench_step irv2-b1 inception_resnet_v2 1 60
for shape in "Block35 3x3 32->48 @35 b32" "Mixed_7a 3x3 256->288 @17 b8"; do
  for bin in build-device/bin/fp8_lab .devcarry/fp8_lab_halo_uniform; do
    stamp "lab $bin: $shape, mode 0"
    { echo "### $bin"; FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=0 timeout $(cap 40) $bin; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
    cat "$OUT/lab-part.txt" >>"$OUT/lab.txt"
    grep -E "halo|wg|best|WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt" | head -14
  done
done
rm -f "$OUT/lab-part.txt"
bench_step v4-b32 inception_v4 32 95
pack_call call2
