#!/usr/bin/env bash
# Session 53 (no device machine): what a kernel that computes each branch's reduction 1x1 inside the
# spatial conv reading it would give issue 5, from session 52's measured per-conv times (H100,
# tuned, each conv alone). tests/tools/critical_path --fuse-pairs FRAC moves FRAC of each fused
# 1x1's time into its consumer (0: free; 1: nothing gained) in the FP8 column only; the fp16 column
# stays as measured. Only pairs after the stem (FP8 in recipe `default`) are fused. One JSON line
# per model, batch and FRAC: the longest chain (batch 1's bound) and the sum of the convs (batch
# 32's) of both graphs. Run from a built checkout (build/tests/tools/critical_path):
#   bash bench/results/fp8-layers-session53/what-if.sh >bench/results/fp8-layers-session53/what-if.jsonl
set -euo pipefail
cd "$(dirname "$0")/../../.."
CP=${CP:-build/tests/tools/critical_path}
D=bench/results/fp8-layers-session52
row() { # arch batch tsv globs...   (FRACS: the fractions, default 1 0.5 0.25 0)
  local arch=$1 batch=$2 tsv=$3; shift 3
  local globs=() g; for g in "$@"; do globs+=(--fuse-match "$g"); done
  local base fr fused
  base=$("$CP" "random:$arch" "$tsv")
  for fr in ${FRACS:-1 0.5 0.25 0}; do
    fused=$("$CP" "random:$arch" "$tsv" --columns fp8_tuned_ms --fuse-pairs "$fr" "${globs[@]}")
    python3 - "$arch" "$batch" "$tsv" "$fr" "$base" "$fused" "$*" <<'PY'
import json, sys
arch, batch, tsv, frac, base, fused, globs = sys.argv[1:]
f16, f8 = [json.loads(l) for l in base.splitlines()]
fu = json.loads(fused)
print(json.dumps({"arch": arch, "batch": int(batch), "tsv": tsv, "fuse_match": globs.split(), "fuse_frac": float(frac), "fused_pairs": fu["fused_pairs"],
  "fp16_path_ms": f16["critical_path_ms"], "fp8_path_ms": f8["critical_path_ms"], "fp8_fused_path_ms": fu["critical_path_ms"],
  "x_path": round(f16["critical_path_ms"] / fu["critical_path_ms"], 3),
  "fp16_sum_ms": f16["conv_sum_ms"], "fp8_sum_ms": f8["conv_sum_ms"], "fp8_fused_sum_ms": fu["conv_sum_ms"],
  "x_sum": round(f16["conv_sum_ms"] / fu["conv_sum_ms"], 3)}))
PY
  done
}
row inception_resnet_v2 1 $D/call2/irv2-b1/fp8-layers-inception_resnet_v2-b1.tsv 'mixed*' 'repeat*' 'block8*'
row inception_resnet_v2 32 $D/call1/irv2-b32/fp8-layers-inception_resnet_v2-b32.tsv 'mixed*' 'repeat*' 'block8*'
row inception_v4 1 $D/call3/v4-b1/fp8-layers-inception_v4-b1.tsv 'features.[6-9]*' 'features.[12][0-9]*'
row inception_v4 32 $D/call2/v4-b32/fp8-layers-inception_v4-b32.tsv 'features.[6-9]*' 'features.[12][0-9]*'
row inception_v3 1 $D/call3/v3-b1/fp8-layers-inception_v3-b1.tsv 'Mixed*'
row inception_v3 32 $D/call2/v3-b32/fp8-layers-inception_v3-b32.tsv 'Mixed*'
# IRv2 at batch 1, one block type at a time: which pairs to write first
B1=$D/call2/irv2-b1/fp8-layers-inception_resnet_v2-b1.tsv
FRACS="0.5 0.25" row inception_resnet_v2 1 $B1 'repeat.[0-9]*' 'mixed_5b*'
FRACS="0.5 0.25" row inception_resnet_v2 1 $B1 'repeat_1.*'
FRACS="0.5 0.25" row inception_resnet_v2 1 $B1 'repeat_2.*' 'block8*'
FRACS="0.5 0.25" row inception_resnet_v2 1 $B1 'mixed_6a*' 'mixed_7a*'
