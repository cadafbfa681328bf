#!/usr/bin/env bash
# Session 60, call 1: session 59's next-call1.sh (never run: its device budget ran out) on session
# 59's final code, with every test_fp* GPU test in place of its four named ones (the whole FP8 GPU
# suite on the final code, which the review asked for; it includes test_fp8_carveout, test_fp8_pdl,
# test_fp8_dual_output_and_concat and test_fp8_scale_conflict). Then IRv2 at batch 1 and 32, each
# without and with INFER8_CUDA_CARVEOUT=100 on the same machine. Before (session 59, H100,
# ccbe5c5): IRv2 b1 0.812 / 0.766 ms x 1.060, b32 3.824 / 2.987 x 1.280. After tools/prepare-device,
# carry [".devcarry"] alone, kind nvidia-h100-x1 or nvidia-h200.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
stage_lab_run() { stamp "stage_lab $*"; { echo "### $*"; env "$@" timeout "$(cap 30)" build-device/bin/stage_lab; echo "exit $?"; } 2>&1 | tee -a "$OUT/stage-lab.txt"; }
stage_lab_run STAGE_LAB_STAGES=175
stage_lab_run STAGE_LAB_BYTES=16
stage_lab_run STAGE_LAB_BLOCKS=32
fp8_tests_step fp8_all 210 'test_fp*'
bench_step irv2-b1 inception_resnet_v2 1 70
INFER8_CUDA_CARVEOUT=100 bench_step irv2-b1-carve inception_resnet_v2 1 70
bench_step irv2-b32 inception_resnet_v2 32 110
INFER8_CUDA_CARVEOUT=100 bench_step irv2-b32-carve inception_resnet_v2 32 110
pack_call call1
