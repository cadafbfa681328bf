#!/usr/bin/env bash
# Session 46, call 5: `infer8 bench` on the GPU now records how each model was tuned (JSON
# "tuning") and warns when a model's cuDNN budget ran out before every conv was tuned. A synth
# inception_v3 timed at batch 1 and 32, opt level 1 (10 s budget; the study's fp16 baseline
# was left partly untuned at that level) and opt level 2, two models in one run; the check:
# every row has its tuning, and a warning names exactly the rows with untuned problems.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-140}
. tools/device-call.sh
call_setup
INFER8=$PWD/build-device/bin/infer8
stamp "synth"
mkdir -p /tmp/w
"$INFER8" synth --arch inception_v3 --seed 0 -o /tmp/w/v3 >/dev/null || echo "synth failed"
for lvl in 1 2; do
  stamp "bench opt level $lvl"
  INFER8_CUDA_DEBUG=1 timeout "$(cap 60)" "$INFER8" bench /tmp/w/v3 --device cuda --batch 1,32 --rounds 3 --iters 20 \
    --opt-level $lvl --json -o "$OUT/bench-opt$lvl.json" >/dev/null 2>"$OUT/bench-opt$lvl.log"
  echo "exit $?"
  grep -E "warning|fp16 problems after it" "$OUT/bench-opt$lvl.log" | grep -v "batch [0-9]*: [0-9]* conv problems tuned in 0" | head -6
  /usr/bin/python3 - "$OUT/bench-opt$lvl.json" "$OUT/bench-opt$lvl.log" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
log = open(sys.argv[2]).read()
for r in d["rows"]:
    t = r["tuning"]
    warned = f'{r["model"]} batch {r["batch"]}: {t["untuned_problems"]} of {t["conv_problems"]}' in log
    assert warned == (t["untuned_problems"] > 0), (r["batch"], t, warned)
    print("batch", r["batch"], "median", r["median_ms"], "tuning", t, "warned", warned)
print("bench tuning check: ok")
PY
done
pack_call call5
