#!/usr/bin/env bash
# Prepared in session 46 for the next session with a device machine (not run yet): the check owed
# on 'infer8 build --device cuda' warning when its stored tactics include convs the cuDNN budget
# left on cuDNN's first configuration (bundle_api.c, tune_cuda; added after session 46's last call).
# A synth inception_v3 built as an fp16 bundle with tactics at opt level 1 (call 5 of session 46:
# 42 of 54 problems untuned at both batch sizes with this budget) must warn for batch 1 and 32;
# at opt level 2 (none untuned there) it must not. Then the bundle built at level 1 is timed:
# its tactics are restored (bench's JSON tuning.restored_tactics > 0).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-200}
. tools/device-call.sh
call_setup
INFER8=$PWD/build-device/bin/infer8
mkdir -p /tmp/w
"$INFER8" synth --arch inception_v3 --seed 0 -o /tmp/w/v3 >/dev/null 2>&1 || echo "synth failed"
for lvl in 1 2; do
  stamp "build opt level $lvl"
  timeout "$(cap 80)" "$INFER8" build /tmp/w/v3 --precision fp16 --device cuda --opt-level $lvl --max-batch 32 \
    -o "/tmp/w/v3-opt$lvl.bundle" >"$OUT/build-opt$lvl.txt" 2>&1
  echo "exit $?"
  warned=$(grep -c "keep cuDNN's first configuration" "$OUT/build-opt$lvl.txt")
  echo "opt level $lvl: $warned warning line(s)"; grep "first configuration" "$OUT/build-opt$lvl.txt" | head -2
  if [ "$lvl" = 1 ] && [ "$warned" -lt 1 ]; then echo "CHECK FAILED: no warning at opt level 1"; fi
  if [ "$lvl" = 2 ] && [ "$warned" -ne 0 ]; then echo "CHECK FAILED: a warning at opt level 2"; fi
done
stamp "bench the level-1 bundle"
timeout "$(cap 40)" "$INFER8" bench /tmp/w/v3-opt1.bundle --device cuda --batch 1,32 --rounds 3 --iters 20 --json \
  -o "$OUT/bench-restored.json" >/dev/null 2>"$OUT/bench-restored.log"
/usr/bin/python3 -c "
import json, sys
for r in json.load(open('$OUT/bench-restored.json'))['rows']:
    print('batch', r['batch'], r['median_ms'], r['tuning'])
    assert r['tuning']['restored_tactics'] > 0, r
print('restored tactics: ok')"
pack_call next-call1
