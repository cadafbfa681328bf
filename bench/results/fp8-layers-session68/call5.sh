#!/usr/bin/env bash
# Session 68, call 5: the per-op GPU graphs (tests/lib/test_graph.c) with the pools that
# i8_pass_sink_avgpool leaves (bias and relu; 12 channels on the scalar pool kernel, 16 on the
# 3x3 one) against the CPU reference, with every other per-op case.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-150}
. tools/device-call.sh
call_setup
unit_test_step per_op test_cuda_backend test_per_op_graphs 120
grep -E -A4 "per-op graph: .*bias" "$OUT/per_op.log" | head -40
stamp end
pack_call call5
