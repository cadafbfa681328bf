#!/usr/bin/env bash
# Session 46, call 4: the GPU suites on the final code (cuda_backend.c now also reports each batch's
# cuDNN budget, for infer8_get_tuning), then a small inception_v3 study at opt level 1 (200 images,
# 50 calibrate) whose fp16 baseline the 10 s budget leaves under-tuned (call 2: 23 fp16 problems at
# batch 1 and 15 at batch 32 on cuDNN's first config): tools/gpu-check.d/check_study.py checks the
# report's tuning notes, its warning and that no "ship" rests on them, besides the per-layer tables.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-420}
. tools/device-call.sh
call_setup
suites_split_step 200
export WORK=/tmp/w STUDY_TAKE=200
export STUDY_ARGS="--variants fp16,fp8 --opt-level 1 --rounds 3 --iters 50 --stress 4"
stamp "study inception_v3 (small)"
STUDY_ARCHES=inception_v3 timeout "$(cap 200)" tools/gpu-check study_full 2>&1 | tail -10
pack_call call4
