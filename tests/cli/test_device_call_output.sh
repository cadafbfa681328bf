#!/usr/bin/env bash
# tools/device-call.sh keeps a device call's printed output: from call_setup on, everything the
# call script prints (stdout and stderr) still reaches the console and also lands in output.txt
# inside the archive pack_call makes, down to pack_call's own "== end" stamp; what is printed
# after pack_call is not in it. A stub call script stands in for bench/results/*/callN.sh (no GPU:
# call_setup's gpu_env and nvidia-smi fail quietly here, as they may).
. "$SRC/tests/lib/common.sh"
out="$WORK/out"
mkdir -p "$out"
cat >"$WORK/call.sh" <<'CALL'
cd "$SRC"
CALL_SECONDS=100
. tools/device-call.sh
call_setup
stamp first
for i in $(seq 1 3000); do echo "line $i"; done
echo "a line to stderr" >&2
stamp last
pack_call callx
echo "after the pack"
CALL
mkdir -p "$WORK/tmp" # the call's temporary copy goes under TMPDIR: this run's alone
OUT="$out" TMPDIR="$WORK/tmp" bash "$WORK/call.sh" >"$WORK/console.txt" 2>&1 || fail "stub call failed: $(tail -3 "$WORK/console.txt")"
[ "$(find "$out" -type f | wc -l)" -eq 1 ] && [ -f "$out/callx.tgz" ] || fail "not one archive: $(ls "$out")"
mkdir -p "$WORK/x" && tar -xzf "$out/callx.tgz" -C "$WORK/x"
[ -f "$WORK/x/output.txt" ] && [ -f "$WORK/x/gpu.txt" ] || fail "archive lacks output.txt or gpu.txt: $(ls "$WORK/x")"
kept="$WORK/x/output.txt"
[ "$(grep -c '^line ' "$kept")" -eq 3000 ] || fail "output.txt holds $(grep -c '^line ' "$kept") of 3000 lines"
grep -q '^line 3000$' "$kept" && grep -q '^a line to stderr$' "$kept" && grep -q '^== first (t=' "$kept" &&
  grep -q '^== last (t=' "$kept" || fail "output.txt lacks a line: $(head -3 "$kept"; tail -3 "$kept")"
[ "$(tail -n 1 "$kept" | cut -c1-6)" = "== end" ] || fail "output.txt does not end with the end stamp: $(tail -n 1 "$kept")"
grep -q "after the pack" "$kept" && fail "output.txt holds what was printed after the pack"
# the console saw all of it too, and the pack's line after
[ "$(grep -c '^line ' "$WORK/console.txt")" -eq 3000 ] && grep -q '^after the pack$' "$WORK/console.txt" ||
  fail "console output incomplete: $(tail -3 "$WORK/console.txt")"
[ -z "$(ls -A "$WORK/tmp")" ] || fail "temporary copy left behind: $(ls "$WORK/tmp")" # pack_call removes it
echo "ok: a device call's printed output is kept in its archive (3000 lines, stderr, the end stamp)"
