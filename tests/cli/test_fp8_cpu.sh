#!/usr/bin/env bash
# FP8 on the CPU, end to end on a synthetic inception_v3: recipe listing, calibration (max, 8
# generated images, a corrupt file skipped), FP8 emulation through `classify --precision fp8`,
# and its quality against fp32 on 8 held-out images: KL(fp32 || fp8) and top-1 agreement.
# Controls: recipe "none" must reproduce fp32 bit for bit; scales made 64x too small (heavy
# saturation) must be much worse than the calibrated ones. Synthetic checkpoints are far more
# sensitive to FP8 than trained ones (docs/fp8.md). Measured here (held-out images): KL mean 0.93,
# top-1 agreement 3/8, fp32 top-1 within fp8 top-5 7/8, logit correlation >= 0.80; with scales / 64
# KL 47 and agreement 0/8. Thresholds below keep margin from those figures.
. "$SRC/tests/lib/common.sh"
snap=$(snapshot inception_v3 0)
"$INFER8" gen-images --count 8 --seed 0 -o "$WORK/calib" 2>/dev/null
"$INFER8" gen-images --count 8 --seed 1000 -o "$WORK/eval" 2>/dev/null
printf 'not a png' > "$WORK/calib/zz_corrupt.png"

"$INFER8" recipe "$snap" > "$WORK/recipe.txt"
grep -q "recipe default on inception_v3: 89 of 94 convolutions FP8, 5 not: Conv2d_1a_3x3, Conv2d_2a_3x3, Conv2d_2b_3x3, Conv2d_3b_1x1, Conv2d_4a_3x3" "$WORK/recipe.txt" \
  || fail "recipe listing: $(head -1 "$WORK/recipe.txt")"
[ "$(grep -c '^  fp8 ' "$WORK/recipe.txt")" -eq 89 ] || fail "recipe listing does not hold 89 fp8 lines"
expect_fail 2 "no fused residual convolution" "$INFER8" recipe "$snap" --recipe residual-fp8
expect_fail 2 "unknown recipe 'fast'" "$INFER8" recipe "$snap" --recipe fast

start=$(date +%s.%N)
"$INFER8" calibrate "$snap" --images "$WORK/calib" --count 9 --method max -o "$WORK/scales.json" 2> "$WORK/calib.log" \
  || { cat "$WORK/calib.log"; fail "calibrate failed"; }
end=$(date +%s.%N)
grep -Eq "zz_corrupt.png.*skipped|skipping .*zz_corrupt.png" "$WORK/calib.log" || fail "corrupt image not reported"
grep -q "8 images (1 skipped)" "$WORK/calib.log" || fail "calibrate summary: $(tail -1 "$WORK/calib.log")"
echo "calibration of 8 images: $(echo "$end - $start" | bc) s"
grep -Eq "on cpu-(onednn|reference)" "$WORK/calib.log" || fail "calibrate does not say where it collected: $(tail -1 "$WORK/calib.log")"
# the default device (cpu: oneDNN where built) and the reference executor's hooks bin the same
# activations up to float rounding: max amax within 1e-5 on every tensor, percentile within
# about one bin (1/2048 of amax: 1e-3); entropy and mse are argmin searches whose minimum can be
# flat, so as between the GPU and the CPU (test_cuda_calib): within 5% on 90% of the tensors
# (measured on these 8 images: max 2.0e-6, percentile 8.8e-5; entropy up to 0.1 on a few)
for m in max percentile entropy mse; do
  for d in cpu ref; do
    "$INFER8" calibrate "$snap" --images "$WORK/calib" --count 9 --method $m --device $d -o "$WORK/sc-$m-$d.json" \
      2>"$WORK/sc.log" || { cat "$WORK/sc.log"; fail "calibrate --method $m --device $d"; }
  done
done
/usr/bin/python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
for m, tol, share in (("max", 1e-5, 1.0), ("percentile", 1e-3, 1.0), ("entropy", 5e-2, 0.9), ("mse", 5e-2, 0.9)):
    a, b = (json.load(open(f"{w}/sc-{m}-{d}.json"))["tensors"] for d in ("ref", "cpu"))
    assert a.keys() == b.keys(), m
    rel = sorted(abs(a[k]["amax"] - b[k]["amax"]) / a[k]["amax"] for k in a if a[k]["amax"] > 0)
    within = sum(r <= tol for r in rel)
    print(f"calibrate --method {m}: cpu against ref over {len(rel)} tensors: {within} within {tol:g}, worst {rel[-1]:.2e}")
    assert within >= share * len(rel), (m, within, len(rel))
