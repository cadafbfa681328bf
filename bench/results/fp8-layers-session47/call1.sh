#!/usr/bin/env bash
# Prepared at the end of session 46 (no device time left: 84 s of the budget, too little to start a
# machine): the one call owed on the final code before issue 5's session-46 changes count as done.
# In this order, each step capped so the whole fits one 600 s call (session 45's call 1: suites
# 157 s, IRv2 bench 107 s, peer 77 s; session 46's call 5: 75 s; call 4's v3 study: 99 s):
#   suites      test_cuda_fp8 (three processes by test name) beside cuda_tests
#   irv2-b32    issue 5's row: recipe `default` against infer8 fp16, same process, 7 interleaved
#               rounds (cuDNN budget 60 s), then its PyTorch peer (torch.compile) in the same call
#   build       'infer8 build --device cuda' warns at opt level 1 (untuned convs stored) and not at 2
#   study       a 200-image v3 study: the per-batch tables (refactored in bad5dbd), the tuning notes,
#               the layer-count guard (d6d2893), checked by tools/gpu-check.d/check_study.py
# Run from the checkout after tools/prepare-device, carrying build-device/bin,
# build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools} and .devcarry:
#   bash bench/results/fp8-layers-session46/next-call4.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_split_step 220
bench_step irv2-b32 inception_resnet_v2 32 130
peers_step inception_resnet_v2 32 110
INFER8=$PWD/build-device/bin/infer8
mkdir -p /tmp/w
if [ "$(left)" -gt 170 ]; then
  "$INFER8" synth --arch inception_v3 --seed 0 -o /tmp/w/v3 >/dev/null 2>&1 || echo "synth failed"
  for lvl in 1 2; do
    stamp "build opt level $lvl"
    timeout "$(cap 45)" "$INFER8" build /tmp/w/v3 --precision fp16 --device cuda --opt-level $lvl --max-batch 32 \
      -o "/tmp/w/v3-opt$lvl.bundle" >"$OUT/build-opt$lvl.txt" 2>&1
    echo "exit $?; $(grep -c "keep cuDNN's first configuration" "$OUT/build-opt$lvl.txt") warning line(s)"
    grep "first configuration" "$OUT/build-opt$lvl.txt" | head -2
  done
else
  echo "build check skipped: $(left) s left"
fi
if [ "$(left)" -gt 110 ]; then
  export WORK=/tmp/w STUDY_TAKE=200
  export STUDY_ARGS="--variants fp16,fp8 --opt-level 1 --rounds 3 --iters 50 --stress 4"
  stamp "study inception_v3 (small)"
  STUDY_ARCHES=inception_v3 timeout "$(cap 110)" tools/gpu-check study_full 2>&1 | tail -6
else
  echo "study skipped: $(left) s left"
fi
pack_call next-call4
