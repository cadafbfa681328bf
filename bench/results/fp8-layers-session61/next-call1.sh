#!/usr/bin/env bash
# For session 62 (prepared in session 61). Carry [".devcarry"].
# Session 61's calls (H100) ran session 60's final code: 24 of the 25 test_fp* passed and the 25th
# (test_fp8_tactics_restored) was cut by the 210 s cap; the own kernels' IRv2 graph at batch 1 with
# PDL ran 0.814 ms with the early weights and 0.847 without, against 0.750 for the tuned graph,
# where cuDNN's e4m3 kernels run 237 of 239 FP8 convs, each about 1 us faster than the best own
# kernel in isolation (2.5 against 3.5 us for a 1x1 320 -> 32). Since then (b71ab39, never run):
#  - the TMA kernels take the early path (tensor-map prefetch, first slices' weights) in every
#    launch, not under PDL alone, so the tuner times them as the graph runs them;
#  - their blocks end once their TMA stores have read shared memory, not once the stores have
#    written global memory (INFER8_CUDA_TMA_STORE_DRAIN=1: the old wait; FP8_LAB_TMA_DRAIN=1 in
#    the lab). At batch 1 every TMA conv is one wave, so that wait was the kernel's last step;
#  - choose_own judges its graphs by their faster form, plain or with PDL;
#  - TMA variants 76-77 (tma128x64s8, tma128x64s8c): eight stages, for batch 1's big-K convs, whose
#    slices pass the stages once (the lab below times them on Block8's 2080 -> 192).
# 1. every test_fp* on that code (cap 280: session 61's H100 took 209 s for the first 24, and the
#    eight-stage variants 76-77 add im2col cases, chain runs and tile-loop and store-path passes);
# 2. the lab at batch 1 with its ablations (abl-noepi / -nostore / -nomma / -noload: where a
#    small conv's time goes), with and without the drain;
# 3. IRv2 at batch 1 as tuned, with its torch.compile peer; then the drain's A/B (choose_own's
#    debug lines give the own-kernel graph's plain and PDL times in both, as session 61's
#    INFER8_CUDA_OWN_CHOICE=1 runs measured them);
# 4. if time is left, Nsight Compute of the TMA kernel at batch 1, with and without the drain.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_all 280 'test_fp*'
lab_step lab-b1.txt "320->32 @35 b1"
lab_step lab-b1.txt "320->32 @35 b1" FP8_LAB_TMA_DRAIN=1
lab_step lab-b1.txt "2080->192 @8 b1"
lab_step lab-b1.txt "2080->192 @8 b1" FP8_LAB_TMA_DRAIN=1
# cold code at the own kernels' sizes: 32 KB unrolled on one kernel (warm) against session 61's four
# in turn (cold: 4.80 / 4.26 us a stage as graph kernels / with PDL); at 64 KB the difference was
# 0.18 / 0.83 us (7.77 / 7.48 against 7.59 / 6.65), about a second each
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=32 STAGE_LAB_KINDS=1
stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=32
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 80
INFER8_CUDA_TMA_STORE_DRAIN=1 bench_step irv2-b1-drain inception_resnet_v2 1 45
# Nsight Compute of the TMA kernel tma128x64s4 (variant 48) on Block35's 1x1 at batch 1, a warm
# launch, with the block end as now and with the drain: where its 3.5 us go against cuDNN's 2.5
NCU_SKIP=5 ncu_step ncu-b35-b1-v48 "320->32 @35 b1" 0 48
FP8_LAB_TMA_DRAIN=1 NCU_SKIP=5 ncu_step ncu-b35-b1-v48-drain "320->32 @35 b1" 0 48
pack_call next1
