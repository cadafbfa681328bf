#!/usr/bin/env bash
# Datasets, stress inputs and SVG plots of src/eval through tests/tools/i8_dataset_tool:
# every layout built here from generated images (webdataset tar shards made with Debian's tar),
# brace expansion, take/every/calib selection checked by exact keys, corrupt members and a
# truncated tar skipped and counted, the member size limit, the stress set (count, unique names,
# deterministic bytes, PNG pixels hashed independently by Python), docs/stress-inputs.md in sync,
# and the SVG files parsed as XML.
source "$SRC/tests/lib/common.sh"
T="$TOOLS/i8_dataset_tool"
[ -x "$T" ] || fail "missing $T"
PY=/usr/bin/python3

# ---- source images: 24 generated PNGs, JPEG copies made by Pillow (an independent encoder) ----
"$INFER8" gen-images -o "$WORK/png" --count 24 --size 40x30 >/dev/null
mkdir -p "$WORK/jpg"
$PY - "$WORK/png" "$WORK/jpg" <<'EOF'
import sys, os
from PIL import Image
src, dst = sys.argv[1:]
for f in sorted(os.listdir(src)):
    Image.open(os.path.join(src, f)).convert("RGB").save(os.path.join(dst, f[:-4] + ".jpg"), quality=90)
EOF

# summary FIELD: a number from the "# layout ..." line of the last list output
summary() { awk -v k="$1" '$1 == "#" && $2 == "layout" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }' "$WORK/out"; }
keys() { grep -v '^#' "$WORK/out" | awk '{print $4}' | tr '\n' ' ' | sed 's/ $//'; }
list() { "$T" list "$@" >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "list $*"; }; }

# ---- webdataset shards: 4 x 5 samples, keys sample0000NN, label NN % 7 ----
mkdir -p "$WORK/wds/stage" "$WORK/wds/shards"
for i in $(seq 0 19); do
  k=$(printf 'sample%06d' "$i")
  cp "$WORK/jpg/img_$(printf '%06d' "$i").jpg" "$WORK/wds/stage/$k.jpg"
  printf '%d\n' $((i % 7)) >"$WORK/wds/stage/$k.cls"
  printf '{"i": %d}\n' "$i" >"$WORK/wds/stage/$k.json"   # other fields are ignored
done
for s in 0 1 2 3; do
  members=()
  for i in $(seq $((s * 5)) $((s * 5 + 4))); do
    k=$(printf 'sample%06d' "$i"); members+=("$k.jpg" "$k.cls" "$k.json")
  done
  tar -cf "$WORK/wds/shards/shard-$(printf '%06d' $s).tar" -C "$WORK/wds/stage" "${members[@]}"
done
SH="$WORK/wds/shards"

"$T" expand "$SH/shard-{000000..000003}.tar" >"$WORK/out"
[ "$(wc -l <"$WORK/out")" -eq 4 ] && [ "$(sed -n 4p "$WORK/out")" = "$SH/shard-000003.tar" ] || fail "brace expansion"
[ "$("$T" expand 'a{8..11}.tar,b{01..02}.tar' | tr '\n' ' ')" = "a8.tar a9.tar a10.tar a11.tar b01.tar b02.tar " ] ||
  fail "range without padding / comma list"
expect_fail 1 "decreasing" "$T" expand 'x{3..1}.tar'
expect_fail 1 "unbalanced" "$T" expand 'x{1..3.tar'

