#!/usr/bin/env bash
# `make demo`: synthesizes an inception_resnet_v2 snapshot (cached in .cache/demo after the
# first run), generates a few images and classifies them on the CPU, then runs a small FP8
# study (infer8 study: quality on the CPU; speed too when a GPU answers nvidia-smi).
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
"$INFER8" classify "$CACHE/irv2" --device cpu --topk 3 "$CACHE/images"
echo "== FP8 study on the CPU (quality part: 8 of 16 generated images, 4 calibrate; 2 stress inputs)"
"$INFER8" gen-images --count 16 --seed 200 --size 320x240 -o "$CACHE/study-images" >/dev/null
"$INFER8" study "$CACHE/irv2" --images "$CACHE/study-images" --take 8 --every 1 --calib 4 --stress 2 \
  --device cpu --roofline H200 -o "$CACHE/study"
grep "^- How far" "$CACHE/study/README.md" || true # the ceiling FP8 has on an H200 (roofline bound)
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
  echo "== FP8 study on the GPU (adds latency: batch 1 and 32, interleaved rounds)"
  "$INFER8" study "$CACHE/irv2" --images "$CACHE/study-images" --take 8 --every 1 --calib 4 --stress 2 \
    --device cuda -o "$CACHE/study-gpu" || echo "(GPU study failed: see the message above)"
  echo "GPU report: $CACHE/study-gpu/README.md"
fi
echo "== the study's report: $CACHE/study/README.md (study.json, kl.svg, bundles/)"
