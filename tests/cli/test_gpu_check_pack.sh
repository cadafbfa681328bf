#!/usr/bin/env bash
# tools/gpu-check packs $OUT when a run leaves more files there than the device brings back (8):
# the unpacked files go into the next gpu-check-out-N.tar.gz with nothing lost, archives already
# there are kept apart, GPU_CHECK_PACK=never / always override. `true` stands in for a step (no
# GPU here); the files are what steps would have written.
. "$SRC/tests/lib/common.sh"
unset GPU_CHECK_PACK
out="$WORK/out"
rm -rf "$out" && mkdir -p "$out/sub"
for i in 1 2 3 4 5 6 7; do echo "file $i" >"$out/f$i.log"; done
echo "file 8" >"$out/with space.log"; echo "file 9" >"$out/it's.log" # odd names survive too
echo "nested" >"$out/sub/s.tsv"
OUT="$out" bash "$SRC/tools/gpu-check" true >"$WORK/run1.txt" || fail "gpu-check true failed: $(cat "$WORK/run1.txt")"
[ "$(find "$out" -type f | wc -l)" -eq 1 ] && [ -f "$out/gpu-check-out-1.tar.gz" ] || fail "10 files not packed into one archive: $(ls -R "$out")"
tar -tzf "$out/gpu-check-out-1.tar.gz" | sort >"$WORK/list1.txt"
[ "$(wc -l <"$WORK/list1.txt")" -eq 10 ] || fail "archive 1 lists $(wc -l <"$WORK/list1.txt") files, not 10"
mkdir -p "$WORK/x" && tar -xzf "$out/gpu-check-out-1.tar.gz" -C "$WORK/x"
[ "$(cat "$WORK/x/f7.log")" = "file 7" ] && [ "$(cat "$WORK/x/sub/s.tsv")" = nested ] &&
  [ "$(cat "$WORK/x/with space.log")" = "file 8" ] && [ "$(cat "$WORK/x/it's.log")" = "file 9" ] || fail "archive contents differ"
grep -q "packed into gpu-check-out-1.tar.gz" "$WORK/run1.txt" || fail "no packing message"

# a few new files: kept as they are (auto), then packed apart from archive 1 (always)
echo a >"$out/n1.md"; echo b >"$out/n2.md"
OUT="$out" bash "$SRC/tools/gpu-check" true >/dev/null || fail "second run failed"
[ -f "$out/n1.md" ] && [ ! -e "$out/gpu-check-out-2.tar.gz" ] || fail "3 files packed though the device returns 8"
OUT="$out" GPU_CHECK_PACK=always bash "$SRC/tools/gpu-check" true >/dev/null || fail "always run failed"
[ "$(tar -tzf "$out/gpu-check-out-2.tar.gz" | sort | tr '\n' ' ')" = "./n1.md ./n2.md " ] || fail "archive 2: $(tar -tzf "$out/gpu-check-out-2.tar.gz")"
[ "$(find "$out" -type f | wc -l)" -eq 2 ] || fail "archive 1 not left alone: $(ls "$out")"

# never: twelve files stay
for i in $(seq 1 12); do echo "$i" >"$out/k$i"; done
OUT="$out" GPU_CHECK_PACK=never bash "$SRC/tools/gpu-check" true >/dev/null || fail "never run failed"
[ "$(find "$out" -type f -name 'k*' | wc -l)" -eq 12 ] || fail "GPU_CHECK_PACK=never packed"
# a failing step still packs and gpu-check exits non-zero
OUT="$out" bash "$SRC/tools/gpu-check" false >/dev/null && fail "a failing step gave exit 0"
[ -f "$out/gpu-check-out-3.tar.gz" ] && [ "$(tar -tzf "$out/gpu-check-out-3.tar.gz" | wc -l)" -eq 12 ] || fail "not packed after a failing step"
echo "ok: gpu-check packs \$OUT beyond 8 files (10 -> 1 archive, nothing lost; never / always honoured)"
