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
# hand-written seeds kept in the repository (fuzz/seeds/TARGET/: index files over fuzz_st_index's
# shards, dataset text files, shard patterns, recipe files naming fuzz_recipe's small graph);
# test_fuzz_regressions replays them through the same harnesses in make test
for d in "$SRC"/fuzz/seeds/*/; do cp "$d"* "$OUT/$(basename "$d")/"; done
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
