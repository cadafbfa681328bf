#!/usr/bin/env bash
# classify: a folder named as an image stands for its images, read as calibrate and study read a
# folder (src/eval/dataset.h): its .jpg/.jpeg/.png/.webp files (any case) in byte order of their
# names, hidden files, other files and sub-folders skipped; a folder holding no images but class
# sub-folders stands for theirs, class by class. They take the folder's place among the other
# images. Oracle: the same images named one by one give the same rows, bit for bit (same batch,
# same order). A folder without images is refused (exit 2, named).
. "$SRC/tests/lib/common.sh"
snap=$(snapshot inception_v3 0)
"$INFER8" gen-images --count 4 --seed 7 -o "$WORK/gen" >/dev/null
d="$WORK/photos"
mkdir -p "$d/sub" "$WORK/empty" "$WORK/other"
cp "$WORK/gen/img_000007.png" "$d/b.png"
cp "$WORK/gen/img_000008.png" "$d/Z.PNG"      # 'Z' sorts before 'b' in byte order
cp "$WORK/gen/img_000009.png" "$d/.hidden.png"
cp "$WORK/gen/img_000009.png" "$d/sub/c.png"
echo "not an image" >"$d/notes.txt"
cp "$WORK/gen/img_000010.png" "$WORK/other/first.png"
cp "$WORK/gen/img_000009.png" "$WORK/other/last.png"
echo "not an image" >"$WORK/empty/readme.txt"

mkdir -p "$WORK/tree/dog" "$WORK/tree/cat"
cp "$WORK/gen/img_000007.png" "$WORK/tree/dog/d1.png"
cp "$WORK/gen/img_000008.png" "$WORK/tree/cat/c2.png"
cp "$WORK/gen/img_000010.png" "$WORK/tree/cat/c1.png"
run() { "$INFER8" classify "$snap" --device cpu --topk 1 --json "$@"; }
run "$WORK/other/first.png" "$d" "$WORK/other/last.png" >"$WORK/folder.jsonl" || fail "classify with a folder"
run "$WORK/other/first.png" "$d/Z.PNG" "$d/b.png" "$WORK/other/last.png" >"$WORK/files.jsonl" || fail "classify files"
run "$WORK/tree" --batch 4 >"$WORK/tree.jsonl" || fail "classify a class tree"
/usr/bin/python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
rows = lambda n: [json.loads(l) for l in open(f"{w}/{n}") if l.strip()]
a, b = rows("folder.jsonl"), rows("files.jsonl")
want = [f"{w}/other/first.png", f"{w}/photos/Z.PNG", f"{w}/photos/b.png", f"{w}/other/last.png"]
assert [r["image"] for r in a] == want, [r["image"] for r in a]
assert [r["image"] for r in b] == want, [r["image"] for r in b]
for x, y in zip(a, b):
    assert x["logits"] == y["logits"] and len(x["logits"]) == 1000, x["image"]
assert a[1]["logits"] != a[2]["logits"]  # different images, different rows
t = rows("tree.jsonl")
assert [r["image"] for r in t] == [f"{w}/tree/cat/c1.png", f"{w}/tree/cat/c2.png", f"{w}/tree/dog/d1.png"], [r["image"] for r in t]
# c1.png is first.png's image and d1.png b.png's; another batch size may sum in another order
close = lambda x, y: max(abs(p - q) for p, q in zip(x, y)) <= 1e-4 * max(abs(q) for q in y)
assert close(t[0]["logits"], a[0]["logits"]) and close(t[2]["logits"], a[2]["logits"])
assert not close(t[0]["logits"], a[2]["logits"])
print("ok: a folder classifies as its images named one by one, in byte order, in its place")
PY
expect_fail 2 "empty: no class folders and no images" "$INFER8" classify "$snap" --device cpu "$WORK/empty"
mkdir -p "$WORK/hollow/a" # a class folder without images: refused too, not an empty run
expect_fail 2 "hollow: no .jpg, .jpeg, .png or .webp images" "$INFER8" classify "$snap" --device cpu "$WORK/hollow"
echo "ok: classify folders"
