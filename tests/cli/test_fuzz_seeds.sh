#!/usr/bin/env bash
# fuzz/make-seeds.sh (the seed corpora of `make fuzz`) with a relative output folder, as `make
# fuzz` gives it: every target gets seeds, and the two webdataset tar shards hold their members
# (session 30: the tar seeds were written from a scratch folder, so a relative output path broke
# `make fuzz` before any target ran).
. "$SRC/tests/lib/common.sh"
[ -x "$BUILD/tests/tools/i8_fuzz_seed" ] || fail "no $BUILD/tests/tools/i8_fuzz_seed"
(cd "$WORK" && bash "$SRC/fuzz/make-seeds.sh" "$BUILD" seeds) >"$WORK/make-seeds.log" 2>&1 ||
  { cat "$WORK/make-seeds.log" >&2; fail "make-seeds.sh with a relative output folder"; }
for t in safetensors st_index config image preprocess npy scales recipe bundle tar dataset_text shard_pattern; do
  n=$(find "$WORK/seeds/$t" -type f | wc -l)
  [ "$n" -ge 1 ] || fail "no seeds for fuzz_$t"
done
members=$(tar -tf "$WORK/seeds/tar/shard.tar" | tr '\n' ' ')
[ "$members" = "a1.jpg a1.cls b2.png b2.cls sub/ sub/c3.cls sub/c3.webp readme.txt " ] || fail "shard.tar members: $members"
[ "$(tar -tf "$WORK/seeds/tar/gnu.tar" | tr '\n' ' ')" = "b2.png b2.cls " ] || fail "gnu.tar members"
echo "ok: seeds for every target, $(find "$WORK/seeds" -type f | wc -l) files"
