#!/usr/bin/env bash
# For session 60 (prepared in session 59, not run: the device budget ran out on refused starts):
# INFER8_CUDA_CARVEOUT, new and opt-in. Every kernel node of the forward's graphs gets one
# preferred shared-memory carveout (100: the most shared memory, which the TMA kernels need
# anyway), so that no kernel waits for its SM to drain and reconfigure between the TMA kernels and
# cuDNN's / the pools' (the CUDA docs: a launch with another preference "may insert a device-side
# synchronization point"); session 33 left open why own kernels lose about 2 us each inside the
# batch-1 graph. First test_fp8_carveout (bit-identical outputs at 100 / 0 / a bad value) and
# test_fp8_pdl (refactored onto the same helpers), then IRv2 at batch 1 and 32, each without and
# with INFER8_CUDA_CARVEOUT=100 on the same machine. Before (session 59, H100, ccbe5c5): IRv2 b1
# 0.812 / 0.766 ms x 1.060, b32 3.824 / 2.987 x 1.280. After tools/prepare-device, carry
# [".devcarry"] alone.
# Also first (a few seconds): dev/kernels/stage_lab, new, never run: what a chain of 175 dependent
# stand-in layers (IRv2's batch-1 critical path) costs a layer as CUDA-graph kernels, with PDL, and
# as one persistent kernel ordered by counters: whether a persistent forward at batch 1 is worth
# writing (the batch-1 goal needs about 3.1 us a conv on that path, against 3.5 now).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
stage_lab_run() { stamp "stage_lab $*"; { echo "### $*"; env "$@" timeout "$(cap 30)" build-device/bin/stage_lab; echo "exit $?"; } 2>&1 | tee -a "$OUT/stage-lab.txt"; }
stage_lab_run STAGE_LAB_STAGES=175
stage_lab_run STAGE_LAB_BYTES=16
stage_lab_run STAGE_LAB_BLOCKS=32
fp8_tests_step fp8_carveout 60 'test_fp8_carveout'
fp8_tests_step fp8_pdl 60 'test_fp8_pdl'
# the pools' e4m3 twins now convert two codes at a time (q_e4m3x4, the same rounding): the tests
# whose pools write e4m3 (max and average, read by FP8 convs) against the emulation
fp8_tests_step fp8_pool_twins 45 'test_fp8_dual_output_and_concat'
fp8_tests_step fp8_pool_conflict 45 'test_fp8_scale_conflict'
bench_step irv2-b1 inception_resnet_v2 1 75
INFER8_CUDA_CARVEOUT=100 bench_step irv2-b1-carve inception_resnet_v2 1 75
bench_step irv2-b32 inception_resnet_v2 32 115
INFER8_CUDA_CARVEOUT=100 bench_step irv2-b32-carve inception_resnet_v2 32 115
pack_call next1
