# --split-weights (i8_pass_split_weights) end to end on a synthetic inception_v3: the fp16 bundle
# built with --split-weights stem stores each stem conv as fp16(W) and an fp16 rest
# "<name>.lo" that sum to the fp32 checkpoint's folded kernel to ~22 bits (read here with numpy
# from the documented layout, an independent reader), the graph gains one conv per split layer,
# the header's provenance lists the split convs, the fp16 emulation (--device ref
# --fp16-activations) moves closer to fp32 than the plain fp16 bundle, the fp32 checkpoint split
# on the CPU backends keeps its logits, and bad specs and bundles are refused with exit 2.
source "$SRC/tests/lib/common.sh"
snap=$(snapshot inception_v3)
"$INFER8" gen-images --count 4 --seed 11 -o "$WORK/img" >/dev/null || fail "gen-images"
imgs=("$WORK"/img/*.png)
"$INFER8" build "$snap" --precision fp32 -o "$WORK/fp32.bundle" >/dev/null || fail "build fp32"
"$INFER8" build "$snap" --precision fp16 -o "$WORK/fp16.bundle" >/dev/null || fail "build fp16"
"$INFER8" build "$snap" --precision fp16 --split-weights stem -o "$WORK/split.bundle" >"$WORK/build.txt" || fail "build split"
grep -q "^built .*inception_v3, fp16" "$WORK/build.txt" || fail "build summary: $(cat "$WORK/build.txt")"
"$INFER8" inspect "$WORK/fp16.bundle" --json >"$WORK/fp16.inspect.json" || fail "inspect fp16"
"$INFER8" inspect "$WORK/split.bundle" --json >"$WORK/split.inspect.json" || fail "inspect split"

"$INFER8" classify "$snap" --device cpu "${imgs[@]}" --json >"$WORK/fp32.jsonl" || fail "classify fp32"
for dev in cpu ref; do
  "$INFER8" classify "$snap" --device $dev --split-weights stem "${imgs[@]}" --json >"$WORK/fp32-split-$dev.jsonl" \
    || fail "classify fp32 split $dev"
done
for b in fp16 split; do
  "$INFER8" classify "$WORK/$b.bundle" --device ref --fp16-activations "${imgs[@]}" --json >"$WORK/$b.jsonl" \
    || fail "classify $b"
done

/usr/bin/python3 - "$WORK" <<'PY' || fail "split weights checks"
import json, os, sys
import numpy as np
sys.path.insert(0, os.path.join(os.environ["SRC"], "tests", "lib"))
from bundle_tensors import tensors  # written from docs/bundle-format.md
work = sys.argv[1]

def layers(path):
    return {l["name"]: l for l in json.load(open(path))["layers"]}
plain, split = layers(f"{work}/fp16.inspect.json"), layers(f"{work}/split.inspect.json")
lo = sorted(n for n in split if n.endswith(".lo"))
stem = ["Conv2d_1a_3x3", "Conv2d_2a_3x3", "Conv2d_2b_3x3", "Conv2d_3b_1x1", "Conv2d_4a_3x3"]
assert lo == sorted(s + ".lo" for s in stem), lo
assert len(split) == len(plain) + len(stem), (len(split), len(plain))
print(f"ok: {len(lo)} stem convs split: {', '.join(lo)}")
def build_options(path):
    return json.load(open(path))["bundle"]["header"]["provenance"]["build_options"]
assert build_options(f"{work}/split.inspect.json")["split_weights"] == stem, build_options(f"{work}/split.inspect.json")
assert "split_weights" not in build_options(f"{work}/fp16.inspect.json")

t32, ts = tensors(f"{work}/fp32.bundle"), tensors(f"{work}/split.bundle")
los = [k for k in ts if k.endswith(".lo")]
assert len(los) == len(stem), los
for k in los:
    w = t32[k[:-3]].astype(np.float64)                 # the folded fp32 kernel
    hi, rest = ts[k[:-3]].astype(np.float64), ts[k].astype(np.float64)
    assert ts[k].dtype == np.float16 and ts[k[:-3]].dtype == np.float16, k
    assert np.array_equal(ts[k[:-3]], t32[k[:-3]].astype(np.float16)), f"{k}: hi is not fp16(W)"
    err_hi, err_split = np.abs(hi - w).max(), np.abs(hi + rest - w).max()
    # rest is W - hi rounded to fp16: within half its ulp, or 2^-25 where it is subnormal
    bound = np.maximum(np.abs(w) * 2.0 ** -21, 2.0 ** -25).max()
    assert err_split <= bound and err_split < err_hi / 100, (k, err_split, err_hi, bound)
    print(f"ok: {k[:-3]}: max |W - hi| {err_hi:.3g}, max |W - (hi + lo)| {err_split:.3g}")
for k in ts:
    if not k.endswith(".lo"):
        assert k in t32, k

def logits(path):
    return np.array([l["logits"] for l in map(json.loads, open(path))], dtype=np.float64)
def max_rel(a, b):
    return max(np.abs(x - y).max() / np.abs(x).max() for x, y in zip(a, b))
ref = logits(f"{work}/fp32.jsonl")
for dev in ("cpu", "ref"):
    r = max_rel(ref, logits(f"{work}/fp32-split-{dev}.jsonl"))
    print(f"fp32 checkpoint split on {dev} vs unsplit: max rel {r:.3g}")
    assert r <= 1e-5, r  # hi + lo = W exactly in float: only the summation order differs
e16, es = max_rel(ref, logits(f"{work}/fp16.jsonl")), max_rel(ref, logits(f"{work}/split.jsonl"))
print(f"fp16 emulation vs fp32: plain {e16:.3g}, stem split {es:.3g}")
assert es < 0.7 * e16, (es, e16)
PY

expect_fail 2 "applies to checkpoints" "$INFER8" classify "$WORK/split.bundle" --split-weights stem "${imgs[@]}"
expect_fail 2 '"Mixed_9z\*" matches no convolution' "$INFER8" classify "$snap" --split-weights "stem,Mixed_9z*" "${imgs[@]}"
expect_fail 2 "empty item" "$INFER8" build "$snap" --precision fp16 --split-weights "stem,,Mixed_5b.*" -o "$WORK/x.bundle"
[ ! -e "$WORK/x.bundle" ] || fail "a refused build left $WORK/x.bundle"
echo "PASS"
