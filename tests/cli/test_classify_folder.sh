#!/usr/bin/env bash
# classify: a folder named as an image stands for its .jpg/.jpeg/.png/.webp files (any case), in
# byte order of their names, in the folder's place among the other images; hidden files, other
# files and sub-folders are skipped. Oracle: the same images named one by one give the same rows,
# bit for bit (same batch, same order). A folder without images is refused (exit 2, named).
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

run() { "$INFER8" classify "$snap" --device cpu --topk 1 --json "$@"; }
run "$WORK/other/first.png" "$d" "$WORK/other/last.png" >"$WORK/folder.jsonl" || fail "classify with a folder"
run "$WORK/other/first.png" "$d/Z.PNG" "$d/b.png" "$WORK/other/last.png" >"$WORK/files.jsonl" || fail "classify files"
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
print("ok: a folder classifies as its images named one by one, in byte order, in its place")
PY
expect_fail 2 "empty: a folder with no .jpg, .jpeg, .png or .webp files" "$INFER8" classify "$snap" --device cpu "$WORK/empty"
echo "ok: classify folders"
