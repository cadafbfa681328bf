#!/usr/bin/env bash
# Session 34 call 2, on the final GPU code (79fddfd: programmatic dependent launch as a timed
# whole-graph choice, choose_pdl, on by default). The GPU tests and the benchmark in one call:
# 1. test_cuda_fp8 whole (every FP8 GPU test, test_fp8_pdl among them), cuDNN budget 10 s.
# 2. IRv2 `default` at batch 32 and 1 against infer8's fp16 (fp8_bench: interleaved rounds, same
#    process; the bench line shows the launch choice's two graph times).
# Carry: build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-575}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
fp8_tests_step fp8_tests 340
grep -E "pass [0-9]: graph_pdl" "$OUT/fp8_tests.log"
bench_step irv2-b32 inception_resnet_v2 32 130
bench_step irv2-b1 inception_resnet_v2 1 60
pack_call call2
