#!/usr/bin/python3
"""Checks a CUDA study's report folder (tools/gpu-check study_cuda and study_full): every variant
timed, and, at every batch size, each layer's time in study.json, their sums by type equal to the
profile by type, the plots, and the README's "Where the time goes" table recomputed here from
those per-layer times. Usage: check_study.py OUTDIR"""
import json, math, os, re, sys
d = json.load(open(os.path.join(sys.argv[1], "study.json")))
readme = open(os.path.join(sys.argv[1], "README.md")).read()
assert d["speed"]["measured"], "speed not measured on CUDA"
v = {x["name"]: x for x in d["variants"]}
assert v["fp16"]["speed"]["measured"] and v["fp16"]["speed"]["batches"][0]["median_ms"] > 0, "fp16 not timed"
for x in d["variants"][1:]:
    if x["applicable"]:
        assert x["speed"]["measured"], f'{x["name"]} not timed: {x["speed"]["note"]}'
# every batch size: per-layer times in the JSON, their sums by type equal to the profile by type,
# and the README's "Where the time goes" table recomputed here from those per-layer times
names = d["speed"]["layer_names"]
timed = [x for x in d["variants"] if x["applicable"] and x["speed"]["measured"]]
fp16 = timed[0]
assert fp16["name"] == "fp16", fp16["name"]
for x in timed:
    assert len(x["speed"]["layer_types"]) == len(names), x["name"]
for bi, batch in enumerate(d["batches"]):
    for x in timed:
        row = x["speed"]["batches"][bi]
        assert row["batch"] == batch and len(row["layer_ms"]) == len(names), (x["name"], batch)
        by_type = {}
        for t, ms in zip(x["speed"]["layer_types"], row["layer_ms"]):
            by_type.setdefault(t, [0.0, 0])
            by_type[t][0] += ms
            by_type[t][1] += 1
        assert list(by_type) == list(row["profile_ms_by_type"]), (x["name"], batch)
        for t, (ms, n) in by_type.items():
            want = row["profile_ms_by_type"][t]
            assert n == want["layers"] and math.isclose(ms, want["ms"], rel_tol=1e-9, abs_tol=1e-12), (x["name"], t)
    for f in (f"latency-b{batch}.svg", f"layer-types-b{batch}.svg", f"kl-speedup-b{batch}.svg"):
        assert os.path.getsize(os.path.join(sys.argv[1], f)) > 0, f
    m = re.search(rf"### Where the time goes, batch {batch} .*?\n\n(.*?)\n\n", readme, re.S)
    assert m, f"no table for batch {batch}"
    rows = {r.split("|")[1].strip(): [c.strip() for c in r.split("|")[2:-1]] for r in m.group(1).splitlines()[2:]}
    f16 = fp16["speed"]["batches"][bi]["layer_ms"]
    for t in dict.fromkeys(fp16["speed"]["layer_types"]):
        idx = [i for i, u in enumerate(fp16["speed"]["layer_types"]) if u == t]
        cells = rows[t]
        assert int(cells[0]) == len(idx) and abs(float(cells[1]) - sum(f16[i] for i in idx)) < 6e-5, (batch, t, cells)
        for c, x in enumerate(timed[1:]):
            lm = x["speed"]["batches"][bi]["layer_ms"]
            ms = sum(lm[i] for i in idx)
            n8 = sum(x["speed"]["layer_types"][i].startswith("fp8 ") for i in idx)
            got = cells[2 + 2 * c]
            assert abs(float(got.split()[0]) - ms) < 6e-5 and (f"({n8} FP8)" in got) == (n8 > 0), (batch, t, x["name"], got)
            assert abs(float(cells[3 + 2 * c]) - sum(f16[i] for i in idx) / ms) < 1e-3, (batch, t, x["name"], cells)
    total = rows["every layer, summed"]
    assert abs(float(total[1]) - sum(f16)) < 6e-5, total
# how each timed model was tuned: the fp16 baseline's untuned problems must show as a warning, and
# no "ship" may rest on them
undertuned = []
for bi, batch in enumerate(d["batches"]):
    for x in timed:
        t = x["speed"]["batches"][bi]["tuning"]
        assert 0 <= t["untuned_problems"] <= t["conv_problems"] and t["conv_problems"] > 0, (x["name"], batch, t)
        # partly tuned (session 47; reports before it lack the field): disjoint from the untuned ones
        partly = t.get("partly_tuned_problems", 0)
        assert partly >= 0 and t["untuned_problems"] + partly <= t["conv_problems"], (x["name"], batch, t)
    if fp16["speed"]["batches"][bi]["tuning"]["untuned_problems"]:
        undertuned.append(batch)
        t = fp16["speed"]["batches"][bi]["tuning"]
        assert f'the fp16 baseline at batch {batch} is under-tuned: {t["untuned_problems"]} of its {t["conv_problems"]}' in readme, batch
assert ("**Warning:**" in readme) == bool(undertuned), undertuned
assert not (undertuned and d["decision"]["decision"] == "ship"), "ship against an under-tuned baseline"
print("study on CUDA: fp16 baseline under-tuned at batches", undertuned or "none")
print("study on CUDA: per-layer times and the 'Where the time goes' tables check at batches", d["batches"])
print("study on CUDA: decision", d["decision"]["decision"], "-", d["decision"]["reason"][:300])
