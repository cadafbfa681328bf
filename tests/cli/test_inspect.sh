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
# The CUDA executor's activation arena, planned on the host exactly as its prepare plans it
# (concat inputs in their slices, e4m3 twins, reuse by liveness), no GPU needed: the figures the
# H200 reported for the same graphs (session 15, bench/results/fp8-layers-session15: fp8_bench
# arena IRv2 fp16 191.6 MiB -> FP8 `default` 167.6 MiB and v4 fp16 283.9 MiB at max batch 32;
# the IRv2 FP8 model test's context, max batch 4: 20.9 MiB).
if [ "${HAVE_CUDA:?}" = 1 ]; then
  irv2=$(snapshot inception_resnet_v2 0)
  "$INFER8" inspect "$irv2" >"$WORK/irv2.txt"
  grep -Eq "^memory \(CUDA executor, max batch 32\): activation arena [0-9]+ bytes \(191\.6 MiB\)$" "$WORK/irv2.txt" ||
    fail "IRv2 fp16 arena: $(grep memory "$WORK/irv2.txt")"
  "$INFER8" inspect "$(snapshot inception_v4 0)" | grep -q "activation arena [0-9]* bytes (283.9 MiB)" || fail "v4 fp16 arena"
  "$INFER8" inspect "$irv2" --json | /usr/bin/python3 -c '
import json, sys
m = json.load(sys.stdin)["memory"]["cuda"]
assert m["max_batch"] == 32 and round(m["activation_arena_bytes"] / 2**20, 1) == 191.6, m
print("ok: JSON memory.cuda", m)'
  "$INFER8" gen-images --count 2 -o "$WORK/img" >/dev/null
  "$INFER8" calibrate "$irv2" --images "$WORK/img" --count 2 -o "$WORK/irv2-scales.json" >/dev/null 2>&1 || fail "calibrate"
  "$INFER8" inspect "$irv2" --precision fp8 --scales "$WORK/irv2-scales.json" | grep -q "max batch 32): activation arena [0-9]* bytes (167.6 MiB)" ||
    fail "IRv2 FP8 arena at max batch 32"
  "$INFER8" inspect "$irv2" --precision fp8 --scales "$WORK/irv2-scales.json" --max-batch 4 | grep -q "max batch 4): activation arena [0-9]* bytes (20.9 MiB)" ||
    fail "IRv2 FP8 arena at max batch 4"
  echo "ok: CUDA activation arena as the H200 planned it (fp16, FP8, max batch 32 and 4)"
else
  "$INFER8" inspect "$(snapshot inception_v3 0)" | grep -q "^memory (CUDA" && fail "a memory plan without the CUDA backend"
  echo "ok: no CUDA backend, no CUDA memory plan"
fi
