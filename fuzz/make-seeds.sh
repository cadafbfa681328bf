#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets: small valid inputs made by the project itself
# (infer8 gen-images and tests/tools/i8_fuzz_seed), plus the regression inputs kept in
# tests/malformed/ and fuzz/regressions/. Usage: fuzz/make-seeds.sh BUILD_DIR OUT_DIR
# (BUILD_DIR: a CMake build with bin/infer8 and tests/tools/i8_fuzz_seed).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:?build dir}
OUT=${2:?output dir}
INFER8="$BUILD/bin/infer8"
SEED="$BUILD/tests/tools/i8_fuzz_seed"
for t in safetensors st_index config image preprocess npy scales recipe bundle tar dataset_text shard_pattern; do mkdir -p "$OUT/$t"; done
# absolute: the tar seeds are written from a scratch folder (`make fuzz` passes build-fuzz/seeds)
OUT=$(cd "$OUT" && pwd)

# images: each format, a few sizes (odd sizes, 1-pixel-wide) so every decoder path has seeds
for spec in "1 16 16" "2 1 7" "3 33 9" "4 64 48"; do
  set -- $spec
  for f in p j w; do "$SEED" image "$1" "$2" "$3" "$f" "$OUT/image/gen_$1_$2x$3.$f"; done
done
"$INFER8" gen-images --count 2 --seed 9 --size 40x30 -o "$OUT/image/gen" >/dev/null
find "$OUT/image/gen" -type f -size -64k -exec mv {} "$OUT/image/" \; 2>/dev/null || true
rm -rf "$OUT/image/gen"
# preprocessing: 8 control bytes (width, height, size, crop, interp) + pixels
printf '\x0f\x1f\x00\xdf\x00\x00\x00\x00abcdefghijklmnop' > "$OUT/preprocess/p1"
printf '\x7f\x02\x31\xff\x01\x00\x00\x00\x00\xff\x80\x40' > "$OUT/preprocess/p2"

"$SEED" safetensors "$OUT/safetensors/small.safetensors"
"$SEED" npy "$OUT/npy/small.npy"
"$SEED" scales "$OUT/scales/scales.json"
for a in inception_v3 inception_v4 inception_resnet_v2; do "$SEED" config "$a" "$OUT/config/$a.json"; done
"$SEED" bundle "$OUT/bundle/tiny.bundle" "$OUT/bundle"
# sharded-checkpoint indexes over fuzz_st_index's shards (a.safetensors: x, y; b.safetensors: z)
printf '{"metadata": {"total_size": 14}, "weight_map": {"x": "a.safetensors", "y": "a.safetensors", "z": "b.safetensors"}}' \
  > "$OUT/st_index/valid.json"
printf '{"weight_map": {"x": "b.safetensors"}}' > "$OUT/st_index/wrong_shard.json"
printf '{"weight_map": {"w": "bad.safetensors"}}' > "$OUT/st_index/bad_shard.json"
printf '{"weight_map": {"x": "../a.safetensors"}}' > "$OUT/st_index/path.json"
# dataset text files over fuzz_dataset_text's folder: an even size is read as a list file, an odd
# one as the flat folder's labels.txt (each seed padded to its parity)
printf 'flat/a.png 3\nflat/b.jpg\n# comment\nflat/c.webp 2\nflat/sub/d.png 12\nmissing.png 1\n' > "$OUT/dataset_text/list.txt"
printf 'a.png 1\nb.jpg 7\nc.webp 0\nsub/d.png 2\nnone.png 3\n\n' > "$OUT/dataset_text/labels.txt"
# shard patterns: a range, zero padding, alternatives, several groups, commas
printf 'shard-{000..009}.tar' > "$OUT/shard_pattern/range"
printf 'a/{train,val}-{1..3}.tar,b.tar' > "$OUT/shard_pattern/groups"
printf '{08..11}{x,y}' > "$OUT/shard_pattern/pad"
# recipe files (docs/fp8.md's format); the globs name convs of fuzz_recipe's small graph
printf '{"format": "infer8-recipe", "version": 1, "base": "default"}' > "$OUT/recipe/default.json"
printf '{"format": "infer8-recipe", "version": 1, "base": "none", "include": ["repeat.*", "mixed_5b.*"],
 "exclude": ["repeat.1.*"], "residual_fp8": [0, 1]}' > "$OUT/recipe/lists.json"
printf '{"format": "infer8-recipe", "version": 1, "base": "default", "exclude": ["conv2d_7b.[a-z]*"],
 "residual_fp8": [1, 1]}' > "$OUT/recipe/range.json"

# webdataset tar shards: images + .cls labels, a member in a sub-folder, a stray file
tmp=$(mktemp -d)
cp "$OUT/image/gen_1_16x16.j" "$tmp/a1.jpg"; echo 3 > "$tmp/a1.cls"
cp "$OUT/image/gen_2_1x7.p" "$tmp/b2.png"; echo 7 > "$tmp/b2.cls"
mkdir "$tmp/sub"; cp "$OUT/image/gen_2_1x7.w" "$tmp/sub/c3.webp"; echo 1 > "$tmp/sub/c3.cls"
echo hello > "$tmp/readme.txt"
(cd "$tmp" && tar --format=ustar --sort=name --owner=0 --group=0 --mtime=@0 -cf "$OUT/tar/shard.tar" a1.jpg a1.cls b2.png b2.cls sub readme.txt)
(cd "$tmp" && tar --format=gnu --owner=0 --group=0 --mtime=@0 -cf "$OUT/tar/gnu.tar" b2.png b2.cls)
rm -rf "$tmp"

# known-bad inputs: the regression corpora (by the extension the malformed corpus uses)
copy() { [ -e "$1" ] && cp "$1" "$2/" || true; }
for f in "$SRC"/tests/malformed/*; do
  case "$f" in
    *.safetensors) copy "$f" "$OUT/safetensors" ;;
    *.json) case "$(basename "$f")" in
              scales*) copy "$f" "$OUT/scales" ;; recipe*) copy "$f" "$OUT/recipe" ;; *) copy "$f" "$OUT/config" ;;
            esac ;;
    *.png|*.jpg|*.jpeg|*.webp|*.img) copy "$f" "$OUT/image" ;;
    *.npy) copy "$f" "$OUT/npy" ;;
    *.tar) copy "$f" "$OUT/tar" ;;
    *.bundle) copy "$f" "$OUT/bundle" ;;
  esac
done
for d in "$SRC"/fuzz/regressions/*/; do
  [ -d "$d" ] && cp "$d"* "$OUT/$(basename "$d")/" 2>/dev/null || true
done
echo "seeds in $OUT: $(find "$OUT" -type f | wc -l) files"
