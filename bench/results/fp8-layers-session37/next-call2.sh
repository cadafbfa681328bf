#!/usr/bin/env bash
# Prepared in session 37 (not run; compiled here): three patches, applied in this order, for
# nodes that session 37's replayed profile showed far from their roofline at IRv2 batch 32, in
# the fp16 and the FP8 graph alike (the stem is fp16 in both):
#   input-pack16.patch  the input node (float32 NCHW or uint8 crops -> fp16 NHWC, 3 channels padded
#                       to 8) writes one 16-byte word a pixel instead of eight 2-byte stores, with
#                       32-bit indices: 0.092 ms, where its 80 MB take 0.017 at the H200's bandwidth;
#   linear-rows.patch   the classifier (1536 -> 1000) runs a warp per output and 4 batch rows
#                       instead of one warp looping over all 32: 0.081 ms for a 3 MB weight matrix.
#                       Each dot product keeps its summation order: the same bits;
#   stem-direct8.patch  own fp16 variant 16, a direct conv on CUDA cores for c_in 8 (the padded
#                       image input): every output channel of a pixel a thread, the weights of the
#                       channels that carry data (i8_cuda_conv_args.c_in_used) as fp32 in shared
#                       memory, read as broadcasts: conv2d_1a took 0.072 ms on cuDNN where its
#                       bytes take 0.013. The tuner times it beside the others; INFER8_CUDA_OWN_VARIANT=16
#                       forces it where it fits, and test_per_op_graphs now runs every per-op graph so
#                       (asserting the convs over the image input ran on it).
# The per-node profile attributes each change to its node (input, linear, conv2d_1a).
# Here, before the call: git apply each patch in that order, then tools/prepare-device. Checks:
# cuda_tests (every family against the CPU reference; the uint8 path bit-identical to the float
# one, check_u8; the direct variant on the per-op graphs), the FP8 model tests, then IRv2 at batch
# 32 and 1 (session 37: x 1.207 / 1.046; fp16 3.681 / 0.810 ms) with the profile lines.
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
grep -h "conv2d_1a" "$OUT"/irv2-*/fp8-layers-*.tsv 2>/dev/null
pack_call next-call2
