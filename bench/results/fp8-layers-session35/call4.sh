#!/usr/bin/env bash
# Session 35, call 4, on the final GPU code (as calls 2 and 3), the machine still warm: IRv2
# `default` at batch 32 again, default tuning (a second sample of call 1's row: merge choice,
# priority choice, launch choice).
# Carry: build-device/bin, build-device/tests/tools, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-200}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
bench_step irv2-b32 inception_resnet_v2 32 140
pack_call call4
