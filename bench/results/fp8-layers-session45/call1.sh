#!/usr/bin/env bash
# Session 45, call 1 (session 44's next-call1.sh, run as prepared): the check owed since session 43.
# Both GPU suites on the final test binaries (session 44's cuBLASLt dlopen table, session 45's
# non-blocking file opens, open-option checks and bundle name checks), then issue 5's IRv2
# batch-32 row and its PyTorch peer, in one call.
#   suites     test_cuda_fp8 (all tests, three processes by name) beside cuda_tests
#   irv2-b32   recipe `default` against infer8 fp16, same process, 7 interleaved rounds
#   peers      peers_torch.py on the IRv2 snapshot at batch 32 (eager in a CUDA graph, torch.compile)
# Run from the checkout after tools/prepare-device, as the device call
#   bash bench/results/fp8-layers-session45/call1.sh
# carrying build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}
# and .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_split_step 330
bench_step irv2-b32 inception_resnet_v2 32 130
peers_step inception_resnet_v2 32 200
pack_call call1
