#!/usr/bin/env bash
# Session 49, call 4: issue 5's inception_v4 and inception_v3 rows on the final code (fp8_bench:
# fp16 against FP8 `default`, one process per model and batch, 7 interleaved rounds, 60 s cuDNN
# budget), each model's torch.compile peer in the same call. Session 45's calls 2-3 (the same steps,
# peers in both modes) took 212 s (v4) and 219 s (v3 without IRv2). Run after tools/prepare-device,
# carrying build-device/bin, build-device/tests/test_cuda_fp8 (the benchmark), build-device/tests/tools
# and .devcarry (not run in session 49: no device time was left):
#   bash bench/results/fp8-layers-session49/call4.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-450}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 80
bench_step v4-b1 inception_v4 1 50
PEER_MODES=compile peers_step inception_v4 32 90
PEER_MODES=compile peers_step inception_v4 1 70
bench_step v3-b32 inception_v3 32 70
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 1 60
pack_call call4
