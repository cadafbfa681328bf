#!/usr/bin/env bash
# `infer8 bench` on the CPU: a snapshot and its fp16 bundle interleaved, batch 1 and 2, for each
# --input mode (the forward alone, whole calls from float32 tensors, whole calls from uint8
# crops); the JSON document's fields and their arithmetic (median within [min, max] of the
# rounds, images/s, x against the first model), -o written atomically, bad options refused;
# --profile: every layer's time in the JSON, adding up to the per-type table, and the slowest
# layers printed in order.
. "$SRC/tests/lib/common.sh"
snap=$(snapshot inception_v3 0)
"$INFER8" build "$snap" --precision fp16 -o "$WORK/v3-fp16.bundle" >/dev/null || fail "build"
for mode in forward f32 u8; do
  "$INFER8" bench "$snap" "$WORK/v3-fp16.bundle" --batch 1,2 --rounds 3 --iters 1 --input "$mode" --json \
    -o "$WORK/bench-$mode.json" >"$WORK/stdout-$mode.json" 2>"$WORK/stderr-$mode" || { cat "$WORK/stderr-$mode"; fail "bench --input $mode"; }
  ls "$WORK" | grep -q '\.tmp\.' && fail "a temporary file was left behind"
  grep -q "rounds of 1 " "$WORK/stderr-$mode" || fail "no progress header on stderr"
  /usr/bin/python3 - "$WORK/stdout-$mode.json" "$WORK/bench-$mode.json" "$mode" <<'PY'
import json, sys
mode = sys.argv[3]
for path in sys.argv[1:3]:
    d = json.load(open(path))
    assert d["input"] == mode, (d["input"], mode)
    assert d["rounds"] == 3 and d["iters"] == 1, d
    assert d["executor"] == "cpu" and d["device"], d
    rows = d["rows"]
    assert [(r["batch"], r["arch"]) for r in rows] == [(1, "inception_v3")] * 2 + [(2, "inception_v3")] * 2, rows
    for i, r in enumerate(rows):
        rounds = r["rounds_ms"]
        assert len(rounds) == 3 and all(x > 0 for x in rounds), r
        assert r["min_ms"] == min(rounds) and r["max_ms"] == max(rounds), r
        assert abs(r["median_ms"] - sorted(rounds)[1]) < 1e-6, r
        assert abs(r["images_per_s"] - r["batch"] * 1000 / r["median_ms"]) < 0.01, r
        first = rows[i - i % 2]
        assert abs(r["x_vs_first"] - first["median_ms"] / r["median_ms"]) < 1e-3, (r, first)
    assert rows[0]["x_vs_first"] == 1.0 and rows[2]["x_vs_first"] == 1.0
print(f"ok: --input {mode}: 4 rows, median / min / max / images/s / x consistent")
PY
  cmp -s "$WORK/stdout-$mode.json" "$WORK/bench-$mode.json" || fail "--json with -o: stdout differs from the file"
done
# --profile: per layer and per type, for the snapshot (fp32) and the fp16 bundle
"$INFER8" bench "$snap" "$WORK/v3-fp16.bundle" --batch 1 --rounds 1 --iters 1 --profile --json \
  -o "$WORK/profile.json" >/dev/null 2>"$WORK/profile.txt" || { cat "$WORK/profile.txt"; fail "bench --profile"; }
"$INFER8" inspect "$snap" --json >"$WORK/inspect.json" || fail "inspect --json"
/usr/bin/python3 - "$WORK/profile.json" "$WORK/profile.txt" "$WORK/inspect.json" <<'PY'
import json, re, sys
from collections import OrderedDict
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
graph = [l["name"] for l in json.load(open(sys.argv[3]))["layers"]]
blocks = re.findall(r"slowest layers:\n((?:    .*\n)+)", text)
assert len(blocks) == len(d["rows"]) == 2, (len(blocks), text)
for row, block in zip(d["rows"], blocks):
    layers = row["profile_ms_by_layer"]
    names = [l["layer"] for l in layers]
    assert names == graph and len(set(names)) == len(names), (len(names), len(graph))  # the optimized graph's layers, in its order
    assert all(l["ms"] >= 0 for l in layers)
    by_type = OrderedDict()
    for l in layers:
        t = by_type.setdefault(l["type"], [0.0, 0])
        t[0] += l["ms"]
        t[1] += 1
    assert list(by_type) == list(row["profile_ms_by_type"]), (list(by_type), list(row["profile_ms_by_type"]))
    for k, (ms, count) in by_type.items():
        want = row["profile_ms_by_type"][k]
        assert want["layers"] == count and abs(want["ms"] - ms) <= 1e-6 * (count + 1), (k, want, ms, count)
    lines = [re.match(r"    (\S+)\s+(\S+)\s+([\d.]+) ms", ln) for ln in block.splitlines()]
    assert len(lines) == 10 and all(lines), block
    top = sorted(layers, key=lambda l: -l["ms"])[:10]
    assert lines[0][1] == top[0]["layer"], (lines[0][1], top[0])
    ms = [float(m[3]) for m in lines]
    assert ms == sorted(ms, reverse=True), ms
    assert abs(ms[9] - top[9]["ms"]) < 1e-4, (ms[9], top[9])
print("ok: --profile: %d and %d layers, per-type sums and counts agree, slowest 10 in order" % tuple(len(r["profile_ms_by_layer"]) for r in d["rows"]))
# the CPU executors tune nothing: no row carries tuning, and no tuning warning is printed (on the
# GPU, bench/results/fp8-layers-session46/call5.sh checks both ways)
assert all("tuning" not in r for r in d["rows"]), [r.get("tuning") for r in d["rows"]]
assert "cuDNN's first configuration" not in text, text
PY
# -o into a missing folder: exit 2 naming the file, and --json prints nothing it could not write
expect_fail 2 "cannot write $WORK/no-such-dir/b.json" "$INFER8" bench "$snap" --batch 1 --rounds 1 --iters 1 --json \
  -o "$WORK/no-such-dir/b.json"
[ ! -s "$WORK/stdout" ] || fail "bench printed a document it could not write"
expect_fail 64 "--input must be forward, f32 or u8, not 'bytes'" "$INFER8" bench "$snap" --input bytes
expect_fail 64 "--rounds" "$INFER8" bench "$snap" --rounds 0
expect_fail 64 "give at least one MODEL" "$INFER8" bench --input u8