PY
# binary16 activations are a reference-executor emulation: another device refuses them
expect_fail 2 "reference executor" "$INFER8" classify "$snap" --device cpu --fp16-activations "$WORK/eval/"*.png
# so is double accumulation (the oneDNN backend used to ignore it silently)
expect_fail 2 "accumulate_fp64 applies to the reference executor" "$INFER8" classify "$snap" --device cpu --fp64 "$WORK/eval/"*.png
# --device cuda collects on the GPU (tools/gpu-check calib_tests); without one it fails cleanly
# and writes nothing
if ! command -v nvidia-smi >/dev/null 2>&1; then
  expect_fail 2 "(no CUDA device|no CUDA backend)" "$INFER8" calibrate "$snap" --images "$WORK/calib" --count 2 --device cuda \
    -o "$WORK/scales-cuda.json"
  [ ! -e "$WORK/scales-cuda.json" ] || fail "calibrate --device cuda wrote output without a GPU"
fi

/usr/bin/python3 - "$WORK/scales.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["tensors"]
assert d["format"] == "infer8-scales" and d["method"] == "max" and d["images"] == 8, d
# 56 tensors read by FP8 convs under default + input and the stem outputs read by stem convs (65 +
# 5 until session 68 moved the 9 pool branches' pools below their 1x1 convs: those convs now read
# the block inputs, which other FP8 convs read already)
assert len(t) == 61, len(t)
for name in ("input", "Pool2", "Mixed_5b", "Mixed_6e", "Mixed_7b", "Mixed_7c.branch3x3_1"):
    assert name in t, name
assert not any(name.endswith("avg_pool") for name in t), "a pool moved below its conv is read as FP8"
for name, e in t.items():
    assert e["amax"] > 0 and abs(e["scale"] - e["amax"] / 448) <= 1e-6 * e["scale"], (name, e)
EOF

# errors: missing scales, a tensor missing from scales.json
expect_fail 2 "needs activation scales" "$INFER8" classify "$snap" --precision fp8 "$WORK/eval/img_001000.png"
/usr/bin/python3 -c "
import json,sys; d=json.load(open('$WORK/scales.json')); del d['tensors']['Mixed_6a']
json.dump(d, open('$WORK/scales_missing.json','w'))"
expect_fail 2 'tensors."Mixed_6a": missing' "$INFER8" classify "$snap" --precision fp8 --scales "$WORK/scales_missing.json" "$WORK/eval/img_001000.png"
/usr/bin/python3 -c "
import json; d=json.load(open('$WORK/scales.json'))
for e in d['tensors'].values(): e['scale'] /= 64; e['amax'] /= 64
json.dump(d, open('$WORK/scales_small.json','w'))"

