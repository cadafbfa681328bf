#!/usr/bin/env bash
# `make demo`: synthesizes an inception_resnet_v2 snapshot (cached in .cache/demo after the
# first run), generates a few images and classifies them on the CPU.
set -euo pipefail
INFER8=${1:-build/bin/infer8}
cd "$(dirname "$0")/.."
CACHE=.cache/demo
mkdir -p "$CACHE"
if [ ! -f "$CACHE/irv2/model.safetensors" ]; then
  echo "== synthesizing an inception_resnet_v2 snapshot (seed 0) into $CACHE/irv2 (once)"
  "$INFER8" synth --arch inception_resnet_v2 --seed 0 -o "$CACHE/irv2"
fi
echo "== generating 4 test images into $CACHE/images"
"$INFER8" gen-images --count 4 --seed 100 -o "$CACHE/images"
echo "== inspect (totals)"
"$INFER8" inspect "$CACHE/irv2" | tail -n 12
echo "== classify"
"$INFER8" classify "$CACHE/irv2" --device cpu --topk 3 "$CACHE"/images/*.png