list "$SH/shard-{000000..000003}.tar"
[ "$(summary yielded)" = 20 ] && [ "$(summary layout)" = tar ] || fail "20 samples from 4 shards"
want=$(for i in $(seq 0 19); do printf 'sample%06d ' "$i"; done | sed 's/ $//')
[ "$(keys)" = "$want" ] || fail "keys in shard order: $(keys)"
# sample 9: label 2, JPEG, 40x30, byte count of the member
line=$(grep ' sample000009 ' "$WORK/out")
bytes=$(stat -c %s "$WORK/wds/stage/sample000009.jpg")
[ "$line" = "9 9 held sample000009 2 $bytes j 40x30" ] || fail "sample 9 line: $line"
echo "ok: 4 shards, 20 samples, keys, labels, sizes"
# each sample names the shard it came from, including the last sample of a shard (its group
# ends only when the shard has ended)
list "$SH/shard-{000000..000003}.tar" --source
bad_src=$(grep -v '^#' "$WORK/out" | awk '{ want = sprintf("shard-%06d.tar", int($1 / 5)); if ($9 != want) print $1 ":" $9 }')
[ -z "$bad_src" ] || fail "samples attributed to the wrong shard: $bad_src"
echo "ok: sample sources"

# take 4 every 3, calib 2: positions 0 3 6 9 (across the shard boundary); first 2 calibrate
list "$SH/shard-{000000..000003}.tar" --take 4 --every 3 --calib 2
[ "$(keys)" = "sample000000 sample000003 sample000006 sample000009" ] || fail "take/every keys: $(keys)"
[ "$(grep -v '^#' "$WORK/out" | awk '{print $1 ":" $2 ":" $3}' | tr '\n' ' ')" = "0:0:calib 3:1:calib 6:2:held 9:3:held " ] ||
  fail "take/every split"
[ "$(summary seen)" = 10 ] || fail "take stops reading after the 4th selected sample (seen $(summary seen))"
# the study's selection, scaled: every 5th of 20, no take limit, calib 1
list "$SH/shard-000000.tar,$SH/shard-000002.tar" --every 5 --calib 1
[ "$(keys)" = "sample000000 sample000010" ] || fail "comma list + every: $(keys)"
echo "ok: take/every/calib, comma list"

# ---- corrupt members: truncated JPEG, bad .cls, sample without image, oversize member ----
mkdir -p "$WORK/bad"
cp "$WORK/jpg/img_000020.jpg" "$WORK/bad/sample000100.jpg"; echo 1 >"$WORK/bad/sample000100.cls"
head -c 300 "$WORK/jpg/img_000021.jpg" >"$WORK/bad/sample000101.jpg"; echo 2 >"$WORK/bad/sample000101.cls"
cp "$WORK/jpg/img_000022.jpg" "$WORK/bad/sample000102.jpg"; echo "abc" >"$WORK/bad/sample000102.cls"
echo 4 >"$WORK/bad/sample000103.cls"
cp "$WORK/jpg/img_000023.jpg" "$WORK/bad/sample000104.jpg"; echo 99999999 >"$WORK/bad/sample000104.cls"
head -c 5000 /dev/urandom >"$WORK/bad/sample000105.jpg"
cp "$WORK/png/img_000023.png" "$WORK/bad/sample000106.png"; echo 6 >"$WORK/bad/sample000106.cls"
tar -cf "$SH/bad.tar" -C "$WORK/bad" sample000100.jpg sample000100.cls sample000101.jpg sample000101.cls \
  sample000102.jpg sample000102.cls sample000103.cls sample000104.jpg sample000104.cls sample000105.jpg \
  sample000106.png sample000106.cls
