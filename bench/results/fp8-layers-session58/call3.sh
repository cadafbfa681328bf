#!/usr/bin/env bash
# Session 58, call 3: the halo kernels' leaner index arithmetic and epilogue (7ef1c91, 7067e8c) on a
# GPU: their tests (test_fp8_halo, _halo_chain, _halo_prefetch against the CPU FP8 emulation), the
# lab on Block35's 3x3 32->48 and 48->64 at batch 32 with this build and with 2ee91d5's
# (.devcarry/fp8_lab_2ee91d5.xz, before both) on the same machine, issue 5's IRv2 batch-32 row with
# its torch.compile peer, then v3's batch-1 row with its peer (not yet run this session).
# Carry ["build-device/bin/infer8", "build-device/tests/tools", ".devcarry"]: this build's fp8_lab
# and test_cuda_fp8 travel xz-packed in .devcarry (the tree's 31 MB on disk and the raw binaries were
# over the 64 MiB a call carries) and are unpacked here.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-470}
. tools/device-call.sh
call_setup
mkdir -p build-device/bin build-device/tests
xz -dc .devcarry/fp8_lab_7067e8c.xz >build-device/bin/fp8_lab && xz -dc .devcarry/test_cuda_fp8_7067e8c.xz >build-device/tests/test_cuda_fp8 &&
  chmod +x build-device/bin/fp8_lab build-device/tests/test_cuda_fp8
fp8_tests_step fp8_halo 90 'test_fp8_halo*'
mkdir -p lab-2ee91d5/build-device/bin && xz -dc .devcarry/fp8_lab_2ee91d5.xz >lab-2ee91d5/build-device/bin/fp8_lab &&
  chmod +x lab-2ee91d5/build-device/bin/fp8_lab
for shape in "Block35 3x3 32->48 @35 b32" "Block35 3x3 48->64 @35 b32"; do
  lab_step lab-halo.txt "$shape" FP8_LAB_VARIANT=58,59,60,61,62
  (cd lab-2ee91d5 && lab_step lab-halo-2ee91d5.txt "$shape" FP8_LAB_VARIANT=58,59,60,61,62)
done
bench_step irv2-b32 inception_resnet_v2 32 110
PEER_MODES=compile peers_step inception_resnet_v2 32 130
bench_step v3-b1 inception_v3 1 50
PEER_MODES=compile peers_step inception_v3 1 50
pack_call call3
