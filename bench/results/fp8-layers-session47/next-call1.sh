#!/usr/bin/env bash
# Prepared in session 47, not yet run (call 1 ran; then two starts were refused and the device was
# paused for the session): the measurement that decides whether the shared cuDNN budget
# (INFER8_CUDA_CUDNN_SHARE=1, src/backends/cuda/cudnn_budget.h) becomes the default. IRv2 fp16 has
# 39 conv problems; session 46's study at opt level 1 left 30 of 39 at batch 1 and 24 at batch 32
# on cuDNN's first config under the default first come, first served spending.
#   cuda_tests   the CUDA suite with the shared budget (each test tunes; a 4 s budget)
#   builds       IRv2 fp16 bundles tuned on this GPU at opt level 1 and 2, first come (default) and
#                shared: each build's warning lines (the build warning's first GPU run) and the
#                tuner's counts per batch (INFER8_CUDA_DEBUG)
#   bench        the four bundles in one interleaved run, batch 1 and 32, 7 rounds of 100 replays
#                (stored tactics restored: each runs as its build tuned it)
#   peers        torch.compile on the same weights, same call, when the time is left
# Run from the checkout after tools/prepare-device, carrying build-device/bin,
# build-device/tests/{test_cuda_backend,tools} and .devcarry:
#   bash bench/results/fp8-layers-session47/next-call1.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
export WORK=/tmp/gpu-check-work
INFER8=$PWD/build-device/bin/infer8
SNAP=$WORK/inception_resnet_v2
mkdir -p "$WORK"
stamp "synth"
"$INFER8" synth --arch inception_resnet_v2 --seed 0 -o "$SNAP" >/dev/null 2>"$OUT/synth.log" || { echo "synth failed"; tail -3 "$OUT/synth.log"; }
INFER8_CUDA_CUDNN_SHARE=1 check_step cuda_tests 170
build_one() { # NAME OPT SHARE CAP
  if [ "$(left)" -lt "$4" ]; then echo "build $1 skipped: $(left) s left"; return 0; fi
  stamp "build $1 (opt level $2, INFER8_CUDA_CUDNN_SHARE=$3)"
  INFER8_CUDA_CUDNN_SHARE=$3 INFER8_CUDA_DEBUG=1 timeout "$(cap "$4")" "$INFER8" build "$SNAP" --precision fp16 --device cuda \
    --opt-level "$2" --max-batch 32 -o "$WORK/irv2-$1.bundle" >"$OUT/build-$1.txt" 2>&1
  echo "exit $?; $(grep -c "keep cuDNN's first configuration" "$OUT/build-$1.txt") warning line(s)"
  grep -E "first configuration|conv problems tuned in" "$OUT/build-$1.txt" | cut -c1-240
}
build_one opt1-first-come 1 0 70
build_one opt1-shared 1 1 70
build_one opt2-first-come 2 0 110
build_one opt2-shared 2 1 110
if [ "$(left)" -gt 50 ]; then
  stamp "bench"
  bundles=()
  for b in opt2-first-come opt2-shared opt1-first-come opt1-shared; do [ -f "$WORK/irv2-$b.bundle" ] && bundles+=("$WORK/irv2-$b.bundle"); done
  timeout "$(cap 80)" "$INFER8" bench "${bundles[@]}" --device cuda --batch 1,32 --rounds 7 --iters 100 \
    -o "$OUT/bench-tuner.json" >"$OUT/bench-tuner.txt" 2>&1
  echo "bench exit $?"
  cut -c1-200 "$OUT/bench-tuner.txt"
fi
PEER_MODES=compile peers_step inception_resnet_v2 1,32 190
pack_call next-call1
