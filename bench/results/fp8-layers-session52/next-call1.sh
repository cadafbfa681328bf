#!/usr/bin/env bash
# Prepared in session 52 (not run: no device time left): the halo kernels' fragment prefetch and
# slab pairs (INFER8_CUDA_HALO_PREFETCH=1 / 2, opt-in), tested and timed against the halo kernels as
# they run by default, on IRv2's small-channel 3x3s (the FP8 convs still slower than fp16) and in
# IRv2's batch-32 graph, same machine:
#   fp8_halo          test_fp8_halo, test_fp8_halo_chain, test_fp8_halo_prefetch (both modes)
#   lab-halo-pf.txt   fp8_lab on the Block35 3x3 32->48 at batch 32 and 8, the five halo kernels in
#                     modes 0, 1 and 2 (FP8_LAB_HALO_PREFETCH), each output checked
#   irv2-b32, irv2-b32-pf2  issue 5's row without and with INFER8_CUDA_HALO_PREFETCH=2
# If a mode wins, make it the default (cuda_fp8.c) and drop the switch. Run after
# tools/prepare-device, carrying build-device/bin, build-device/tests/test_cuda_fp8,
# build-device/tests/tools and .devcarry:
#   bash bench/results/fp8-layers-session52/next-call1.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_halo 170 'test_fp8_halo*'
for shape in "Block35 3x3 32->48 @35 b32" "Block35 3x3 32->48 @35 b8"; do
  for mode in 0 1 2; do
    lab_step lab-halo-pf.txt "$shape" FP8_LAB_VARIANT=58,59,60,61,62 FP8_LAB_HALO_PREFETCH=$mode
  done
done
bench_step irv2-b32 inception_resnet_v2 32 130
INFER8_CUDA_HALO_PREFETCH=2 bench_step irv2-b32-pf2 inception_resnet_v2 32 130
pack_call next-call1
