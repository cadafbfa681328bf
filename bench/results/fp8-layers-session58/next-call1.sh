#!/usr/bin/env bash
# For session 59 (prepared in session 58, not run): the final code's whole FP8 suite, the halo
# kernels' mode 3 in the lab, then IRv2's batch-32 row with its torch.compile peer and, as time
# allows, the same row with mode 3. Session 58 ran test_fp* on 7ef1c91 (25 passed) and only the
# halo tests on 7067e8c (the halo kernels' tile start and epilogue changed after 7ef1c91); mode 3
# (INFER8_CUDA_HALO_PREFETCH=3: the 32-wide halo kernels' registers capped at 64 for 32 warps an
# SM instead of 24; test_fp8_halo_prefetch runs its cases and chain) has never run on a GPU.
# Before (session 58): IRv2 b32 x 1.273 (H100) / 1.267 (H200); Block35 3x3 32->48 on halo128x32
# 12.92-13.41 us in the lab. After tools/prepare-device, carry [".devcarry"] alone (its
# build.tar.xz holds the binaries, which gpu_env unpacks).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_all 240 'test_fp*'
for shape in "Block35 3x3 32->48 @35 b32" "Block35 3x3 48->64 @35 b32"; do
  for mode in 0 3; do lab_step lab-halo-occ.txt "$shape" FP8_LAB_VARIANT=58,60 FP8_LAB_HALO_PREFETCH=$mode; done
done
bench_step irv2-b32 inception_resnet_v2 32 110
PEER_MODES=compile peers_step inception_resnet_v2 32 130
INFER8_CUDA_HALO_PREFETCH=3 bench_step irv2-b32-occ inception_resnet_v2 32 110
pack_call next1
