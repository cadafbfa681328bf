#!/usr/bin/env bash
# Session 46, call 1: the committed example study of inception_resnet_v2 (docs/studies/) made again
# on the final code, with the reference study's protocol: synth seed-0 snapshot, 2000 generated
# images (500 calibrate, 1500 held out), all 36 stress inputs, the four default variants (fp16,
# `default`, residual-fp8:10-39, residual-fp8; max calibration), speed at batch 1 and 32 (7 rounds
# of 100 graph replays), opt level 1 (10 s of cuDNN plans per batch size and variant) to fit the
# call. tools/gpu-check.d/check_study.py then checks the report's per-layer tables against its JSON.
# Run as: bash bench/results/fp8-layers-session46/call1.sh (carry as session 45's calls).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
export WORK=/tmp/w STUDY_TAKE=2000
export STUDY_ARGS="--rounds 7 --iters 100 --opt-level 1"
stamp "study inception_resnet_v2"
STUDY_ARCHES=inception_resnet_v2 timeout "$(cap 540)" tools/gpu-check study_full 2>&1 | tail -12
pack_call call1