"$INFER8" classify "$snap" --json "$WORK"/eval/*.png > "$WORK/fp32.jsonl"
"$INFER8" classify "$snap" --json --precision fp8 --recipe default --scales "$WORK/scales.json" "$WORK"/eval/*.png > "$WORK/fp8.jsonl"
"$INFER8" classify "$snap" --json --precision fp8 --recipe none --scales "$WORK/scales.json" "$WORK"/eval/*.png > "$WORK/none.jsonl"
"$INFER8" classify "$snap" --json --precision fp8 --scales "$WORK/scales_small.json" "$WORK"/eval/*.png > "$WORK/small.jsonl"
/usr/bin/python3 - "$WORK" <<'EOF'
import json, sys
import numpy as np
w = sys.argv[1]
def load(name):
    return np.array([json.loads(l)["logits"] for l in open(f"{w}/{name}.jsonl") if l.strip()], dtype=np.float64)
ref = load("fp32")
def quality(x):
    p = np.exp(ref - ref.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
    lq = x - x.max(1, keepdims=True); lq -= np.log(np.exp(lq).sum(1, keepdims=True))
    kl = (p * (np.log(p) - lq)).sum(1)
    top5 = sum(int(ref[i].argmax() in np.argsort(-x[i])[:5]) for i in range(len(x)))
    corr = min(np.corrcoef(ref[i], x[i])[0, 1] for i in range(len(x)))
    return kl.mean(), kl.max(), int((ref.argmax(1) == x.argmax(1)).sum()), top5, corr
assert ref.shape == (8, 1000), ref.shape
none = load("none")
assert np.array_equal(none, ref), "recipe none differs from fp32"
kl, klmax, agree, top5, corr = quality(load("fp8"))
skl, _, sagree, stop5, scorr = quality(load("small"))
print(f"fp8 default vs fp32 on 8 held-out images: KL mean {kl:.4f} max {klmax:.4f}, top-1 agreement {agree}/8, "
      f"top-1 in top-5 {top5}/8, min logit correlation {corr:.3f}")
print(f"control, scales / 64: KL mean {skl:.4f}, agreement {sagree}/8, top-5 {stop5}/8, correlation {scorr:.3f}")
assert np.isfinite(load("fp8")).all()
assert kl < 2.0, kl
assert agree >= 2 and top5 >= 6, (agree, top5)
assert corr >= 0.7, corr
assert skl > 10 * kl and scorr < 0.5, (skl, scorr)
EOF

# An FP8 bundle built from the same recipe and scales: its FP8 convolutions are stored as e4m3
# codes + scales (lossless: unit/test_bundle checks the bits) and the other kernels (stem,
# classifier) as fp16, so its logits differ from the fp32-stem emulation of the checkpoint only
# by that fp16 rounding; inspect lists the recipe's 89 FP8 convolutions.
"$INFER8" build "$snap" --precision fp8 --recipe default --scales "$WORK/scales.json" -o "$WORK/v3-fp8.bundle" > "$WORK/build.log"
# build reports the fp16 bundle it replaces, sized without writing it: the fp16 bundle built from
# the same checkpoint path must have exactly that size (session 22: 47,750,912 bytes, FP8 0.550)
"$INFER8" build "$snap" --precision fp16 -o "$WORK/v3-fp16.bundle" > /dev/null
fp16_bytes=$(stat -c %s "$WORK/v3-fp16.bundle") fp8_bytes=$(stat -c %s "$WORK/v3-fp8.bundle")
ratio=$(/usr/bin/python3 -c "print(f'{$fp8_bytes / $fp16_bytes:.3f}')")
grep -qx "fp16 bundle of the same model: $fp16_bytes bytes (.* MiB); FP8 / fp16 = $ratio" "$WORK/build.log" \
  || fail "build's fp16 comparison is not the fp16 bundle's $fp16_bytes bytes, ratio $ratio: $(grep '^fp16' "$WORK/build.log")"
echo "ok: build --precision fp8 reports the fp16 bundle's size, $fp16_bytes bytes (FP8 $fp8_bytes, x $ratio)"
# the same build with --json: one object, its figures those of the files on disk
"$INFER8" build "$snap" --precision fp8 --recipe default --scales "$WORK/scales.json" -o "$WORK/v3-fp8-b.bundle" --json \
  > "$WORK/build.json"
/usr/bin/python3 - "$WORK/build.json" "$WORK/v3-fp8-b.bundle" "$fp16_bytes" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
size, fp16 = os.path.getsize(sys.argv[2]), int(sys.argv[3])
assert d["bundle"] == sys.argv[2] and d["arch"] == "inception_v3" and d["precision"] == "fp8", d
assert d["bytes"] == size, (d["bytes"], size)
assert d["fp16_bundle_bytes"] == fp16, (d["fp16_bundle_bytes"], fp16)
assert abs(d["fp8_over_fp16"] - size / fp16) < 1e-6, d["fp8_over_fp16"]
names = [s["name"] for s in d["sections"]]
assert names[0] == "header" and names[-1] == "weights" and "act_scales" in names, names
assert sum(s["bytes"] for s in d["sections"]) < size and d["layers"] > 0 and d["convolutions"] == 94, d
print(f"ok: build --json: {d['bytes']} bytes in {len(names)} sections, fp16 {d['fp16_bundle_bytes']}, x {d['fp8_over_fp16']:.3f}")
PY
rm -f "$WORK/v3-fp16.bundle" "$WORK/v3-fp8-b.bundle"
"$INFER8" classify "$WORK/v3-fp8.bundle" --json "$WORK"/eval/*.png > "$WORK/bundle-fp8.jsonl"
/usr/bin/python3 - "$WORK/fp8.jsonl" "$WORK/bundle-fp8.jsonl" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
agree = sum(x["top"][0]["index"] == y["top"][0]["index"] for x, y in zip(a, b))
err = max(max(abs(p - q) for p, q in zip(x["logits"], y["logits"])) / max(abs(p) for p in x["logits"]) for x, y in zip(a, b))
print(f"fp8 bundle vs fp8 emulation of the checkpoint: top-1 agreement {agree}/{len(a)}, max rel logit diff {err:.3g}")
assert agree >= len(a) // 2, agree  # synth weights amplify the fp16 stem rounding (README caveat)
PY
"$INFER8" inspect "$WORK/v3-fp8.bundle" --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
fp8 = [l for l in d["layers"] if l.get("precision") == "fp8"]
assert len(fp8) == 89, len(fp8)
print("ok: fp8 bundle with 89 FP8 layers")'
# inspect --roofline: the bound of the bundle's precisions over fp16 on the H200, against the same
# model computed here from inspect's layer list (shapes, kernel, precision)
"$INFER8" inspect "$WORK/v3-fp8.bundle" --json >"$WORK/inspect.json"
"$INFER8" inspect "$WORK/v3-fp8.bundle" --roofline H200 --batch 1,32 --json >"$WORK/roofline.json"
/usr/bin/python3 - "$WORK/inspect.json" "$WORK/roofline.json" <<'PY'
import json, sys
layers = json.load(open(sys.argv[1]))["layers"]
got = json.load(open(sys.argv[2]))["roofline"]
BW, P16, P8 = 4.8e12, 989.4e12, 1978.9e12
for row in got:
    n, t16, t8 = row["batch"], 0.0, 0.0
    for l in layers:
        if l["op"] != "conv":
            continue
        (ci, hi, wi), (co, ho, wo) = l["in"][0], l["out"]
        kh, kw = l["kernel"]
        res = l.get("residual") is not None
        flops = 2.0 * n * ho * wo * kh * kw * ci * co
        inp, w, out = n * hi * wi * ci, co * kh * kw * ci, n * ho * wo * co
        a = max(flops / P16, 2.0 * (inp + w + out + (out if res else 0)) / BW)
        t16 += a
        t8 += max(flops / P8, (inp + w + out + (4 * out if res else 0)) / BW) if l["precision"] == "fp8" else a
    for key, want in (("fp16_ms", t16 * 1e3), ("model_ms", t8 * 1e3)):
        assert abs(row[key] - want) <= 1e-6 * want, (n, key, row[key], want)
    print(f"ok: roofline H200 batch {n}: fp16 {t16 * 1e3:.4f} ms, fp8 bundle {t8 * 1e3:.4f} ms, bound x {t16 / t8:.3f}")
PY
expect_fail 2 "no peak figures for GPU 'A100'" "$INFER8" inspect "$WORK/v3-fp8.bundle" --roofline A100
expect_fail 64 "exactly one of --scales" "$INFER8" build "$snap" --precision fp8 -o "$WORK/x.bundle"
# --device cpu runs the FP8 bundle too: with oneDNN built, its emulation (the reference
# executor's e4m3 reads and binary16 storage, in oneDNN's fp32 accumulation order) must stay
# within the drift that the reference emulation itself shows between float and double
# accumulation (docs/performance.md, "the drift floor"): max rel <= max(2e-2, 2 x floor), top-1
# flips <= 2 x the floor's + 1; without oneDNN `cpu` is the reference executor: identical logits
"$INFER8" classify "$WORK/v3-fp8.bundle" --device cpu --json "$WORK"/eval/*.png >"$WORK/bundle-fp8-cpu.jsonl" \
  2>"$WORK/cpu.err" || { cat "$WORK/cpu.err" >&2; fail "--device cpu on the FP8 bundle"; }
if cmp -s "$WORK/bundle-fp8.jsonl" "$WORK/bundle-fp8-cpu.jsonl"; then
  echo "ok: --device cpu (reference executor in this build) emulates the FP8 bundle"
else
  "$INFER8" classify "$WORK/v3-fp8.bundle" --fp64 --json "$WORK"/eval/*.png >"$WORK/bundle-fp8-f64.jsonl"
  /usr/bin/python3 - "$WORK/bundle-fp8.jsonl" "$WORK/bundle-fp8-cpu.jsonl" "$WORK/bundle-fp8-f64.jsonl" <<'PY'
import json, sys
import numpy as np
ref, cpu, f64 = ([np.array(json.loads(l)["logits"]) for l in open(p)] for p in sys.argv[1:4])
def drift(a, b):
    rel = max(float(np.abs(x - y).max() / np.abs(x).max()) for x, y in zip(a, b))
    flips = sum(int(x.argmax() != y.argmax()) for x, y in zip(a, b))
    return rel, flips
(rel, flips), (frel, fflips) = drift(ref, cpu), drift(ref, f64)
print(f"--device cpu (oneDNN) vs ref FP8 emulation: max rel {rel:.4f}, {flips} top-1 flips of {len(ref)}; "
      f"floor (ref float vs double): {frel:.4f}, {fflips} flips")
assert rel <= max(2e-2, 2 * frel), (rel, frel)
assert flips <= 2 * fflips + 1, (flips, fflips)
PY
fi
