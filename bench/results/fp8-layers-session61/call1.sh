#!/usr/bin/env bash
# Session 61, call 1: session 60's next-call1.sh (prepared there; its call 4 was refused twice, then
# the budget ran out), with v3's torch.compile peer at the end if time is left.
# 1. Every test_fp* GPU test on the final code (session 60's call 1: 26 passed in 168 s on
#    8f95978). Since then: INFER8_CUDA_CARVEOUT is gone (no gain in call 1), and the TMA kernels,
#    when launched with PDL, fetch their tensor maps and issue their first K slices' weights before
#    griddep_wait, as stage_lab's PDL layers do (1x1 and im2col kernels; never run). test_fp8_pdl
#    compares PDL runs bit for bit with a K of 640 now (weights before and after the wait), with and
#    without INFER8_CUDA_TMA_EARLY=0, and requires the same kernel-node count in every launch
#    combination; test_fp8_im2col_chain runs every im2col kernel's chain under forced PDL too.
# 2. stage_lab's code-size runs (below).
# 3. Batch 1 with every FP8 conv on the own kernels and PDL. Call 1's stage_lab put a dependent
#    layer at 1.87 us as graph kernels, 1.31 with PDL and 1.78 as one persistent kernel: PDL cuts
#    the floor, not a persistent forward. But at batch 1 the tuner keeps cuDNN's e4m3 kernels on
#    237 of IRv2's 239 FP8 convs, and cuDNN's kernels take no PDL; the own-kernel graph (0.957 ms
#    against 0.844 in call 1) was timed only without it. INFER8_CUDA_OWN_CHOICE=1 keeps that graph
#    whatever its time, and choose_launch then times it with and without PDL and priorities: the
#    row's FP8 time is the best of those. With INFER8_CUDA_TMA_EARLY=0 too: the A/B of the early
#    weights. Before (call 1, H100): IRv2 b1 fp16 0.892, FP8 0.830 ms.
# Carry [".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_all 210 'test_fp*'
# What code size costs a dependent stage (stage_lab's STAGE_LAB_CODE, new in session 60, never run):
# the same FFMAs after the wait as a loop (2.8 KB of SASS) or unrolled (19 / 35 / 68 KB), each stage
# on one of 4 kernels (1: the same kernel every stage, its code warm). If unrolled costs about 1 us
# a stage more than the loop at 35-68 KB, the own kernels' size (SASS, tools/ptx-summary --sass:
# TMA 28-52 KB, halo 38-61, cp.async wgmma 82-166) explains their batch-1 deficit against cuDNN
# (about 1 us a conv) and leaner batch-1 kernels are the next direction.
stage_lab_step STAGE_LAB_CODE=1 STAGE_LAB_CODE_KB=64
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=64
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=64 STAGE_LAB_KINDS=1
stage_lab_step STAGE_LAB_CODE=1 STAGE_LAB_CODE_KB=32
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=32
stage_lab_step STAGE_LAB_CODE=1 STAGE_LAB_CODE_KB=16
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=16
# few blocks, as the own kernels have at batch 1 (6-10 tiles for IRv2's 1x1s; cuDNN's split-K
# kernels may run more): 28 KB of weights a block and a stage on 8 blocks, against 16 bytes
stage_lab_step STAGE_LAB_BLOCKS=8
stage_lab_step STAGE_LAB_BLOCKS=8 STAGE_LAB_BYTES=16
bench_step irv2-b1 inception_resnet_v2 1 70
INFER8_CUDA_OWN_CHOICE=1 bench_step irv2-b1-own inception_resnet_v2 1 70
# the same without the weights issued before the wait (the A/B of that change, same machine)
INFER8_CUDA_OWN_CHOICE=1 INFER8_CUDA_TMA_EARLY=0 bench_step irv2-b1-own-noearly inception_resnet_v2 1 70
INFER8_CUDA_OWN_CHOICE=1 bench_step v3-b1-own inception_v3 1 35
INFER8_CUDA_OWN_CHOICE=1 bench_step v4-b1-own inception_v4 1 45
PEER_MODES=compile peers_step inception_v3 1 55
pack_call call1