list "$SH/bad.tar" --num-classes 1000
[ "$(keys)" = "sample000100 sample000106" ] || fail "corrupt members skipped: $(keys)"
[ "$(summary skipped)" = 5 ] && [ "$(summary seen)" = 7 ] || fail "5 skipped of 7: $(tail -1 "$WORK/out")"
grep -q "sample000101.*skipped" "$WORK/err" || fail "truncated JPEG reported"
grep -q "sample000102.cls.*not an ASCII integer" "$WORK/err" || fail "bad .cls reported"
grep -q "sample000103.*no .jpg" "$WORK/err" || fail "missing image reported"
grep -q "sample000104.cls" "$WORK/err" || fail "label out of range reported"
grep -q "sample000105.*not a JPEG" "$WORK/err" || fail "garbage image reported"
# without decoding, the truncated JPEG passes (its header is valid): decoding is what finds it
list "$SH/bad.tar" --num-classes 1000 --no-decode
[ "$(keys)" = "sample000100 sample000101 sample000106" ] || fail "no-decode keys: $(keys)"
# member size limit, checked before reading: the PNG (bigger than every JPEG) is refused
png_bytes=$(stat -c %s "$WORK/bad/sample000106.png"); jpg_bytes=$(stat -c %s "$WORK/bad/sample000100.jpg")
[ "$png_bytes" -gt "$jpg_bytes" ] || fail "fixture: PNG should be larger than JPEG"
list "$SH/bad.tar" --max-member $((png_bytes - 1))
[ "$(keys)" = "sample000100" ] || fail "member limit: $(keys)"
grep -q "sample000106.png' is $png_bytes bytes, above the limit of $((png_bytes - 1))" "$WORK/err" || fail "limit message"
list "$SH/bad.tar" --max-member "$png_bytes"
[ "$(keys)" = "sample000100 sample000106" ] || fail "member exactly at the limit is read"
echo "ok: corrupt members skipped and counted, member size limit"
# a second pass after rewind (the study reads a dataset twice) reports the same issues once:
# same stats and kept messages as one pass, no issue told twice
list "$SH/bad.tar" --num-classes 1000
grep '^# ' "$WORK/out" >"$WORK/one_pass.txt"; grep -c '^issue:' "$WORK/err" >"$WORK/one_told.txt"
list "$SH/bad.tar" --num-classes 1000 --passes 2
[ "$(keys)" = "sample000100 sample000106" ] || fail "second pass keys: $(keys)"
grep '^# ' "$WORK/out" | diff "$WORK/one_pass.txt" - || fail "stats or kept issues differ after a rewind"
[ "$(grep -c '^issue:' "$WORK/err")" = "$(cat "$WORK/one_told.txt")" ] || fail "issues told again on the second pass"
[ "$(summary issues)" -ge 5 ] || fail "issues of one pass: $(summary issues)"
echo "ok: rewind: one pass's stats and issues, each issue told once"

# ---- truncated tar followed by a good shard: the rest of the bad shard is lost, nothing else ----
size=$(stat -c %s "$SH/shard-000001.tar")
head -c $((size / 2 + 100)) "$SH/shard-000001.tar" >"$SH/trunc.tar"
list "$SH/trunc.tar,$SH/shard-000003.tar"
[ "$(summary bad_shards)" = 1 ] || fail "truncated tar counted: $(tail -1 "$WORK/out")"
k=$(keys)
case "$k" in
  sample000005*"sample000015 sample000016 sample000017 sample000018 sample000019") ;;
  *) fail "truncated shard then good shard: $k" ;;
esac
n=$(summary yielded); [ "$n" -ge 6 ] && [ "$n" -le 9 ] || fail "some of the truncated shard's samples survive ($n)"
grep -q "trunc.tar" "$WORK/err" || fail "truncation reported"
expect_fail 1 "shard-000004.tar: shard 1 of" "$T" list "$SH/shard-{000003..000004}.tar"
echo "ok: truncated tar skipped, missing shard is an error"

# ---- ImageFolder: classes sorted (ant=0, cat=1, dog=2), files sorted, other files ignored ----
IF="$WORK/imagefolder"
mkdir -p "$IF/dog" "$IF/cat" "$IF/ant"
cp "$WORK/png/img_000001.png" "$WORK/png/img_000002.png" "$IF/dog/"
cp "$WORK/jpg/img_000003.jpg" "$IF/cat/"; cp "$WORK/png/img_000004.png" "$IF/cat/b.PNG"
cp "$WORK/png/img_000005.png" "$IF/ant/"; echo notes >"$IF/ant/readme.txt"
head -c 100 "$WORK/png/img_000006.png" >"$IF/ant/zz_truncated.png"
list "$IF" --calib 2
[ "$(summary layout)" = imagefolder ] || fail "imagefolder detected"
[ "$(keys)" = "ant/img_000005 cat/b cat/img_000003 dog/img_000001 dog/img_000002" ] || fail "imagefolder keys: $(keys)"
[ "$(grep -v '^#' "$WORK/out" | awk '{print $5}' | tr '\n' ' ')" = "0 1 1 2 2 " ] || fail "imagefolder labels"
# the split is by subset position: zz_truncated (position 1, skipped) was a calibration sample
[ "$(grep -v '^#' "$WORK/out" | awk '{print $2 ":" $3}' | tr '\n' ' ')" = "0:calib 2:held 3:held 4:held 5:held " ] ||
  fail "calib split by subset position"
