#!/usr/bin/env bash
# Prepared in session 48, not run (the H100 and H200 starts after the review were refused; 387 s of budget left cannot hold it): after the review's mend (92ddafc: the float-bit helpers moved into
# core/i8.h), with 477 s of device budget left: issue 5's IRv2 batch-32 row (fp8_bench, 7
# interleaved rounds, 60 s cuDNN budget) and its torch.compile peer first, then the GPU suites
# with the time left. Run after tools/prepare-device, carrying build-device/bin,
# build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools} and .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-330}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 125
PEER_MODES=compile peers_step inception_resnet_v2 32 150
suites_split_step "$(left)"
pack_call call4
