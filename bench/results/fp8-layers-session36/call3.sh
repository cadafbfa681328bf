#!/usr/bin/env bash
# Session 36, call 3: issue 5's quality columns on the final code (the README's table came from
# a73f723's studies, before the FP8 contract changed in 9ebde82): infer8 study --device cuda,
# variants fp16 and fp8 (recipe default), 1000 generated images (250 calibrate, 750 held out),
# speed at batch 32 only, for IRv2, then v3, then v4 as the call's time allows.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
export WORK=/tmp/w STUDY_TAKE=1000
export STUDY_ARGS="--variants fp16,fp8 --batch 32 --rounds 3 --iters 50 --opt-level 1 --stress 8"
for arch in inception_resnet_v2 inception_v3 inception_v4; do
  if [ "$(left)" -lt 150 ]; then echo "$arch skipped: $(left) s left"; continue; fi
  stamp "study $arch"
  STUDY_ARCHES=$arch timeout "$(cap 300)" tools/gpu-check study_full 2>&1 | tail -8
done
pack_call call3
