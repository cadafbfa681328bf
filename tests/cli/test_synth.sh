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

# classify --batch: batched forwards give the same logits as one image at a time (the reference
# executor is deterministic per image), in input order; an unreadable file in a batch is named
# and skipped while the others still print.
"$INFER8" classify "$snap" --json --batch 5 "$WORK"/images/*.png > "$WORK/batched.jsonl"
"$INFER8" classify "$snap" --json --batch 1 "$WORK"/images/img_0090{00,01,02}.png > "$WORK/single.jsonl"
/usr/bin/python3 - "$WORK/out.jsonl" "$WORK/batched.jsonl" "$WORK/single.jsonl" <<'PY'
import json, sys
a, b, c = ([json.loads(l) for l in open(p)] for p in sys.argv[1:4])
assert [r["image"] for r in a] == [r["image"] for r in b], "batched output out of order"
assert all(x["logits"] == y["logits"] for x, y in zip(a, b)), "batch 5 logits differ from the default batch"
assert all(x["logits"] == y["logits"] for x, y in zip(a[:3], c)), "batch 1 logits differ"
print("ok: --batch 5 and --batch 1 give identical logits")
PY
printf 'not an image' > "$WORK/bad.png"
rc=0
"$INFER8" classify "$snap" --batch 3 --topk 1 "$WORK/images/img_009000.png" "$WORK/bad.png" "$WORK/images/img_009001.png" \
  >"$WORK/mixed.out" 2>"$WORK/mixed.err" || rc=$?
[ "$rc" -eq 2 ] || fail "a corrupt image in a batch: exit $rc, expected 2"
grep -q "bad.png" "$WORK/mixed.err" || fail "the corrupt image is not named"
[ "$(grep -c '^/.*img_00900[01].png$' "$WORK/mixed.out")" -eq 2 ] || fail "the readable images of the batch were not printed"
echo "ok: a corrupt image in a batch is named, the others still classified"
