# --adaptive-rounding (quant/fp16_round.c) end to end on a synthetic inception_v3: the fp16
# bundle built with --adaptive-rounding stem over 4 calibration images stores the stem convs'
# weights as fp16 values within 2.5 fp16 ulps of the fp32 checkpoint's folded kernels (read here
# with numpy from the documented layout, an independent reader), some of them away from round to
# nearest, and every other conv exactly as the plain fp16 bundle; the header lists the rounded
# convs with their calibration-set error; on 4 other images the fp16 emulation (--device ref
# --fp16-activations) moves closer to fp32 than the plain fp16 bundle; bad uses are refused.
source "$SRC/tests/lib/common.sh"
snap=$(snapshot inception_v3)
"$INFER8" gen-images --count 4 --seed 11 -o "$WORK/img" >/dev/null || fail "gen-images"
"$INFER8" gen-images --count 4 --seed 12 -o "$WORK/calib" >/dev/null || fail "gen-images calib"
imgs=("$WORK"/img/*.png)
"$INFER8" build "$snap" --precision fp32 -o "$WORK/fp32.bundle" >/dev/null || fail "build fp32"
"$INFER8" build "$snap" --precision fp16 -o "$WORK/fp16.bundle" >/dev/null || fail "build fp16"
"$INFER8" build "$snap" --precision fp16 --adaptive-rounding stem --rounding-images "$WORK/calib" \
  -o "$WORK/ar.bundle" >"$WORK/build.txt" 2>"$WORK/build.err" || fail "build adaptive"
grep -q "^built .*inception_v3, fp16" "$WORK/build.txt" || fail "build summary: $(cat "$WORK/build.txt")"
grep -q "adaptive rounding: Conv2d_2a_3x3 (K 288): output error on the calibration images" "$WORK/build.err" &&
  grep -q "adaptive rounding: 5 convs rounded on 4 images" "$WORK/build.err" || fail "build progress: $(cat "$WORK/build.err")"
# an FP8 build keeps the stem in fp16: rounded the same way (before FP8 quantization)
"$INFER8" build "$snap" --precision fp8 --calib-images "$WORK/calib" --adaptive-rounding stem \
  --rounding-images "$WORK/calib" -o "$WORK/fp8ar.bundle" >/dev/null 2>&1 || fail "build fp8 adaptive"
"$INFER8" inspect "$WORK/fp16.bundle" --json >"$WORK/fp16.inspect.json" || fail "inspect fp16"
"$INFER8" inspect "$WORK/ar.bundle" --json >"$WORK/ar.inspect.json" || fail "inspect adaptive"

"$INFER8" classify "$snap" --device cpu "${imgs[@]}" --json >"$WORK/fp32.jsonl" || fail "classify fp32"
for b in fp16 ar; do
  "$INFER8" classify "$WORK/$b.bundle" --device ref --fp16-activations "${imgs[@]}" --json >"$WORK/$b.jsonl" \
    || fail "classify $b"
done

/usr/bin/python3 - "$WORK" <<'PY' || fail "adaptive rounding checks"
import json, os, sys
import numpy as np
sys.path.insert(0, os.path.join(os.environ["SRC"], "tests", "lib"))
from bundle_tensors import tensors  # written from docs/bundle-format.md
work = sys.argv[1]

stem = ["Conv2d_1a_3x3", "Conv2d_2a_3x3", "Conv2d_2b_3x3", "Conv2d_3b_1x1", "Conv2d_4a_3x3"]
def build_options(path):
    return json.load(open(path))["bundle"]["header"]["provenance"]["build_options"]
rep = build_options(f"{work}/ar.inspect.json")["adaptive_rounding"]
assert [r["name"] for r in rep] == stem, rep
for r in rep:
    assert 0 < r["error_vs_nearest"] < 1 and r["moved"] > 0 and r["images"] == 4, r
    print(f"ok: {r['name']}: calibration-set output error {r['error_vs_nearest']:.3g} x nearest's, {r['moved']} moved")
assert "adaptive_rounding" not in build_options(f"{work}/fp16.inspect.json")

t32, t16, ta = tensors(f"{work}/fp32.bundle"), tensors(f"{work}/fp16.bundle"), tensors(f"{work}/ar.bundle")
assert sorted(t16) == sorted(ta), "the graphs differ"
rounded = [k for k in ta if any(k.startswith(s + ".") for s in stem) and "weight" in k]
assert len(rounded) == len(stem), rounded
for k in ta:
    if k in rounded:
        w, q = t32[k].astype(np.float64), ta[k].astype(np.float64)
        assert ta[k].dtype == np.float16, k
        e = np.frexp(np.abs(w))[1]  # fp16 spacing at w's binade, as fp16_round.h states its bound
        ulp = np.where(w == 0, 2.0 ** -24, 2.0 ** (np.maximum(e - 1, -14) - 10))
        moved = np.count_nonzero(ta[k] != t16[k])
        assert np.all(np.abs(q - w) <= 2.5 * ulp) and moved > 0, (k, np.max(np.abs(q - w) / ulp), moved)
        print(f"ok: {k}: within {np.max(np.abs(q - w) / ulp):.2f} ulps, {moved} of {q.size} away from nearest")
    else:
        assert np.array_equal(ta[k], t16[k]), f"{k} changed"
t8 = tensors(f"{work}/fp8ar.bundle")
for k in rounded:
    assert np.array_equal(t8[k], ta[k]), f"{k}: the FP8 build's fp16 stem differs from the fp16 build's"
print(f"ok: the FP8 build stores the same {len(rounded)} rounded stem kernels")

def logits(path):
    return np.array([l["logits"] for l in map(json.loads, open(path))], dtype=np.float64)
def max_rel(a, b):
    return max(np.abs(x - y).max() / np.abs(x).max() for x, y in zip(a, b))
def kl(a, b):
    p = np.exp(a - a.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
    q = np.exp(b - b.max(1, keepdims=True)); q /= q.sum(1, keepdims=True)
    return float(np.mean(np.sum(p * (np.log(p) - np.log(q)), 1)))
ref = logits(f"{work}/fp32.jsonl")
e16, ea = max_rel(ref, logits(f"{work}/fp16.jsonl")), max_rel(ref, logits(f"{work}/ar.jsonl"))
k16, ka = kl(ref, logits(f"{work}/fp16.jsonl")), kl(ref, logits(f"{work}/ar.jsonl"))
print(f"fp16 emulation vs fp32 on held-out images: plain max rel {e16:.3g} KL {k16:.3g}, adaptive stem {ea:.3g} KL {ka:.3g}")
assert ea < 0.8 * e16 and ka < 0.6 * k16, (ea, e16, ka, k16)
PY

expect_fail 2 "needs calibration images \(--rounding-images" "$INFER8" build "$snap" --precision fp16 --adaptive-rounding stem -o "$WORK/x.bundle"
expect_fail 2 "do not combine" "$INFER8" classify "$snap" --split-weights stem --adaptive-rounding stem \
  --rounding-images "$WORK/calib" "${imgs[@]}"
expect_fail 2 "applies to checkpoints" "$INFER8" classify "$WORK/ar.bundle" --adaptive-rounding stem \
  --rounding-images "$WORK/calib" "${imgs[@]}"
expect_fail 2 '"Mixed_9z\*" matches no convolution' "$INFER8" classify "$snap" --adaptive-rounding "stem,Mixed_9z*" \
  --rounding-images "$WORK/calib" "${imgs[@]}"
expect_fail 2 "conv 'Mixed_5b.branch1x1' runs FP8" "$INFER8" build "$snap" --precision fp8 --calib-images "$WORK/calib" \
  --adaptive-rounding "Mixed_5b.branch1x1" --rounding-images "$WORK/calib" -o "$WORK/x.bundle"
printf 'not an image' >"$WORK/broken.png"
printf '%s\n' "$WORK/calib/$(ls "$WORK/calib" | head -1)" "$WORK/broken.png" >"$WORK/list.txt"
expect_fail 2 "broken.png" "$INFER8" build "$snap" --precision fp16 --adaptive-rounding stem \
  --rounding-images "$WORK/list.txt" -o "$WORK/x.bundle"
[ ! -e "$WORK/x.bundle" ] || fail "a refused build left $WORK/x.bundle"
echo "PASS"
