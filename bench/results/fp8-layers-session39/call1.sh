#!/usr/bin/env bash
# Ran as session 39 call 1 (stem-packk.patch applied, plus the SM count from the ctx), unchanged from
# bench/results/fp8-layers-session38/next-call1.sh but for this header.
# Prepared in session 38 (compiled here, ptxas: no spills, 32-56 registers; not run: the device
# budget was spent). stem-packk.patch gives the stem's first conv (c_in 8: the image's 3 channels
# padded) own fp16 variant 16, "packk128": an implicit GEMM on wmma whose K packs only the
# channels that carry data (3x3 x 3 = 27, padded to 32, where the GEMM variants see 72 and cuDNN
# takes 0.071 ms at IRv2 batch 32). A block gathers 128 output pixels' windows into shared memory,
# multiplies on the tensor cores, and walks its share of the tiles (one block per SM slot), so
# the packed weights are loaded once a block. The direct kernels of session 38 (CUDA cores) lost:
# they were bound by the instructions they issued; here a pixel's 27 x 32 multiply-adds go to the
# tensor cores, and what the threads issue is the gather (two threads a pixel, 4-5 taps each) and
# the epilogue.
# Its index arithmetic matches a direct conv in packk_emu.py (numpy, every shape it is forced on).
# Here, before the call: git apply bench/results/fp8-layers-session38/stem-packk.patch, then
# tools/prepare-device. Checks, in order:
#   per_op_graphs  test_per_op_graphs with variant 16 forced on every conv over the padded input
#                  (3x3 and 5x5, 12 to 64 outputs) against the CPU reference
#   conv_lab       variant 16 against the double-precision reference on conv2d_1a's shapes
#                  (3 live channels at batch 32 and 1; all 8 live at batch 1) and its time beside
#                  the GEMM variants (session 38: wmma128x64 119 us at batch 32; cuDNN 71 in the model)
#   IRv2 b32, b1   does the tuner take it for conv2d_1a (the TSV's conv2d_1a row: tactic own,
#                  variant 16), and the x (session 38: 1.230 / 1.046)
#   v3 b32         the same stem conv (Conv2d_1a_3x3)
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
unit_test_step per_op_graphs test_cuda_backend test_per_op_graphs 90
conv_lab_step conv2d_1a
bench_step irv2-b32 inception_resnet_v2 32 140
grep -h "conv2d_1a" "$OUT"/irv2-*/fp8-layers-*.tsv 2>/dev/null | head -2
bench_step irv2-b1 inception_resnet_v2 1 90
bench_step v3-b32 inception_v3 32 150
grep -h "Conv2d_1a_3x3" "$OUT"/v3-*/fp8-layers-*.tsv 2>/dev/null | head -2
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call next-call1
