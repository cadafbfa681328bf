#!/usr/bin/env bash
# Prepared in session 37 (not run; compiled here): input-pack16.patch writes the input node's fp16
# NHWC pixels (3 channels padded to 8) with one 16-byte store each, from float32 NCHW and from
# uint8 crops, instead of eight 2-byte stores; 32-bit pixel indices. Session 37's replayed profile
# has the input node at 0.092 ms at IRv2 batch 32 (fp16 and FP8 graphs alike), where its 80 MB
# take 0.017 ms at the H200's bandwidth; it is the first node, on every path.
# Here, before the call: git apply bench/results/fp8-layers-session37/input-pack16.patch, then
# tools/prepare-device. Checks: cuda_tests (every family against the CPU reference; the uint8
# path bit-identical to the float one, check_u8), the FP8 model tests, then IRv2 at batch 32 and 1
# (session 37: x 1.207 / 1.046; fp16 3.681 / 0.810 ms) with the profile's input figure.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
check_step cuda_tests 170
fp8_tests_step fp8_models 150 'test_inception*'
bench_step irv2-b32 inception_resnet_v2 32 110
bench_step irv2-b1 inception_resnet_v2 1 85
grep -h "profile " "$OUT"/irv2-*/fp8_bench.md 2>/dev/null
pack_call next-call2
