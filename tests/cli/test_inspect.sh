#!/usr/bin/env bash
# `infer8 inspect` on synth snapshots of the three families: the totals timm's model cards give
# (convolutions, parameters, GMACs), one JSON entry per layer with the documented fields, and the
# text listing's totals.
. "$SRC/tests/lib/common.sh"
check() {
  local arch=$1 convs=$2 params=$3 gmacs=$4
  local snap
  snap=$(snapshot "$arch" 0)
  "$INFER8" inspect "$snap" --json > "$WORK/$arch.json"
  /usr/bin/python3 - "$WORK/$arch.json" "$convs" "$params" "$gmacs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
convs, params, gmacs = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
t = d["totals"]
assert t["convolutions"] == convs, (t["convolutions"], convs)
assert t["checkpoint_parameters"] == params, (t["checkpoint_parameters"], params)
assert f"{t['macs'] / 1e9:.2f}" == gmacs, (t["macs"], gmacs)
assert t["count_per_op"]["conv"] == convs
assert len(d["layers"]) == t["nodes"]
for layer in d["layers"]:
    for key in ("name", "op", "kernel", "stride", "padding", "in", "out", "precision"):
        assert key in layer, (key, layer)
    if layer["op"] == "conv":
        assert len(layer["kernel"]) == 2 and len(layer["out"]) == 3
# batch norm folded, relu and residual adds fused: none left as layers
assert not {"batchnorm", "relu", "residual"} & set(t["count_per_op"]), t["count_per_op"]
print(f"ok {d['arch']}: {convs} convolutions, {params} parameters, {gmacs} GMACs, {len(d['layers'])} layers")
PY
  "$INFER8" inspect "$snap" > "$WORK/$arch.txt"
  grep -q "convolutions: $convs" "$WORK/$arch.txt" || fail "$arch text listing lacks 'convolutions: $convs'"
  grep -q "($gmacs GMACs)" "$WORK/$arch.txt" || fail "$arch text listing lacks '$gmacs GMACs'"
}
check inception_resnet_v2 244 55843464 13.16
check inception_v4 149 42679816 12.25
check inception_v3 94 23834568 5.71
# IRv2: 40 residual blocks fused into their 1x1 projections, 204 + 40 convs
"$INFER8" inspect "$(snapshot inception_resnet_v2 0)" --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
res = [l for l in d["layers"] if l["op"] == "conv" and l["residual"]]
assert len(res) == 40, len(res)
assert sorted({l["block"] for l in res}) == list(range(40))
last = [l for l in res if l["block"] == 39][0]
assert last["act"] == "none" and abs(last["residual"]["scale"] - 1.0) < 1e-7, last
print("ok: 40 fused residual projections, the last without relu")'
