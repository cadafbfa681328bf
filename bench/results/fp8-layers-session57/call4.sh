#!/usr/bin/env bash
# Session 57, call 4 (the budget's last ~250 s): the mixed-width im2col kernels with 64-channel
# rests (73 tma128x64s4cm64, 74 tma128x128s3cm64, 75 tma128x64s4pcm64; c_in 192, 320, 448, ...)
# on a GPU for the first time. (1) test_fp8_im2col* (rest64_cases: 1x7 192 -> 224, 3x3 s2 320 ->
# 96 on the 128-channel, mixed and m64 kernels; the mixed64 chain) and test_fp8_m64_off; (2) the
# lab at batch 32 on v4's 1x7 192->224 (55 took it, 16 us), 7x1 192->192 (69, 12.4-13.0) and
# Reduction-A 3x3 192->224 (65, 56.5); (3) with INFER8_CUDA_FP8_M64=1, inception_v4 at batch 32
# as far as the time goes (before: call 1, x 1.146, FP8 2.403 ms). Carry
# ["build-device/bin/infer8", "build-device/bin/fp8_lab", "build-device/tests/test_cuda_fp8",
# "build-device/tests/tools", ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-215}
. tools/device-call.sh
call_setup
fp8_tests_step im2col 75 'test_fp8_im2col*'
grep -E "mixed64 chain|s4cm64|s3cm64|s4pcm64" "$OUT/im2col.log" | cut -c1-150 | head -30
fp8_tests_step m64off 20 'test_fp8_m64_off'
for shape in "v4 Block B 1x7 192->224 @17 b32" "v4 Block B 7x1 192->192 @17 b32" "v4 Reduction-A 3x3 192->224 @35 b32"; do
  lab_step lab_m64.txt "$shape" FP8_LAB_MODE=0 FP8_LAB_VARIANT=55,63,64,65,69,73,74,75
done
export INFER8_CUDA_FP8_M64=1
bench_step v4-b32 inception_v4 32 95
pack_call call4
