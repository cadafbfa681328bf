#!/usr/bin/env bash
# Session 38, call 1 (fresh machine): the three session-37 patches (input-pack16, linear-rows,
# stem-direct8) applied on 89b62d6, which also holds 6436191 and 793522e that no GPU has run yet.
#   cuda_tests      every CUDA family against the CPU reference, check_u8 (uint8 path bit-identical),
#                   the own direct variant 16 forced on the per-op graphs, the replayed profile's
#                   assertions of 793522e
#   fp8_models      the FP8 model tests (GPU against CPU emulation)
#   irv2-b32        IRv2 `default` vs fp16 at batch 32 with the patches, then the same with
#   irv2-b32-head   89b62d6's binary (.devcarry/head/test_cuda_fp8): the A/B on one machine
# Here, before the call: tools/prepare-device on 89b62d6, cp build-device/tests/test_cuda_fp8
# .devcarry/head/, git apply the three patches, tools/prepare-device again.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
check_step cuda_tests 170
grep -h "profile .* over the tuned convs\|own variant 16\|direct" "$OUT"/cuda_tests*.log 2>/dev/null | head -12
fp8_tests_step fp8_models 150 'test_inception*'
bench_step irv2-b32 inception_resnet_v2 32 110
FP8_BENCH_BIN=.devcarry/head/test_cuda_fp8 bench_step irv2-b32-head inception_resnet_v2 32 110
grep -h "profile " "$OUT"/irv2-*/fp8_bench.md 2>/dev/null
grep -h "conv2d_1a\|^input\|linear" "$OUT"/irv2-*/fp8-layers-*.tsv 2>/dev/null | head -12
pack_call call1
