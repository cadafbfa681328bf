#!/usr/bin/env bash
# Session 51, call 1: three ping-pong consumers (variants 66 tma128x64s4p3, 67 tma128x64s4p3r, 68
# tma128x64s4p3c, 69 tma128x64s4p3cm: 512 threads, the producer warpgroup's registers handed to the
# consumers with setmaxnreg) timed in the lab against the two-consumer kernels, tested, and IRv2's
# batch-32 row with and without them in the tuning, then its torch.compile peer in the same call.
#   lab-*.txt   fp8_lab, batch 32, every output checked against the lab's double-precision reference:
#               the three residual up-projections (mode 4, q->dual+res: 50 s4r, 53 s4pr, 67 p3r), the
#               Block17 branch 1x1 (48 s4, 52 s4p, 66 p3), the 1x7 (56 s4pc, 68 p3c), the 7x1 (63
#               s4pcm, 69 p3cm)
#   fp8_small   test_cuda_fp8's tests of single ops and small graphs (test_fp*): the TMA tile loop with
#               three consumers, their residual, store paths, im2col cases and chains, INFER8_CUDA_FP8_SKIP
#   irv2-b32    issue 5's row: fp16 against FP8 `default`, 7 interleaved rounds, 60 s cuDNN budget
#   irv2-b32-nop3  the same with INFER8_CUDA_FP8_SKIP=66,67,68,69: the whole-graph A/B, same machine
#   peers-*     peers_torch.py (torch.compile) on the same snapshot, same call
# Run after tools/prepare-device, carrying build-device/bin, build-device/tests/test_cuda_fp8,
# build-device/tests/tools and .devcarry:
#   bash bench/results/fp8-layers-session51/call1.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
R="FP8_LAB_MODE=4 FP8_LAB_VARIANT=50,53,67"
lab_step lab-p3.txt "Block17 up 1x1 384->1088 @17 b32 +res" $R
if grep -q "exit 124" "$OUT/lab-p3.txt"; then # a three-consumer kernel hung: the A/B's other half and the peer only
  echo "p3 kernels hung in the lab: their tests and tuning skipped"
  INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step irv2-b32-nop3 inception_resnet_v2 32 130
  PEER_MODES=compile peers_step inception_resnet_v2 32 150
  pack_call call1
  exit 0
fi
lab_step lab-p3.txt "Block35 up 1x1 128->320 @35 b32 +res" $R
lab_step lab-p3.txt "Block8 up 1x1 448->2080 @8 b32 +res" $R
lab_step lab-p3.txt "Block17 branch 1x1 1088->192 @17 b32" FP8_LAB_VARIANT=48,52,66
lab_step lab-p3.txt "Block17 siblings merged 1x1 1088->320 @17 b32" FP8_LAB_VARIANT=48,52,66
lab_step lab-p3.txt "Block17 1x7 128->160 @17 b32" FP8_LAB_VARIANT=54,56,68
lab_step lab-p3.txt "Block17 7x1 160->192 @17 b32" FP8_LAB_VARIANT=63,69
fp8_tests_step fp8_small 200 'test_fp*'
bench_step irv2-b32 inception_resnet_v2 32 130
INFER8_CUDA_FP8_SKIP=66,67,68,69 bench_step irv2-b32-nop3 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 150
pack_call call1
