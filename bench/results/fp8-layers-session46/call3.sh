#!/usr/bin/env bash
# Session 46, call 3: the example study of inception_v4 on the final code (protocol as call 1),
# with all four calibration methods (max, percentile 99.99, entropy, mse): the reference study
# left percentile and entropy calibration unmeasured. v4 has no residual blocks, so its variants
# are fp16 and recipe `default` once per method.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
export WORK=/tmp/w STUDY_TAKE=2000
export STUDY_ARGS="--rounds 7 --iters 100 --opt-level 1 --variants fp16,fp8 --calib-methods max,percentile,entropy,mse"
stamp "study inception_v4"
STUDY_ARCHES=inception_v4 timeout "$(cap 540)" tools/gpu-check study_full 2>&1 | tail -12
pack_call call3
