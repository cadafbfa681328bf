#!/usr/bin/env bash
# Session 50, call 1: the mixed-width im2col kernels (variants 63 tma128x64s4pcm, 64 tma128x64s4cm,
# 65 tma128x128s3cm: whole 128-channel chunks of each tap, then the taps' rests in 32-channel
# sub-slices) tested, timed in the lab against the product's im2col kernels, and IRv2's rows with
# them in the tuning.
#   im2col      test_cuda_fp8's im2col tests: every im2col kernel forced on every case it fits and
#               on the chains (the mixed chain: c_in 160, 224, 288, 192), against the CPU emulation
#   lab-*.txt   fp8_lab on five batch-32 convs in the mixed kernels' range: the 128-channel im2col
#               kernels (54 s4c, 55 128c, 56 s4pc), the 32-channel one where it fits (57) and the
#               mixed ones, each output checked against the lab's double-precision reference
#   irv2-b32    issue 5's row: fp16 against FP8 `default`, 7 interleaved rounds, 60 s cuDNN budget
#   irv2-b32-nomixed  the same with INFER8_CUDA_FP8_MIXED=0 (the mixed kernels left out of the tuning):
#               the whole-graph A/B, same machine
# Run after tools/prepare-device, carrying build-device/bin, build-device/tests/test_cuda_fp8 (the
# tests and the benchmark), build-device/tests/tools and .devcarry:
#   bash bench/results/fp8-layers-session50/call1.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-520}
. tools/device-call.sh
call_setup
fp8_tests_step im2col 170 'test_fp8_im2col*'
V=FP8_LAB_VARIANT=54,55,56,57,63,64,65
lab_step lab-mixed.txt "Block17 7x1 160->192 @17 b32" $V
lab_step lab-mixed.txt "Block8 1x3 192->224 @8 b32" $V
lab_step lab-mixed.txt "Block8 3x1 224->256 @8 b32" $V
lab_step lab-mixed.txt "Reduction-B 3x3 s2 288->320 @17 b32" $V
lab_step lab-mixed.txt "v4 Block B 1x7 192->224 @17 b32" $V
bench_step irv2-b32 inception_resnet_v2 32 130
INFER8_CUDA_FP8_MIXED=0 bench_step irv2-b32-nomixed inception_resnet_v2 32 130
pack_call call1
