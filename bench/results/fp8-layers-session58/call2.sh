#!/usr/bin/env bash
# Session 58, call 2: session 57's owed next-call2.sh (issue 5's IRv2 rows at batch 32 and 1 and
# v4's at batch 1, each with its torch.compile peer, on the final code with 73-75 default), after
# the first timing of the halo kernels' PIPE modes (session 52's INFER8_CUDA_HALO_PREFETCH 1 / 2,
# tested on a GPU in session 54 but never timed): fp8_lab on Block35's 3x3 32->48 at batch 32,
# variants 58-62 in modes 0, 1 and 2, each output checked against the lab's reference.
# The lab runs twice: the final code's fp8_lab (7ef1c91: the halo loads index by multiply-high
# quotients) and 2ee91d5's (.devcarry/fp8_lab_2ee91d5, before that), on the same shape and machine.
# Same carry as next-call1.sh, plus build-device/bin/fp8_lab.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
for mode in 0 1 2; do
  lab_step lab-halo-pipe.txt "Block35 3x3 32->48 @35 b32" FP8_LAB_VARIANT=58,59,60,61,62 FP8_LAB_HALO_PREFETCH=$mode
done
mkdir -p lab-2ee91d5/build-device/bin && cp .devcarry/fp8_lab_2ee91d5 lab-2ee91d5/build-device/bin/fp8_lab
for mode in 0 2; do # lab_step runs build-device/bin/fp8_lab from the working directory
  (cd lab-2ee91d5 && OUT=$OUT lab_step lab-halo-pipe-2ee91d5.txt "Block35 3x3 32->48 @35 b32" FP8_LAB_VARIANT=58,59,60,61,62 FP8_LAB_HALO_PREFETCH=$mode)
done
lab_step lab-halo-pipe.txt "Block35 3x3 48->64 @35 b32" FP8_LAB_VARIANT=58,59,60,61,62
(cd lab-2ee91d5 && lab_step lab-halo-pipe-2ee91d5.txt "Block35 3x3 48->64 @35 b32" FP8_LAB_VARIANT=58,59,60,61,62)
bench_step irv2-b32 inception_resnet_v2 32 110
PEER_MODES=compile peers_step inception_resnet_v2 32 130
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 140
bench_step v4-b1 inception_v4 1 60
PEER_MODES=compile peers_step inception_v4 1 70
pack_call call2
