#!/usr/bin/env bash
# Prepared in session 53 (no device machine was lent that session; not run yet): the final code's
# whole-model FP8 tests and the batch-1 rows of issue 5 with their torch.compile peers, in one call.
# Run after bench/results/fp8-layers-session52/next-call1.sh (the halo modes; IRv2's batch-32 row),
# on the same warm machine if possible, then next-call3.sh:
#   fp8_v3, fp8_irv2       test_cuda_fp8's whole-model tests (GPU FP8 against the CPU emulation), side by side
#   irv2-b1, v4-b1, v3-b1  fp16 against FP8 `default`, 7 interleaved rounds
#   peers-*-b1             peers_torch.py (torch.compile) on the same snapshots, same call; v4's and
#                          v3's batch-1 peers are owed since session 52
# Run after tools/prepare-device, carrying build-device/bin, build-device/tests/test_cuda_fp8,
# build-device/tests/tools and .devcarry:
#   bash bench/results/fp8-layers-session53/next-call2.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
suites_parts 0 8 "fp8_v3 220 test_inception_v3_fp8*" "fp8_irv2 220 test_inception_resnet_v2*"
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 90
bench_step v4-b1 inception_v4 1 70
PEER_MODES=compile peers_step inception_v4 1 80
bench_step v3-b1 inception_v3 1 60
PEER_MODES=compile peers_step inception_v3 1 70
pack_call next-call2
