#!/usr/bin/env bash
# Session 58, call 4 (the budget's last 375 s): where the halo kernel's instructions go now, for the
# next session: Nsight Compute (SASS with instruction counts and stall samples) of halo128x32
# (variant 60, the tuner's pick) on Block35's 3x3 32->48 at batch 32, with this build (7067e8c) and
# with 2ee91d5's (before the leaner indices), as session 52's call 6 profiled it; then IRv2's
# batch-1 row with its torch.compile peer as far as the time goes.
# Carry ["build-device/bin/infer8", "build-device/tests/tools", ".devcarry"] (fp8_lab xz-packed there).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-300}
. tools/device-call.sh
call_setup
mkdir -p build-device/bin lab-2ee91d5/build-device/bin lab-2ee91d5/bench
xz -dc .devcarry/fp8_lab_7067e8c.xz >build-device/bin/fp8_lab && xz -dc .devcarry/fp8_lab_2ee91d5.xz >lab-2ee91d5/build-device/bin/fp8_lab &&
  chmod +x build-device/bin/fp8_lab lab-2ee91d5/build-device/bin/fp8_lab && cp bench/ncu_sass_stalls.py lab-2ee91d5/bench/
ncu_step ncu-halo60 "Block35 3x3 32->48 @35 b32" 0 60 halo
(cd lab-2ee91d5 && ncu_step ncu-halo60-2ee91d5 "Block35 3x3 32->48 @35 b32" 0 60 halo)
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 120
pack_call call4
