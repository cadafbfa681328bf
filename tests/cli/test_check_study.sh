#!/usr/bin/env bash
# tools/gpu-check.d/check_study.py, the check of every CUDA study report on the device, on a real
# report from the GPU (tests/fixtures/study-cuda/): it passes as written, and fails on each
# altered copy: a number in a "Where the time goes" table, a per-layer time that no longer sums
# to the profile by type, the under-tuned baseline's warning taken out, a "ship" decision against
# that baseline, an FP8 variant left untimed, and more untuned plus partly tuned problems than
# problems.
. "$SRC/tests/lib/common.sh"
check="$SRC/tools/gpu-check.d/check_study.py"
fixture="$SRC/tests/fixtures/study-cuda/inception_v3-200"
/usr/bin/python3 "$check" "$fixture" >"$WORK/ok.txt" 2>&1 || fail "the GPU's own report fails: $(cat "$WORK/ok.txt")"
grep -q "under-tuned at batches \[1, 32\]" "$WORK/ok.txt" || fail "warning not seen: $(cat "$WORK/ok.txt")"

# alter NAME PYTHON: a copy of the fixture changed by PYTHON (d: study.json, r: README text),
# which the checker must reject
alter() {
  local name=$1 code=$2 dir="$WORK/$1"
  rm -rf "$dir" && cp -r "$fixture" "$dir"
  /usr/bin/python3 - "$dir" <<PY || fail "$name: could not alter the copy"
import json, os, re, sys
p = sys.argv[1]
d = json.load(open(os.path.join(p, "study.json")))
r = open(os.path.join(p, "README.md")).read()
$code
json.dump(d, open(os.path.join(p, "study.json"), "w"))
open(os.path.join(p, "README.md"), "w").write(r)
PY
  if /usr/bin/python3 "$check" "$dir" >"$WORK/$name.txt" 2>&1; then fail "$name: the checker accepted it"; fi
  grep -q "AssertionError" "$WORK/$name.txt" || fail "$name: failed without an assertion: $(tail -3 "$WORK/$name.txt")"
}
alter table_number 'r = re.sub(r"(\| conv1x1 \| 40 \| )([0-9.]+)", lambda m: m.group(1) + "%.4f" % (float(m.group(2)) + 0.001), r, count=1)'
alter layer_ms 'd["variants"][1]["speed"]["batches"][0]["layer_ms"][5] += 0.01'
alter no_warning 'r = r.replace("**Warning:**", "Note:")'
alter ship_on_untuned 'd["decision"]["decision"] = "ship"'
alter fp8_untimed 'd["variants"][1]["speed"]["measured"] = False'
alter partly_over_total 't = d["variants"][0]["speed"]["batches"][0]["tuning"]; t["partly_tuned_problems"] = t["conv_problems"] - t["untuned_problems"] + 1'
echo "check_study.py: accepts the GPU report, rejects 6 altered copies"
