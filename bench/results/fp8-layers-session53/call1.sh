#!/usr/bin/env bash
# Session 53, call 1: the final code's GPU tests and issue 5's IRv2 batch-32 row in one call (the
# device tool lent a machine at the end of the session): session 52's opt-in halo modes
# (INFER8_CUDA_HALO_PREFETCH=1 / 2) had never run on a GPU.
#   fp8_small       test_cuda_fp8's single-op and small-graph tests (test_fp*: test_fp8_halo,
#                   _halo_chain, _halo_prefetch in both modes among them)
#   irv2-b32        fp16 against FP8 `default`, 7 interleaved rounds, default halo kernels
#   irv2-b32-pf2    the same with INFER8_CUDA_HALO_PREFETCH=2 (slab pairs), same machine
#   peers-*         peers_torch.py (torch.compile) on the same snapshot, same call
#   lab-halo-pf.txt the halo kernels in modes 0 / 1 / 2 on IRv2's Block35 3x3 32->48 at batch 32
# Run after tools/prepare-device, carrying build-device/bin, build-device/tests/test_cuda_fp8,
# build-device/tests/tools and .devcarry:
#   bash bench/results/fp8-layers-session53/call1.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_small 200 'test_fp*'
bench_step irv2-b32 inception_resnet_v2 32 130
INFER8_CUDA_HALO_PREFETCH=2 bench_step irv2-b32-pf2 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 100
for mode in 0 1 2; do
  lab_step lab-halo-pf.txt "Block35 3x3 32->48 @35 b32" FP8_LAB_VARIANT=58,59,60,61,62 FP8_LAB_HALO_PREFETCH=$mode
done
pack_call call1