grep -q "^# class 1 cat$" "$WORK/out" || fail "class names"
[ "$(summary skipped)" = 1 ] && grep -q "zz_truncated" "$WORK/err" || fail "truncated PNG skipped and reported"
echo "ok: imagefolder"

# ---- flat folder with labels.txt (a bad line and an unknown file are issues, not errors) ----
FL="$WORK/flat"
mkdir -p "$FL"
cp "$WORK/png/img_000007.png" "$WORK/png/img_000008.png" "$WORK/jpg/img_000009.jpg" "$FL/"
printf 'img_000007.png 5\nimg_000009.jpg 12\n# comment\nnot_there.png 3\nimg_000008.png x\n' >"$FL/labels.txt"
list "$FL"
[ "$(summary layout)" = flat ] || fail "flat detected"
[ "$(grep -v '^#' "$WORK/out" | awk '{print $4 ":" $5 ":" $7}' | tr '\n' ' ')" = "img_000007:5:p img_000008:-1:p img_000009:12:j " ] ||
  fail "flat labels: $(cat "$WORK/out")"
grep -q "labels.txt:4: no image 'not_there.png'" "$WORK/err" && grep -q "labels.txt:5:" "$WORK/err" || fail "labels.txt issues"
list "$FL" --num-classes 10
[ "$(keys)" = "img_000007 img_000008" ] && [ "$(summary skipped)" = 1 ] || fail "label 12 >= 10 classes skipped"
echo "ok: flat + labels.txt"

# ---- list file: relative and absolute paths, optional labels, a missing file ----
mkdir -p "$WORK/lists/sub"
cp "$WORK/png/img_000010.png" "$WORK/lists/sub/a.png"
printf 'sub/a.png 3\n%s\n\nsub/missing.png 1\n%s 4\n' "$WORK/jpg/img_000011.jpg" "$WORK/jpg/img_000012.jpg" >"$WORK/lists/val.txt"
list "$WORK/lists/val.txt" --every 1
[ "$(summary layout)" = list ] || fail "list detected"
[ "$(grep -v '^#' "$WORK/out" | awk '{print $1 ":" $5}' | tr '\n' ' ')" = "0:3 1:-1 3:4 " ] || fail "list entries: $(cat "$WORK/out")"
grep -q "missing.png" "$WORK/err" && [ "$(summary skipped)" = 1 ] || fail "missing list entry skipped"
# a name with a terminal escape (ESC [2J, clear screen) is reported escaped, never raw
printf 'sub/a.png 3\nsub/evil\033[2J.png 1\n' >"$WORK/lists/esc.txt"
list "$WORK/lists/esc.txt"
grep -qF 'sub/evil\x1b[2J.png' "$WORK/err" || fail "escaped name not in the issue: $(cat -v "$WORK/err")"
grep -qF 'sub/evil\x1b[2J.png' "$WORK/out" || fail "escaped name not in the kept issues"
! grep -q $'\033' "$WORK/err" "$WORK/out" || fail "a raw ESC byte reached the output"
echo "ok: list file"

