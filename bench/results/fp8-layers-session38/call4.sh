#!/usr/bin/env bash
# Session 38, call 4: the direct kernel redone after call 3 (each thread 4 or 8 pixels, so a
# shared-memory weight load serves that many: variants 16 and 17). test_per_op_graphs forces
# each on the per-op graphs (against the CPU reference), conv_lab validates and times them on
# conv2d_1a's shape, then IRv2 batch 32 (does the tuner now take it for conv2d_1a?) and
# inception_v3 batch 32, whose row call 3's 120 s cap cut off.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-440}
. tools/device-call.sh
call_setup
stamp per_op_graphs
INFER8_TEST_FILTER=test_per_op_graphs INFER8_CUDA_CUDNN_BUDGET=4 timeout 90 build-device/tests/test_cuda_backend \
  >"$OUT/per_op_graphs.log" 2>&1; echo "test_per_op_graphs exit $?"
grep -E "^\[  (PASSED|FAILED)|^\[ +(FAILED|SKIPPED) " "$OUT/per_op_graphs.log"
stamp conv_lab
CONV_LAB_ONLY=conv2d_1a timeout 60 build-device/bin/conv_lab >"$OUT/conv_lab.txt" 2>&1; echo "conv_lab exit $?"
cat "$OUT/conv_lab.txt"
bench_step irv2-b32 inception_resnet_v2 32 110
grep -h "conv2d_1a" "$OUT"/irv2-*/fp8-layers-*.tsv 2>/dev/null | head -4
grep -h "profile " "$OUT"/irv2-*/fp8_bench.md 2>/dev/null
bench_step v3-b32 inception_v3 32 150
pack_call call4
