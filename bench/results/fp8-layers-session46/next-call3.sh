#!/usr/bin/env bash
# Prepared in session 46 (not run yet): inception_v3's example study again on the final code at opt
# level 2 (session 46's call 5: v3's fp16 graph is fully tuned at that level), with fp16 and
# `default` under the four calibration methods as in call 2 (287 s at opt level 1). Then
# inception_v4's in the time left, if at least 330 s are (call 3: 327 s at opt level 1).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
export WORK=/tmp/w STUDY_TAKE=2000
export STUDY_ARGS="--rounds 7 --iters 100 --opt-level 2 --variants fp16,fp8 --calib-methods max,percentile,entropy,mse"
for arch in inception_v3 inception_v4; do
  if [ "$(left)" -lt 330 ]; then echo "$arch skipped: $(left) s left"; continue; fi
  stamp "study $arch (opt level 2)"
  STUDY_ARCHES=$arch timeout "$(cap 400)" tools/gpu-check study_full 2>&1 | tail -8
done
pack_call next-call3
