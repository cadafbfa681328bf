#!/usr/bin/env bash
# Builds the libFuzzer targets fuzz/fuzz_*.c with clang, -fsanitize=fuzzer,address,undefined,
# against the reader sources they exercise (compiled here with the same sanitizers; the main
# CMake build is not touched). Usage: fuzz/build.sh OUT_DIR. Needs clang + libclang-rt-14-dev
# (scripts/install-fuzz-deps.sh).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$SRC/build-fuzz}
CC=${FUZZ_CC:-clang}
mkdir -p "$OUT/obj"
CFLAGS=(-std=c11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
        -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I"$SRC/include" -I"$SRC/src" -I"$SRC/fuzz"
        $(pkg-config --cflags libcjson libpng libwebp))
LIBS=($(pkg-config --libs libcjson libpng libwebp libarchive) -ljpeg -lnettle -lxxhash -lm -lpthread)
# reader modules and what they need (graph: the bundle's graph section; eval: the tar reader)
srcs=("$SRC"/src/core/*.c "$SRC"/src/formats/*.c "$SRC"/src/image/*.c "$SRC"/src/quant/*.c "$SRC"/src/graph/*.c
      "$SRC"/src/eval/*.c)
objs=()
for s in "${srcs[@]}"; do
  o="$OUT/obj/$(echo "${s#$SRC/}" | tr / _).o"
  if [ ! -f "$o" ] || [ "$s" -nt "$o" ]; then
    $CC "${CFLAGS[@]}" -fsanitize=fuzzer-no-link -c "$s" -o "$o"
  fi
  objs+=("$o")
done
for t in "$SRC"/fuzz/fuzz_*.c; do
  name=$(basename "$t" .c)
  # link then rename: a target may be running from the old binary
  $CC "${CFLAGS[@]}" -fsanitize=fuzzer "$t" "${objs[@]}" "${LIBS[@]}" -o "$OUT/$name.new"
  mv -f "$OUT/$name.new" "$OUT/$name"
  echo "built $OUT/$name"
done