# ---- stress inputs ----
"$T" stress "$WORK/stress" >"$WORK/stress1.txt"
"$T" stress "$WORK/stress2" >"$WORK/stress2.txt"
cmp -s "$WORK/stress1.txt" "$WORK/stress2.txt" || fail "stress hashes differ between runs"
n=$(wc -l <"$WORK/stress1.txt"); [ "$n" -ge 29 ] || fail "only $n stress inputs"
[ "$(awk '{print $1}' "$WORK/stress1.txt" | sort -u | wc -l)" -eq "$n" ] || fail "stress names not unique"
$PY - "$WORK/stress" "$WORK/stress1.txt" <<'EOF'
# Independent check: Pillow decodes each PNG; size must match, and for images up to 300k pixels
# FNV-1a 64 over (w, h little-endian, pixels) must equal the tool's hash.
import sys, struct
from PIL import Image
d, listing = sys.argv[1:]
checked = 0
for line in open(listing):
    name, size, h = line.split()
    im = Image.open(f"{d}/{name}.png")
    assert im.mode == "RGB", name
    w, hh = map(int, size.split("x"))
    assert im.size == (w, hh), (name, im.size)
    if w * hh <= 300000:
        v = 0xcbf29ce484222325
        for b in struct.pack("<II", w, hh) + im.tobytes():
            v = ((v ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
        assert f"{v:016x}" == h, (name, f"{v:016x}", h)
        checked += 1
px = Image.open(f"{d}/checker_1px.png").load()
assert px[0, 0] == (0, 0, 0) and px[1, 0] == (255, 255, 255) and px[1, 1] == (0, 0, 0)
assert Image.open(f"{d}/yellow.png").getpixel((7, 9)) == (255, 255, 0)
assert Image.open(f"{d}/stripes_v_8px.png").getpixel((8, 0)) == (255, 255, 255)
print("ok: stress PNGs decoded by Pillow,", checked, "hashes recomputed")
EOF
"$T" stress-doc | diff - "$SRC/docs/stress-inputs.md" >/dev/null ||
  fail "docs/stress-inputs.md is stale: $T stress-doc > docs/stress-inputs.md"
echo "ok: stress set ($n inputs), deterministic, documented"

# ---- SVG plots: well-formed XML, escaped labels read back, deterministic bytes ----
mkdir -p "$WORK/svg1" "$WORK/svg2"
"$T" svg "$WORK/svg1" && "$T" svg "$WORK/svg2"
for f in latency kl_speedup layer_time; do cmp -s "$WORK/svg1/$f.svg" "$WORK/svg2/$f.svg" || fail "$f.svg not deterministic"; done
$PY - "$WORK/svg1" <<'EOF'
import sys, xml.etree.ElementTree as ET
d = sys.argv[1]
ns = "{http://www.w3.org/2000/svg}"
texts = {}
for f in ("latency", "kl_speedup", "layer_time"):
    root = ET.parse(f"{d}/{f}.svg").getroot()
    assert root.tag == ns + "svg", root.tag
    texts[f] = ["".join(t.itertext()) for t in root.iter(ns + "text")]
assert 'fp8 recipe <&>"\'' in texts["latency"], texts["latency"]
assert "fp8 r\u00e9sidual ? bad?" in texts["latency"]
assert "n/a" in texts["latency"] and "0.905 ms [0.897 - 0.921]" in texts["latency"]
assert "fp8 residual 10-39 & more" in texts["kl_speedup"]
assert any(t.startswith("n/a (not finite): nan variant") for t in texts["kl_speedup"])
assert "conv 1x1 <biased>" in texts["layer_time"] and "fp8 & fused" in texts["layer_time"]
root = ET.parse(f"{d}/kl_speedup.svg").getroot()
assert len(list(root.iter(ns + "circle"))) == 4   # the non-finite point is not drawn
root = ET.parse(f"{d}/layer_time.svg").getroot()
assert len([r for r in root.iter(ns + "rect") if r.find(ns + "title") is not None]) == 7  # 8 values, 1 NaN
print("ok: SVG parsed, labels escaped")
EOF
echo "PASS"
