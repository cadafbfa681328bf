#!/usr/bin/env bash
# Session 40 call 1: session 39's next-call1.sh as prepared, on HEAD 0f48a74 with pool3-mlp.patch,
# stem-packk-mlp.patch and conv-epilogue.patch applied (in that order), then tools/prepare-device.
# Prepared in session 39 (compiled here: ptxas no spills, 113-115 registers; not run: the device
# budget was spent). pool3-mlp.patch replaces pool_s1w3_kernel (a4c4be0) with pool3_kernel<S, R>
# for every 3x3 pool of stride 1 (R = 4 outputs a thread) or 2 (R = 2) over 8-channel groups:
# each thread issues the loads of all the input pixels its outputs' windows cover before it sums
# any (18 or 15 16-byte loads in flight, where pool_s1w3_kernel had 3). Session 39's profile:
# inception_v4's average pools 0.552 ms at batch 32 (bytes bound about 0.11), v3's 0.28, every
# family's max pools 0.10-0.11.
# Its index arithmetic gives pool_kernel's bits in pool3_emu.py (numpy, 13 shapes x 3 modes).
# stem-packk-mlp.patch does the same for packk128's gather (own fp16 variant 16, the stem's first
# conv: 0.068 ms at IRv2 batch 32 against a bytes bound of 0.02): a thread's first 5 taps (all of
# a 3x3's) are loaded before any is stored; __launch_bounds__(256, 4): 48-64 registers, no spills.
# The shared-memory tile it writes is the same as before, tap for tap.
# Review of the change (after f49f213): pool3-mlp.patch also gives pool_kernel and pool3_kernel
# one window step (pool_step) and one output store (store_pool<V>, fp16 and the e4m3 twin), which
# they had as near-copies; conv-epilogue.patch (stacked on stem-packk-mlp.patch) gives the GEMM
# kernels and packk128 one epilogue (conv_store8: bias, residual, relu, one fp16 rounding), which
# packk128 had copied. The sums and their order are unchanged; the wmma kernels' binaries change
# (1376-2304 instructions, were 1432-2344), so cuda_tests' forced-own per-op graphs and models
# check them. Compiled together here: no spills.
# Here, before the call, in this order: git apply bench/results/fp8-layers-session39/pool3-mlp.patch,
# stem-packk-mlp.patch, conv-epilogue.patch (they apply on 5ad6ec5), then tools/prepare-device.
# Land the epilogue and pool helpers even if the kernels' new load order does not pay.
# Checks, in order:
#   cuda_tests  the per-op pool graphs (3x3 s2 max and average over 16 channels; since ba06415 the
#               blocks' s1 averages over 16 channels, excluding and including padding, not yet run
#               on a GPU; the concat case's s1 average and s2 max over 32 and more), the per-op
#               graphs with variant 16
#               forced on the padded-input convs, and the three models against the CPU reference
#   conv_lab    packk128 against the double reference on conv2d_1a (session 39: 69.5 us at b32)
#   v4-b32      the profile's avgpool / maxpool lines (session 39 call 4: 0.552 / 0.106 fp16)
#   fp8 v3      test_inception_v3_fp8 (pools writing the e4m3 twin)
#   v3-b32, irv2-b32  the same lines, the x, and the TSVs' stem conv rows (session 39: 0.068 ms)
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
check_step cuda_tests 170
conv_lab_step conv2d_1a
bench_step v4-b32 inception_v4 32 100
fp8_tests_step fp8_v3 90 'test_inception_v3_fp8'
bench_step v3-b32 inception_v3 32 110
bench_step irv2-b32 inception_resnet_v2 32 110
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
grep -h -P "\t(conv2d_1a|features.0|Conv2d_1a_3x3)\t" "$OUT"/*/fp8-layers-*.tsv 2>/dev/null
pack_call call1
