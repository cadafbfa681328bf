#!/usr/bin/env bash
# Session 58, call 5: call 4's IRv2 batch-1 row, which needed build-device/tests/test_cuda_fp8 (not
# carried there), on the same warm machine as call 4's torch.compile peer (1.645 ms).
# Carry ["build-device/bin/infer8", "build-device/tests/test_cuda_fp8", "build-device/tests/tools", ".devcarry"].
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-200}
. tools/device-call.sh
call_setup
bench_step irv2-b1 inception_resnet_v2 1 90
pack_call call5
