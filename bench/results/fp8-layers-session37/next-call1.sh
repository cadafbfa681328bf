#!/usr/bin/env bash
# Prepared in session 37 (not run; the device budget was spent): test_cuda_backend's profile
# check as 793522e made it (a second profile call adds into the first's array; over
# the convs the tuner timed, the replayed profile's sum within 2x of the tuner's), in cuda_tests,
# then IRv2 `default` at both batch sizes (session 37: x 1.046 / 1.207). It also runs, for the
# first time on a GPU, 6436191: the tuner's time_plan and cuda_profile share i8_cuda_captured_ms
# (a refactor of code that ran in session 37's calls; behaviour meant unchanged: the tuned
# tactics, the x and the profile's agreement with the tuner should match session 37's).
# Here, before the call: tools/prepare-device.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
check_step cuda_tests 170
grep -h "profile .* over the tuned convs" "$OUT"/cuda_tests*.log 2>/dev/null | head -12
bench_step irv2-b32 inception_resnet_v2 32 110
bench_step irv2-b1 inception_resnet_v2 1 85
pack_call next-call1
