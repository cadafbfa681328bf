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
bench_step irv2-b1 inception_resnet_v2 1 70
INFER8_CUDA_OWN_CHOICE=1 bench_step irv2-b1-own inception_resnet_v2 1 70
INFER8_CUDA_OWN_CHOICE=1 bench_step v3-b1-own inception_v3 1 35
INFER8_CUDA_OWN_CHOICE=1 bench_step v4-b1-own inception_v4 1 45
INFER8_CUDA_OWN_CHOICE=2 bench_step irv2-b1-own2 inception_resnet_v2 1 70
pack_call call4
