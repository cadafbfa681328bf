#!/usr/bin/env bash
# End-to-end parity with timm: the committed fixtures hold timm's fp32 logits (computed on the
# device by tests/oracle/timm_logits.py) for infer8 synth snapshots and generated images. Here
# we rebuild the same snapshots and images (checking their SHA-256: synth is deterministic
# across machines), classify on the CPU reference engine and compare:
# max |ours - timm| / max |timm| <= 1e-4 and identical top-5 order, for all three families.
. "$SRC/tests/lib/common.sh"
FIX="$SRC/tests/fixtures/oracle"
"$INFER8" gen-images --count 4 --seed 1000 -o "$WORK/images" 2>/dev/null
for arch in inception_v3 inception_v4 inception_resnet_v2; do
  fixture="$FIX/$arch.json"
  [ -f "$fixture" ] || fail "fixture $fixture missing (run tools/gpu-check oracle on the device)"
  snap=$(snapshot "$arch" 0)
  "$INFER8" classify "$snap" --json --topk 5 "$WORK"/images/*.png > "$WORK/$arch.jsonl"
  /usr/bin/python3 "$SRC/tests/oracle/compare_logits.py" "$fixture" "$snap" "$WORK/images" "$WORK/$arch.jsonl"
done
