#!/usr/bin/env bash
# Session 49, call 3: issue 5's two IRv2 rows on an H200 (calls 1-2 ran on an H100): fp8_bench
# (fp16 against FP8 `default`, one process, 7 interleaved rounds, 60 s cuDNN budget) at batch 32
# and at batch 1, each followed by its torch.compile peer in the same call. In calls 1-2 these
# four steps took 123 + 93 + 55 + 78 s. Run after tools/prepare-device, carrying
# build-device/bin, build-device/tests/test_cuda_fp8 (the benchmark is in it), build-device/tests/tools
# and .devcarry: bash bench/results/fp8-layers-session49/call3.sh. Ran on an H200 carrying the three
# others only: both benchmarks exited 127 (call3/), the peers ran; call3b.sh reran the benchmarks.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 130
PEER_MODES=compile peers_step inception_resnet_v2 32 150
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 120
pack_call call3
