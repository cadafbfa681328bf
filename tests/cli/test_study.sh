#!/usr/bin/env bash
# `infer8 study` end to end on the CPU: synthetic inception_v3, a webdataset tar of 12 generated
# images with .cls labels plus one corrupt member, --calib 4 (so 4 calibration + 8 held-out
# images), 8 stress inputs (the full 36 would triple the run time on 2 cores). Python checks the
# report: every README section, the README tables equal study.json's figures, study.json's KL
# mean / p99 / max equal those recomputed from its per-image KL (numpy), the decision recomputed
# from the thresholds, the recipe listing's FP8 count against study.json and the convolution count
# of `infer8 inspect --json`, bundle sizes against the files, the corrupt member counted and named,
# the SVG parsed as XML, no temporary files left; plus usage and input errors.
source "$SRC/tests/lib/common.sh"
PY=/usr/bin/python3
MODEL=$(snapshot inception_v3)

# ---- dataset: two shards, sample keys s0000..s0012, labels i % 5; s0005 corrupt ----
"$INFER8" gen-images -o "$WORK/png" --count 12 --size 64x48 --seed 7 >/dev/null
mkdir -p "$WORK/stage"
i=0
for f in "$WORK"/png/*.png; do
  [ $i -eq 5 ] && i=$((i + 1))        # s0005 is the corrupt one
  k=$(printf 's%04d' $i)
  cp "$f" "$WORK/stage/$k.png"
  echo $((i % 5)) >"$WORK/stage/$k.cls"
  i=$((i + 1))
done
printf 'this is not an image' >"$WORK/stage/s0005.png"
echo 0 >"$WORK/stage/s0005.cls"
(cd "$WORK/stage" && tar -cf "$WORK/shard-000000.tar" s000[0-6].* && tar -cf "$WORK/shard-000001.tar" s000[7-9].* s001*)

# ---- usage and input errors ----
expect_fail 64 "--images SRC is required" "$INFER8" study "$MODEL" -o "$WORK/x"
expect_fail 64 "-o OUTDIR is required" "$INFER8" study "$MODEL" --images "$WORK/shard-000000.tar"
expect_fail 2 "calib method 'bogus'" "$INFER8" study "$MODEL" --images "$WORK/shard-000000.tar" --calib-methods bogus -o "$WORK/x"
expect_fail 2 "variant 'int8'" "$INFER8" study "$MODEL" --images "$WORK/shard-000000.tar" --variants fp16,int8 -o "$WORK/x"
expect_fail 2 "nope-0.tar: shard 0 .*No such file" "$INFER8" study "$MODEL" --images "$WORK/nope-{0..1}.tar" -o "$WORK/x"

# ---- the study ----
# through a link whose name holds a byte that is not UTF-8 and a newline (paths are bytes):
# study.json stays UTF-8 (U+FFFD) and the README shows them escaped
ODD="$WORK/v3"$'\xff'$'\n''m'
ln -s "$MODEL" "$ODD"
OUT="$WORK/study"
start=$(date +%s)
"$INFER8" study "$ODD" --images "$WORK/shard-{000000..000001}.tar" --take 0 --every 1 --calib 4 --stress 8 \
  --threads 2 --roofline H200 -o "$OUT" >"$WORK/stdout" 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; fail "study failed"; }
echo "study wall time: $(( $(date +%s) - start )) s"
cat "$WORK/stdout"
grep -q "s0005" "$WORK/stderr" || fail "the corrupt member is not reported on stderr"
"$INFER8" inspect "$MODEL" --json >"$WORK/inspect.json"

$PY - "$OUT" "$WORK/stdout" "$WORK/inspect.json" <<'EOF'
import json, math, os, re, sys
import xml.etree.ElementTree as ET
import numpy as np

out, stdout_path, inspect_path = sys.argv[1:]
md = open(os.path.join(out, "README.md"), encoding="utf-8", errors="strict").read()
js = json.load(open(os.path.join(out, "study.json"), encoding="utf-8", errors="strict"))
stdout = open(stdout_path).read()

def check(cond, msg):
    if not cond:
        sys.exit("FAIL: " + msg)

odd = os.path.join(os.path.dirname(out), "v3\ufffd\nm")
check(js["model"]["path"] == odd, "study.json model path %r" % js["model"]["path"])
check("infer8 study '" + odd + "' --images" in js["command"], "study.json command %r" % js["command"])
check("- Model: `" + os.path.dirname(out) + "/v3\\xff\\x0am` (" in md, "README's Model line shows the path escaped")
check("\\xff\\x0am' --images" in md, "README's command shows the path escaped")

# sections, in the study's order
sections = ["## Summary and decision", "## Recipe", "## Method", "## Results", "### Quality: held-out",
            "### Quality: calibration", "### Quality: stress", "### Bundle size", "### Speed",
            "## Why there is or is not a gain", "## What was not tried", "## When to revisit", "## Data", "## Files"]
pos = [md.find("\n" + s + "\n") for s in sections]
check(all(p >= 0 for p in pos), "missing sections: %s" % [s for s, p in zip(sections, pos) if p < 0])
check(pos == sorted(pos), "sections out of order")
# the fp32 reference's executor as the method states it (oneDNN where built)
onednn = "on the oneDNN CPU backend" in md
check(js["reference"]["executor"] == ("cpu-onednn fp32" if onednn else "cpu-reference fp32"),
      "reference executor %r, but the method says %s" % (js["reference"]["executor"], "oneDNN" if onednn else "reference"))
# environment and the exact command at the top
head = md.split("## Summary")[0]
shown = js["command"].replace("\ufffd\n", "\\xff\\x0a")  # the README escapes what study.json replaces
check("- Command: `%s`" % shown in head and js["command"].startswith("infer8 study "), "command not at the top")
check("--calib 4" in js["command"] and "Host: " in head and "CPU: " in head and js["environment"]["cpu_count"] >= 1,
      "environment")

# dataset: 12 samples, 1 corrupt, 4 calibration, 7 held out
d = js["dataset"]
check((d["seen"], d["skipped"], d["calibration_images"], d["held_out_images"]) == (13, 1, 4, 8), "dataset counts %s" % d)
check(d["issues"] == 1 and "s0005" in d["issue_messages"][0], "corrupt member issue: %s" % d["issue_messages"])
check(js["image_keys"]["calibration"] == ["s0000", "s0001", "s0002", "s0003"], "calibration keys")
check(js["image_keys"]["held_out"] == ["s0004"] + ["s%04d" % i for i in range(6, 13)], "held-out keys (s0005 skipped)")
row = re.search(r"\n\| `[^`]*` \| 13 \| 13 \| 12 \| 4 \| 8 \| 1 \| 0 \| 1 \|\n", md)
check(row is not None, "Data table does not show 13 seen / 12 used / 4 calib / 8 held / 1 skipped / 1 issue")
check("1 skipped" in stdout, "stdout lacks the skipped count")

# variants: fp16, fp8/max, residual variants not applicable on inception_v3
names = [v["name"] for v in js["variants"]]
check(names == ["fp16", "fp8/max", "residual-fp8:10-39/max", "residual-fp8/max"], "variants %s" % names)
V = {v["name"]: v for v in js["variants"]}
for n in ["residual-fp8:10-39/max", "residual-fp8/max"]:
    check(not V[n]["applicable"] and "no residual blocks" in V[n]["note"], n + " should be not applicable")
    check(re.search(r"\n\| %s \| n/a \| not applicable \|" % re.escape(n), md), n + " row")
# --roofline H200 without a GPU: the FP8 variant's bound per batch size, in study.json and README
rf = V["fp8/max"]["speed"].get("roofline_bound")
check(rf and rf["gpu"] == "H200" and sorted(rf["x_by_batch"]) == ["1", "32"], "fp8/max roofline_bound %s" % rf)
check(all(1.0 < x <= 2.0 for x in rf["x_by_batch"].values()), "roofline bounds out of (1, 2]: %s" % rf)
check("roofline_bound" not in V["fp16"]["speed"], "fp16 has a roofline bound")
check(re.search(r"- How far fp8/max could go on the H200: .* x %.2f faster at batch 1, x %.2f faster at batch 32 "
                % (rf["x_by_batch"]["1"], rf["x_by_batch"]["32"]), md), "README roofline bullet")

# quality tables equal study.json; json aggregates equal numpy on the per-image KL
def pct(x): return "n/a" if x is None else "%.2f%%" % (100 * x)
def fix(x, k): return "n/a" if x is None else "%.*f" % (k, x)
for split, title in [("held_out", "held-out"), ("calibration", "calibration"), ("stress", "stress")]:
    block = md.split("### Quality: %s\n" % title)[1].split("\n### ")[0]
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:-1]] for r in block.splitlines() if r.startswith("| ")}
    ref = js["reference"][split]
    check(rows["fp32 (reference)"][:3] == [str(ref["images"]), pct(ref["top1"]), pct(ref["top5"])], "fp32 row " + split)
    for n in ["fp16", "fp8/max"]:
        q = V[n]["quality"][split]
        want = [str(q["images"]), pct(q["top1"]), pct(q["top5"]), pct(q["agreement"]), fix(q["kl_mean"], 6),
                fix(q["kl_p99"], 6), fix(q["kl_max"], 6), fix(q["max_abs_logit_err"], 4), str(q["nan_logits"]),
                str(q["inf_logits"])]
        check(rows[n] == want, "%s %s row %s != %s" % (split, n, rows[n], want))
        kl = np.array(q["kl_per_image"], dtype=np.float64)
        check(len(kl) == q["images"] == q["compared"], "per-image KL count")
        check(abs(kl.mean() - q["kl_mean"]) <= 1e-12 * max(1, kl.mean()), "kl_mean vs numpy")
        check(abs(np.percentile(kl, 99) - q["kl_p99"]) <= 1e-12 * max(1, kl.max()), "kl_p99 vs numpy")
        check(kl.max() == q["kl_max"] and (kl >= 0).all(), "kl_max vs numpy")
    check(V["fp16"]["quality"][split]["images"] == {"held_out": 8, "calibration": 4, "stress": 8}[split], "images " + split)
    if split != "stress":
        check(V["fp16"]["quality"][split]["labelled"] == V["fp16"]["quality"][split]["images"], "labels read from .cls")
# fp16-rounded weights stay much closer to fp32 than FP8 does (synthetic v3: FP8 KL ~0.3-0.9)
check(V["fp16"]["quality"]["held_out"]["kl_mean"] < 0.05 < V["fp8/max"]["quality"]["held_out"]["kl_mean"],
      "fp16 KL should be far below FP8 KL")

# decision recomputed from the thresholds (speed not measured on the CPU)
th = js["thresholds"]
check((th["max_kl"], th["min_agreement"], th["min_speedup"]) == (0.02, 0.99, 1.1), "default thresholds")
q_ok = []
for v in js["variants"][1:]:
    if not v["applicable"]: continue
    h = v["quality"]["held_out"]
    nonfinite = sum(v["quality"][s]["nonfinite_images"] for s in ("held_out", "calibration", "stress"))
    q_ok.append(h["kl_mean"] <= th["max_kl"] and h["agreement"] >= th["min_agreement"] and nonfinite == 0)
    check(v["quality_passes"] == q_ok[-1], "quality_passes of " + v["name"])
want = "undecided" if any(q_ok) else "do not ship"
check(js["decision"]["decision"] == want, "decision %s, expected %s" % (js["decision"]["decision"], want))
check("**Decision: %s**" % want in md and ("decision: %s\n" % want) in stdout, "decision not printed")
check(js["decision"]["reason"] in md and "Reason: " in md and "fp8/max: KL" in js["decision"]["reason"], "reason")
check(js["decision"]["reason"] == js["decision"]["reason"].strip(), "reason without trailing blanks: %r" % js["decision"]["reason"][-20:])
check(not js["speed"]["measured"] and "speed was not measured" in md.lower(), "speed must be reported as not measured")

# recipe: listing count == study.json count == inspect's convolutions minus the 5 stem convs
layers = json.load(open(inspect_path))["layers"]
convs = sum(1 for l in layers if l["op"] == "conv")
rc = js["recipes"]
check(len(rc) == 1 and rc[0]["spec"] == "default" and rc[0]["convolutions"] == convs, "recipes %s" % rc)
m = re.search(r"### Recipe `default`: (\d+) of (\d+) convolutions FP8\n\nListing[^\n]*\n\n```\n(.*?)```", md, re.S)
check(m is not None, "recipe listing block")
listing = m.group(3).splitlines()
n_fp8 = sum(1 for l in listing if l.split()[:1] == ["fp8"])
n_keep = sum(1 for l in listing if l.split()[:1] == ["keep"])
check(int(m.group(1)) == n_fp8 == rc[0]["fp8_convolutions"] == V["fp8/max"]["fp8_convolutions"] == convs - 5,
      "FP8 count: header %s, listed %d, json %d, inspect %d" % (m.group(1), n_fp8, rc[0]["fp8_convolutions"], convs))
check(n_keep == 5 and int(m.group(2)) == n_fp8 + n_keep, "kept layers")
check(open(os.path.join(out, "recipes", rc[0]["listing"])).read().strip() == m.group(3).strip(), "recipes/ file")

# bundles: README sizes == study.json == the files; FP8 smaller than fp16
for n in ["fp16", "fp8/max"]:
    b = V[n]["bundle_bytes"]
    check(os.path.getsize(V[n]["bundle"]) == b, "bundle size of " + n)
    check(re.search(r"\n\| %s \| `bundles/[^`]+` \| %d \| %.1f \|" % (re.escape(n), b, b / 1048576.0), md), "bundle row " + n)
check(V["fp8/max"]["bundle_bytes"] < 0.7 * V["fp16"]["bundle_bytes"], "FP8 bundle should be much smaller")
check(json.load(open(os.path.join(out, "scales", "max.json")))["images"] == 4, "scales from 4 calibration images")

# plots: speed not measured -> kl.svg only; valid XML naming the variants
svgs = sorted(f for f in os.listdir(out) if f.endswith(".svg"))
check(svgs == ["kl.svg"], "plots %s" % svgs)
root = ET.parse(os.path.join(out, "kl.svg")).getroot()
text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
check(root.tag.endswith("svg") and "fp8/max" in text and "fp16" in text, "kl.svg content")
check("`kl.svg`" in md, "README names kl.svg")
# atomic writes: nothing temporary left
left = [os.path.join(dp, f) for dp, _, fs in os.walk(out) for f in fs if ".tmp" in f]
check(not left, "temporary files left: %s" % left)
print("study report checks: ok")
EOF

# the FP8 bundle (infer8_build precision fp8 of the model opened with precision fp8): header
# precision fp8, exactly the recipe's convolutions FP8 with out_scales from scales/max.json
"$INFER8" inspect "$OUT/bundles/fp8_max.bundle" --json >"$WORK/b8.json"
$PY - "$WORK/b8.json" "$OUT/scales/max.json" "$WORK/inspect.json" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1])); sc = json.load(open(sys.argv[2]))["tensors"]
ref = json.load(open(sys.argv[3]))["layers"]
assert b["bundle"]["precision"] == "fp8" and b["bundle"]["header"]["precision"] == "fp8", b["bundle"]["precision"]
convs = [l for l in b["layers"] if l["op"] == "conv"]
fp8 = [l for l in convs if l["precision"] == "fp8"]
assert len(fp8) == len(convs) - 5 == sum(1 for l in ref if l["op"] == "conv") - 5, len(fp8)
assert all(l["precision"] == "fp16" for l in convs if l["precision"] != "fp8"), "stem kernels stored fp16"
by_index = {l["index"]: l for l in b["layers"]}
for l in fp8:
    prod = by_index[l["inputs"][0]]
    want = sc[prod["name"]]["scale"]
    assert abs(prod["out_scale"] - want) <= 1e-6 * want, (prod["name"], prod["out_scale"], want)
print("fp8 bundle checks: ok")
EOF

# fp16 only: the calibration pass collects no statistics (no hook, no histograms) and only scores
"$INFER8" study "$MODEL" --images "$WORK/shard-000000.tar" --take 4 --every 1 --calib 2 --stress 1 --variants fp16 \
  --threads 2 -o "$WORK/fp16only" >"$WORK/fp16only.log" 2>&1 || { cat "$WORK/fp16only.log" >&2; fail "fp16-only study"; }
grep -q "no FP8 variant was asked for" "$WORK/fp16only.log" || fail "fp16-only study: $(tail -3 "$WORK/fp16only.log")"
[ -d "$WORK/fp16only/bundles" ] || fail "fp16-only study: no bundles folder"
for d in scales recipes; do
  [ ! -e "$WORK/fp16only/$d" ] || fail "fp16-only study made $d/: $(ls -A "$WORK/fp16only/$d")"
done
! grep -q '`scales/`' "$WORK/fp16only/README.md" || fail "fp16-only report lists scales/"
$PY -c "import json,sys; v=json.load(open(sys.argv[1]))['variants']; assert [x['name'] for x in v]==['fp16'], v" \
  "$WORK/fp16only/study.json" || fail "fp16-only study.json variants"

# the study's bound is the FP8 bundle's own (inspect --roofline on the bundle it wrote)
"$INFER8" inspect "$OUT/bundles/fp8_max.bundle" --roofline H200 --json >"$WORK/roofline.json"
$PY - "$OUT/study.json" "$WORK/roofline.json" <<'PY'
import json, sys
js, rf = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["roofline"]
study = next(v for v in js["variants"] if v["name"] == "fp8/max")["speed"]["roofline_bound"]["x_by_batch"]
for row in rf:
    assert abs(study[str(row["batch"])] - row["bound_x"]) <= 1e-7 * row["bound_x"], (study, rf)  # inspect prints 9 digits
print("study roofline bound == inspect --roofline of its FP8 bundle:", study)
PY
expect_fail 2 "no roofline figures for GPU 'A100'" "$INFER8" study "$MODEL" --images "$WORK/shard-000000.tar" --roofline A100 -o "$WORK/x"

# a bundle is not a study input
expect_fail 2 "needs the fp32 checkpoint" "$INFER8" study "$OUT/bundles/fp16.bundle" --images "$WORK/shard-000000.tar" -o "$WORK/x"
echo "PASS"
