#!/usr/bin/env bash
# For session 61 (prepared in session 60 as its call 4, refused twice: the device budget ran out):
# batch 1 with every FP8 conv on the own kernels *and* programmatic dependent
# launch. Call 1's stage_lab put a dependent chain's cost at 1.87 us a stage as graph kernels, 1.31
# with PDL and 1.78 as one persistent kernel: PDL, not a persistent forward, is what cuts the
# floor. But at batch 1 the tuner keeps cuDNN's e4m3 kernels on 237 of IRv2's 239 FP8 convs, and
# cuDNN's kernels take no PDL; the own-kernel graph (0.957 ms against 0.844) was timed only without
# it. INFER8_CUDA_OWN_CHOICE=1 keeps that graph whatever its time (2: its halo convs off halo too),
# and choose_launch then times it with and without PDL and priorities: the row's FP8 time is the
# best of those. Before (call 1, H100): IRv2 b1 fp16 0.892, FP8 0.830 ms. First test_fp8_pdl, on
# the code without INFER8_CUDA_CARVEOUT (no gain in call 1, removed): it now requires the same
# kernel-node count in every launch combination. Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-400}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_pdl 40 'test_fp8_pdl'
# What code size costs a dependent stage (stage_lab's STAGE_LAB_CODE, new in session 60, never run):
# the same FFMAs after the wait as a loop (2.8 KB of SASS) or unrolled (19 / 35 / 68 KB), each stage
# on one of 4 kernels (1: the same kernel every stage, its code warm). If unrolled costs about 1 us
# a stage more than the loop at 35-68 KB, the own kernels' size (SASS, tools/ptx-summary --sass:
# TMA 26-50 KB, halo 38-61, cp.async wgmma 82-166) explains their batch-1 deficit against cuDNN
# (about 1 us a conv) and leaner batch-1 kernels are the next direction.
stage_lab_step STAGE_LAB_CODE=1 STAGE_LAB_CODE_KB=64
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=64
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=64 STAGE_LAB_KINDS=1
stage_lab_step STAGE_LAB_CODE=1 STAGE_LAB_CODE_KB=32
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=32
stage_lab_step STAGE_LAB_CODE=1 STAGE_LAB_CODE_KB=16
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=16
bench_step irv2-b1 inception_resnet_v2 1 70
INFER8_CUDA_OWN_CHOICE=1 bench_step irv2-b1-own inception_resnet_v2 1 70
INFER8_CUDA_OWN_CHOICE=1 bench_step v3-b1-own inception_v3 1 35
INFER8_CUDA_OWN_CHOICE=1 bench_step v4-b1-own inception_v4 1 45
INFER8_CUDA_OWN_CHOICE=2 bench_step irv2-b1-own2 inception_resnet_v2 1 70
pack_call call4
