#!/usr/bin/env bash
# tools/pack-logs on a made-up repository: the old sessions' big logs become NAME.log.xz that
# unpack to the same bytes and are what git tracks; small logs, other files and the newest KEEP
# sessions' logs stay; a second run packs nothing; --dry-run changes nothing; bad arguments fail.
. "$SRC/tests/lib/common.sh"
repo="$WORK/repo"
rm -rf "$repo" && mkdir -p "$repo/tools" && cp "$SRC/tools/pack-logs" "$repo/tools/" || fail "setup failed"
cd "$repo" && git init -q . || fail "git init failed"
big() { mkdir -p "$(dirname "$1")" && seq 1 20000 | sed "s/^/$2 line /" >"$1"; } # ~300 KB
big bench/results/fp8-layers-session9/call1/fp8_all.log nine
big bench/results/fp8-layers-session10/call2/irv2/fp8_bench.log ten
big bench/results/fp8-layers-session10/call2/notes.txt text
echo "small" >bench/results/fp8-layers-session10/call1.log
big bench/results/fp8-layers-session11/call1/fp8_all.log eleven
big bench/results/fp8-layers-session12/call1/fp8_all.log twelve
big bench/results/fp8-layers-session12/call1/untracked.log untracked
git add bench tools && git reset -q bench/results/fp8-layers-session12/call1/untracked.log
git -c user.name=t -c user.email=t@t commit -qm init || fail "commit failed"
cp bench/results/fp8-layers-session10/call2/irv2/fp8_bench.log "$WORK/ten.orig"

out=$(tools/pack-logs --dry-run) || fail "dry run failed: $out"
grep -q "would pack bench/results/fp8-layers-session9/call1/fp8_all.log" <<<"$out" || fail "dry run: $out"
grep -q "2 logs of sessions before 11" <<<"$out" || fail "dry run count: $out"
[ -z "$(find . -name '*.xz' -not -path './.git/*')" ] || fail "dry run packed something"

out=$(tools/pack-logs) || fail "pack-logs failed: $out"
grep -q "pack-logs: 2 logs of sessions before 11 packed" <<<"$out" || fail "summary: $out"
xz -dc bench/results/fp8-layers-session10/call2/irv2/fp8_bench.log.xz | cmp -s - "$WORK/ten.orig" || fail "packed log differs"
[ ! -e bench/results/fp8-layers-session10/call2/irv2/fp8_bench.log ] || fail "original left"
[ ! -e bench/results/fp8-layers-session9/call1/fp8_all.log ] && [ -s bench/results/fp8-layers-session9/call1/fp8_all.log.xz ] || fail "session 9 not packed"
git ls-files --error-unmatch bench/results/fp8-layers-session9/call1/fp8_all.log.xz >/dev/null 2>&1 || fail "packed log not staged"
git ls-files --error-unmatch bench/results/fp8-layers-session9/call1/fp8_all.log >/dev/null 2>&1 && fail "original still tracked"
# untouched: a small log, a text file, the newest two sessions (KEEP 2), an untracked log
[ -f bench/results/fp8-layers-session10/call1.log ] || fail "small log packed"
[ -f bench/results/fp8-layers-session10/call2/notes.txt ] || fail "text file packed"
[ -f bench/results/fp8-layers-session11/call1/fp8_all.log ] && [ -f bench/results/fp8-layers-session12/call1/fp8_all.log ] || fail "a kept session packed"
[ -f bench/results/fp8-layers-session12/call1/untracked.log ] || fail "untracked log packed"
[ -z "$(find . -name '*.part' -not -path './.git/*')" ] || fail "a .part left"
out=$(tools/pack-logs) || fail "second run failed"
grep -q "pack-logs: 0 logs" <<<"$out" || fail "second run packed again: $out"
# KEEP 1 packs session 11 too; bad arguments name themselves
out=$(tools/pack-logs 1) && grep -q "1 logs of sessions before 12" <<<"$out" || fail "KEEP 1: $out"
out=$(tools/pack-logs x 2>&1) && fail "KEEP x accepted"
grep -q "KEEP and MIN_KB must be numbers" <<<"$out" || fail "bad KEEP: $out"
echo "test_pack_logs: ok"
