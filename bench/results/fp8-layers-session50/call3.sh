#!/usr/bin/env bash
# Session 50, call 3 (run inline on call 2's warm machine, recorded here): test_fp8_halo again after
# its expected count was corrected to the 37 cases call 2 ran (every output had passed there), then
# IRv2's batch-1 row. Carry: build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-250}
. tools/device-call.sh
call_setup
unit_test_step halo test_cuda_fp8 "test_fp8_halo" 60
bench_step irv2-b1 inception_resnet_v2 1 100
pack_call call3
