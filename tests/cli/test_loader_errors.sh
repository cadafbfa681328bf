#!/usr/bin/env bash
# Damaged checkpoints: each gives exit code 2 and a message that names the key, the expected
# and found shape, the dtype or the byte offset at fault; never a crash. Also usage errors.
. "$SRC/tests/lib/common.sh"
good=$(snapshot inception_v3 0)
/usr/bin/python3 "$SRC/tests/lib/make_bad_checkpoints.py" "$good" "$WORK/bad" > "$WORK/variants.txt"
cat "$WORK/variants.txt"
conv=$(awk '$1 == "wrong_shape" {print $2}' "$WORK/variants.txt")
var=$(awk '$1 == "missing_key" {print $2}' "$WORK/variants.txt")

expect_fail 2 "'$conv'.*expected shape \[[0-9, ]+\], found \[[0-9, ]+\]" "$INFER8" inspect "$WORK/bad/wrong_shape"
expect_fail 2 "'$conv'.*I32" "$INFER8" inspect "$WORK/bad/wrong_dtype"
expect_fail 2 "missing tensor '$var'" "$INFER8" inspect "$WORK/bad/missing_key"
expect_fail 2 "model.safetensors.*(offset|bytes|beyond|past|truncat)" "$INFER8" inspect "$WORK/bad/truncated"
expect_fail 2 "config.json.*(offset|byte)" "$INFER8" inspect "$WORK/bad/bad_json"
expect_fail 2 "crop_pct" "$INFER8" inspect "$WORK/bad/bad_config"
expect_fail 2 "no such file" "$INFER8" inspect "$WORK/does-not-exist"
expect_fail 2 "needs the architecture" "$INFER8" inspect "$good/model.safetensors"
# a .bundle without the magic (damaged, or another file renamed) is named as such, --arch or not
head -c 100 "$good/model.safetensors" > "$WORK/not-a.bundle"
expect_fail 2 "not-a.bundle: not an infer8 bundle.*magic" "$INFER8" inspect "$WORK/not-a.bundle"
expect_fail 2 "not an infer8 bundle" "$INFER8" classify "$WORK/not-a.bundle" --arch inception_v3 --image x.png
: > "$WORK/empty.bundle"
expect_fail 2 "empty.bundle: not an infer8 bundle" "$INFER8" inspect "$WORK/empty.bundle"
expect_fail 64 "unknown option" "$INFER8" inspect "$good" --bogus
expect_fail 64 "unknown command" "$INFER8" frobnicate
expect_fail 64 "opt-level expects an integer in \\[0, 3\\], got '4'" "$INFER8" classify "$good" --opt-level 4
expect_fail 64 "opt-level expects an integer in \\[0, 3\\]" "$INFER8" build "$good" --opt-level x -o "$WORK/x.bundle"
expect_fail 64 "opt-level expects an integer in \\[0, 3\\]" "$INFER8" study "$good" --images "$WORK" --opt-level -1 -o "$WORK/s"
# --seed is a non-negative integer: a sign (which strtoull would wrap), trailing text and overflow
for bad in -1 " 1" 1x 18446744073709551616; do
  expect_fail 64 "--seed expects a non-negative integer, got '" "$INFER8" synth --arch inception_v3 --seed "$bad" -o "$WORK/sd"
done
[ ! -e "$WORK/sd" ] || fail "synth wrote a snapshot for a bad --seed"
# --size is exactly WxH in 1..16384: trailing text, a sign, overflow and a missing side are refused
for bad in 64x48junk 64x 0x48 +64x48 64x-48 99999999999x1 64x16385 x48 " 64x48"; do
  expect_fail 64 "--size expects WxH \\(1..16384\\), got '" "$INFER8" gen-images --count 1 --size "$bad" -o "$WORK/sz"
  grep -qF -- "got '$bad'" "$WORK/stderr" || fail "the --size error does not quote '$bad': $(cat "$WORK/stderr")"
done
[ ! -e "$WORK/sz" ] || fail "gen-images wrote images for a bad --size"
"$INFER8" gen-images --count 1 --size 16384x1 -o "$WORK/sz-ok" >/dev/null || fail "gen-images --size 16384x1"
/usr/bin/python3 -c "from PIL import Image; import sys, glob; im = Image.open(glob.glob(sys.argv[1] + '/*')[0]); assert im.size == (16384, 1), im.size" "$WORK/sz-ok" ||
  fail "gen-images --size 16384x1 did not write a 16384x1 image"
# the bare file with --arch loads
out=$("$INFER8" inspect "$good/model.safetensors" --arch inception_v3) || fail "bare safetensors with --arch: inspect failed"
grep -q "convolutions" <<<"$out" || fail "bare safetensors with --arch"
# a corrupt image among good ones: reported, named, exit 2, the good one still classified
"$INFER8" gen-images --count 1 --seed 5 -o "$WORK/img" 2>/dev/null
head -c 300 "$WORK/img/img_000005.png" > "$WORK/img/cut.png"
expect_fail 2 "cut.png" "$INFER8" classify "$good" "$WORK/img/img_000005.png" "$WORK/img/cut.png"
grep -q "img_000005.png" "$WORK/stdout" || fail "good image not classified next to a bad one"
# an unreadable image names the reason; classify reads a folder as its images (the corrupt one
# named, the good one still classified; tests/cli/test_classify_folder.sh), preprocess takes one file
expect_fail 2 "nope.png: cannot open: No such file or directory" "$INFER8" classify "$good" --image "$WORK/img/nope.png"
expect_fail 2 "img/cut.png: .*corrupt PNG" "$INFER8" classify "$good" --image "$WORK/img"
grep -q "img/img_000005.png" "$WORK/stdout" || fail "a folder's good image not classified next to its bad one"
expect_fail 2 "img: is a folder" "$INFER8" preprocess "$good" --image "$WORK/img" -o "$WORK/p.npy"
# "-" reads the image from standard input (a pipe here): the same logits as the file, named "-"
"$INFER8" classify "$good" --json --image "$WORK/img/img_000005.png" > "$WORK/file.jsonl"
cat "$WORK/img/img_000005.png" | "$INFER8" classify "$good" --json --image - > "$WORK/stdin.jsonl" ||
  fail "classify --image - from a pipe"
grep -q '^{"image": "-", ' "$WORK/stdin.jsonl" || fail "stdin image not named '-': $(head -c 80 "$WORK/stdin.jsonl")"
cmp <(sed 's/^{"image": "[^"]*", //' "$WORK/file.jsonl") <(sed 's/^{"image": "[^"]*", //' "$WORK/stdin.jsonl") ||
  fail "classify --image - gives other logits than the file"
"$INFER8" classify "$good" --json - < "$WORK/img/img_000005.png" > "$WORK/stdin-bare.jsonl" || fail "classify MODEL - (bare)"
cmp "$WORK/stdin.jsonl" "$WORK/stdin-bare.jsonl" || fail "a bare - differs from --image -"
expect_fail 64 "standard input \(-\) can be given as one image only" "$INFER8" classify "$good" --image - -
"$INFER8" preprocess "$good" --image - -o "$WORK/stdin.npy" < "$WORK/img/img_000005.png" || fail "preprocess --image -"
"$INFER8" preprocess "$good" --image "$WORK/img/img_000005.png" -o "$WORK/file.npy"
cmp "$WORK/stdin.npy" "$WORK/file.npy" || fail "preprocess --image - differs from the file"
echo "loader errors: all cases ok"
