#!/usr/bin/env bash
# infer8 synth: the same seed gives the same bytes whatever the thread count (the oracle
# fixtures depend on it across machines), another seed gives other weights, and the classifier
# spreads predictions like a trained model's (top-1 probability mostly within 0.2..0.9, many
# distinct classes) on images the calibration did not see.
. "$SRC/tests/lib/common.sh"
"$INFER8" synth --arch inception_v3 --seed 7 --calib-images 6 --threads 1 -o "$WORK/t1" 2>/dev/null
"$INFER8" synth --arch inception_v3 --seed 7 --calib-images 6 --threads 2 -o "$WORK/t2" 2>/dev/null
"$INFER8" synth --arch inception_v3 --seed 8 --calib-images 6 -o "$WORK/s8" 2>/dev/null
cmp "$WORK/t1/model.safetensors" "$WORK/t2/model.safetensors" || fail "synth differs between 1 and 2 threads"
cmp "$WORK/t1/config.json" "$WORK/t2/config.json" || fail "config.json differs between runs"
if cmp -s "$WORK/t1/model.safetensors" "$WORK/s8/model.safetensors"; then fail "seeds 7 and 8 gave the same weights"; fi
echo "ok: deterministic across thread counts, seed-dependent"

snap=$(snapshot inception_v3 0)
"$INFER8" gen-images --count 16 --seed 9000 -o "$WORK/images" 2>/dev/null
"$INFER8" classify "$snap" --json "$WORK"/images/*.png > "$WORK/out.jsonl"
/usr/bin/python3 - "$WORK/out.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
p = [r["top"][0]["probability"] for r in rows]
classes = {r["top"][0]["index"] for r in rows}
inside = sum(0.2 <= x <= 0.9 for x in p)
print(f"top-1 probabilities {sorted(round(x, 2) for x in p)}; {inside}/{len(p)} within 0.2..0.9; "
      f"{len(classes)} distinct classes")
assert inside >= len(p) // 2, "fewer than half the images have top-1 probability within 0.2..0.9"
assert 0.25 <= statistics.median(p) <= 0.85, statistics.median(p)
assert len(classes) >= 8, "predictions collapse onto few classes"
PY
