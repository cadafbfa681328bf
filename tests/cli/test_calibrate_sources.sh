#!/usr/bin/env bash
# calibrate and build --calib-images read their images as study does (src/eval/dataset.h): a flat
# folder, one sub-folder per class, a list file, webdataset tar shards. Oracle: the same 6 images
# in the same order through each layout give the same scales.json, value for value (the scales are
# a deterministic function of the images and their order: docs/fp8.md); --count takes the first N
# of any of them; a corrupt tar member is skipped and named; a source without images is refused.
. "$SRC/tests/lib/common.sh"
snap=$(snapshot inception_v3 0)
"$INFER8" gen-images --count 6 --seed 21 --size 96x80 -o "$WORK/gen" >/dev/null
mkdir -p "$WORK/flat" "$WORK/classes/a" "$WORK/classes/b" "$WORK/stage" "$WORK/none"
i=0
for f in "$WORK"/gen/*.png; do
  k=$(printf 's%02d' $i)
  cp "$f" "$WORK/flat/$k.png"
  # dataset order: class folders sorted, then names: a/s00..s02, b/s03..s05
  if [ $i -lt 3 ]; then cp "$f" "$WORK/classes/a/$k.png"; else cp "$f" "$WORK/classes/b/$k.png"; fi
  cp "$f" "$WORK/stage/$k.png" && echo $((i % 2)) >"$WORK/stage/$k.cls"
  echo "flat/$k.png" >>"$WORK/list.txt"
  i=$((i + 1))
done
printf 'not an image' >"$WORK/stage/s02x.png" # sorts after s02: a corrupt sample between s02 and s03
(cd "$WORK/stage" && tar -cf "$WORK/shard-0.tar" s00.* s01.* s02.* s02x.* && tar -cf "$WORK/shard-1.tar" s03.* s04.* s05.*)
echo "not an image" >"$WORK/none/readme.txt"

cal() { local out=$1; shift; "$INFER8" calibrate "$snap" --device cpu --method max -o "$WORK/$out.json" "$@" 2>"$WORK/$out.log" ||
  { cat "$WORK/$out.log"; fail "calibrate $out"; }; }
cal flat --images "$WORK/flat"
cal classes --images "$WORK/classes"
cal list --images "$WORK/list.txt"
cal tar --images "$WORK/shard-{0..1}.tar"
cal tarall --images "$WORK/shard-{0..1}.tar" --count 0
# progress over tar shards without a count: the total is not known until the end (7 samples, one corrupt)
grep -q '^calibrate: 0 done (.*total not known yet)$' "$WORK/tarall.log" && grep -q '^calibrate: 7/7 (100%' "$WORK/tarall.log" &&
  ! grep -q '^calibrate: [1-6]/' "$WORK/tarall.log" || fail "progress without a known total: $(cat "$WORK/tarall.log")"
cal flat4 --images "$WORK/flat" --count 4
cal list4 --images "$WORK/list.txt" --count 4
grep -q "shard-0.tar: sample 's02x'.*skipped" "$WORK/tar.log" || fail "the corrupt tar member is not named: $(cat "$WORK/tar.log")"
grep -q "6 images (1 skipped)" "$WORK/tar.log" || fail "tar summary: $(tail -1 "$WORK/tar.log")"
/usr/bin/python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
def scales(name):
    d = json.load(open(f"{w}/{name}.json"))
    t = d["tensors"] if isinstance(d.get("tensors"), dict) else {e["name"]: e for e in d["tensors"]}
    return d, {k: (v["amax"], v["scale"]) for k, v in t.items()}
base, ref = scales("flat")
# inception_v3's tensors read as FP8: 70 until session 68, when its 9 pool branches' pools moved
# below their 1x1 convs (i8_pass_sink_avgpool), which now read the block input instead
assert base["images"] == 6 and len(ref) == 61, (base["images"], len(ref))
for name in ("classes", "list", "tar", "tarall"):
    d, s = scales(name)
    assert d["images"] == 6 and s == ref, name
d4, s4 = scales("flat4")
dl4, sl4 = scales("list4")
assert d4["images"] == 4 and s4 == sl4 and s4 != ref
print("ok: flat folder, class folders, list file and tar shards give the same scales; --count 4 differs")
PY
expect_fail 2 "none: no class folders and no images" "$INFER8" calibrate "$snap" --images "$WORK/none" -o "$WORK/x.json"
expect_fail 2 "nope-0.tar" "$INFER8" calibrate "$snap" --images "$WORK/nope-{0..1}.tar" -o "$WORK/x.json"
[ ! -e "$WORK/x.json" ] || fail "a refused calibration wrote its output"
echo "ok: calibrate sources"
