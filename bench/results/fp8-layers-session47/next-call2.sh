#!/usr/bin/env bash
# Prepared in session 47 (device paused after call 1): the GPU check owed on the final code, in one
# call. Call 1 ran session 46's next-call4.sh: suites 192 s, IRv2 bench 134 s, and its torch.compile
# peer ran out of 110 s while compiling, so the peer gets 200 s here and the build warning and the
# small study (both covered elsewhere: next-call1.sh builds, call 1's study) are left out.
#   suites      test_cuda_fp8 (three processes by test name) beside cuda_tests
#   irv2-b32    issue 5's row: recipe `default` against infer8 fp16, same process, 7 interleaved
#               rounds (cuDNN budget 60 s), then its PyTorch peer (torch.compile) in the same call
# Run from the checkout after tools/prepare-device, carrying build-device/bin,
# build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools} and .devcarry:
#   bash bench/results/fp8-layers-session47/next-call2.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_split_step 220
bench_step irv2-b32 inception_resnet_v2 32 130
PEER_MODES=compile peers_step inception_resnet_v2 32 200
pack_call next-call2
