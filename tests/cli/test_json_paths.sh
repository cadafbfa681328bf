#!/usr/bin/env bash
# Paths are bytes: a model folder, bundle or image whose name holds a newline, a quote or a
# byte that is not UTF-8 must still give JSON that a strict parser reads (Python decodes the
# file as UTF-8 and refuses anything else). Each such byte becomes U+FFFD; control characters
# are escaped. Covered: build --json and the bundle's header (provenance holds the source
# path), inspect --json, bench --json and -o (model names and the command line), classify
# --json (the image path). Before this, bench wrote the raw newline into its "command" and
# every one of these wrote the raw 0xff byte.
. "$SRC/tests/lib/common.sh"
snap=$(snapshot inception_v3 0)
odd="$WORK/v3"$'\xff'$'\n''"q'
ln -s "$snap" "$odd"
"$INFER8" gen-images --count 1 --seed 3 -o "$WORK/imgs" >/dev/null
img="$WORK/imgs/img"$'\xe9'".png"
mv "$WORK"/imgs/*.png "$img"

"$INFER8" build "$odd" --precision fp16 --json -o "$odd.bundle" >"$WORK/build.json" || fail "build"
"$INFER8" inspect "$odd.bundle" --json >"$WORK/inspect.json" || fail "inspect"
"$INFER8" bench "$odd" --device cpu --batch 1 --rounds 1 --iters 1 --json -o "$WORK/bench-o.json" \
  >"$WORK/bench.json" 2>/dev/null || fail "bench"
"$INFER8" classify "$odd.bundle" --image "$img" --topk 1 --json >"$WORK/classify.json" || fail "classify"

/usr/bin/python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
def load(name):
    with open(f"{work}/{name}", encoding="utf-8", errors="strict") as f:  # strict: the point
        text = f.read()
    return json.loads(text) if not name.startswith("classify") else [json.loads(l) for l in text.splitlines() if l]
odd = f"{work}/v3\ufffd\n\"q"
b = load("build.json")
assert any(v == odd + ".bundle" for v in b.values()), b
prov = load("inspect.json")["bundle"]["header"]["provenance"]
assert prov["source"] == odd and prov["source_file"] == odd + "/model.safetensors", prov
for name in ("bench.json", "bench-o.json"):
    d = load(name)
    assert d["rows"][0]["model"] == odd, d["rows"][0]["model"]
    assert d["command"].startswith("infer8 bench '" + odd + "' --device cpu"), d["command"]
c = load("classify.json")
assert c[0]["image"] == f"{work}/imgs/img\ufffd.png", c[0]
print("ok: build, inspect, bench, classify JSON are UTF-8 with U+FFFD for the odd bytes")
PY
