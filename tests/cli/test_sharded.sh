#!/usr/bin/env bash
# A sharded snapshot (model.safetensors.index.json + 3 shards) gives the same logits as the
# single-file snapshot it was split from; a shard missing a mapped key is an error naming it.
. "$SRC/tests/lib/common.sh"
snap=$(snapshot inception_v3 0)
/usr/bin/python3 "$SRC/tests/lib/shard_snapshot.py" "$snap" "$WORK/sharded" 3
"$INFER8" gen-images --count 2 --seed 77 -o "$WORK/img" 2>/dev/null
"$INFER8" classify "$snap" --json "$WORK"/img/*.png > "$WORK/single.jsonl"
"$INFER8" classify "$WORK/sharded" --json "$WORK"/img/*.png > "$WORK/sharded.jsonl"
cmp "$WORK/single.jsonl" "$WORK/sharded.jsonl" || fail "sharded snapshot gives other logits"
echo "ok: sharded logits identical"
# damage the index: map a key to the wrong shard
/usr/bin/python3 - "$WORK/sharded/model.safetensors.index.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
k = sorted(d["weight_map"])[0]
shards = sorted(set(d["weight_map"].values()))
d["weight_map"][k] = [s for s in shards if s != d["weight_map"][k]][0]
json.dump(d, open(p, "w"))
print(k)
PY
expect_fail 2 "index.json|shard|model-0000" "$INFER8" inspect "$WORK/sharded"
