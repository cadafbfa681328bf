#!/usr/bin/env bash
# For session 58 (prepared in session 57, not run): the final code's GPU check after the mixed
# kernels with 64-channel rests (variants 73-75) became default. Session 57's call 4 (H200) ran
# their forced GPU tests (passed) and v4 at batch 32 with INFER8_CUDA_FP8_M64=1 (x 1.166, no
# peer); not yet run with them default: the whole test_fp* suite (its call 2 needed more than 160 s
# on an H100: cap 240 here) and the rows on an H100 with their peers. Then v4 and v3 at batch 32,
# each with its torch.compile peer (before, session 57 call 1, H100, without 73-75: v4 x 1.146,
# FP8 2.403 ms; v3 x 1.156, FP8 1.459 ms). next-call2.sh has IRv2 and the batch-1 rows.
# Carry ["build-device/bin/infer8", "build-device/tests/test_cuda_fp8", "build-device/tests/tools",
# ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_all 240 'test_fp*'
bench_step v4-b32 inception_v4 32 100
PEER_MODES=compile peers_step inception_v4 32 80
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 60
pack_call next1
