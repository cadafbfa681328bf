#!/usr/bin/env bash
# Prepared for the next session (not run): pdl-noprio.patch's two follow-ups of the launch choice.
# Before the call, here: git apply bench/results/fp8-layers-session34/pdl-noprio.patch && tools/prepare-device
# Carry: build-device/bin, build-device/tests/test_cuda_fp8, build-device/tests/tools, .devcarry.
# 1. test_fp8_pdl and test_fp8_priority (the choices' GPU tests).
# 2. IRv2 `default` at batch 32: default (the third candidate, PDL without priorities), then with
#    INFER8_CUDA_PDL_TUNE=1 (each conv tuned with PDL launches).
# 3. inception_v3 at batch 32 (PDL with priorities lost there in session 34's call 3) and
#    inception_v4 at batch 32 (PDL won there), both default.
# Compare with session 34 (IRv2 b32 x 1.194, v3 b32 x 1.054, v4 b32 x 1.101; call 1 with PDL forced
# everywhere: IRv2 b32 x 1.200).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-580}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
fp8_tests_step fp8_tests_choice 60 "test_fp8_p*"
grep -E "pass [0-9]: graph_pdl|critical path" "$OUT/fp8_tests_choice.log"
bench_step irv2-b32 inception_resnet_v2 32 130
INFER8_CUDA_PDL_TUNE=1 bench_step irv2-b32-pdltune inception_resnet_v2 32 130
bench_step v3-b32 inception_v3 32 85
bench_step v4-b32 inception_v4 32 95
pack_call next-call1
