#!/usr/bin/env bash
# Prepared in session 46 (not run yet): IRv2's example study again on the final code, at opt level 2
# (30 s of cuDNN plans per batch size and variant), so that its report carries the tuning notes
# and, if the fp16 baseline is still left partly untuned, the warning. Session 46's call 1 ran
# opt level 1 with the four default variants in 295 s. Here the variants are fp16 and `default`
# only, so that the longer tuning fits one call; the residual variants keep call 1's report.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
export WORK=/tmp/w STUDY_TAKE=2000
export STUDY_ARGS="--rounds 7 --iters 100 --opt-level 2 --variants fp16,fp8"
stamp "study inception_resnet_v2 (opt level 2)"
STUDY_ARCHES=inception_resnet_v2 timeout "$(cap 540)" tools/gpu-check study_full 2>&1 | tail -12
pack_call next-call2
