# tests/tools/critical_path: the longest chain of a model's graph under per-conv times from a TSV.
# Oracle: inception_v3's longest conv chain counted by hand from its blocks (timm's layout):
# stem 5 (1a, 2a, 2b, 3b, 4a), Mixed_5b-d 3 each (1x1, 3x3, 3x3), Mixed_6a 3 (1x1, 3x3, 3x3 s2),
# Mixed_6b-e 5 each (1x1, 7x1, 1x7, 7x1, 1x7), Mixed_7a 4 (1x1, 1x7, 7x1, 3x3 s2), Mixed_7b-c 3 each
# (1x1, 3x3, 1x3 or 3x1): 47 convs, against 94 in all. With every conv at 1 ms and other nodes free
# the path is 47 ms, at 2 ms 94; one conv of the path made slower lengthens it by that much, one
# off it (a Mixed_5b 1x1 beside the 3x3 pair) not at all. Hostile TSVs are refused, naming the
# file and line.
source "$SRC/tests/lib/common.sh"
T="$TOOLS/critical_path"
"$T" random:inception_v3 --template >"$WORK/all1.tsv" || fail "template"
[ "$(wc -l <"$WORK/all1.tsv")" -eq 95 ] || fail "template: $(wc -l <"$WORK/all1.tsv") lines, want 94 convs + header"
field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" | head -1; }
out=$("$T" random:inception_v3 "$WORK/all1.tsv" --nonconv-ms 0 --columns fp16_tuned_ms) || fail "all 1 ms"
[ "$(field critical_path_ms <<<"$out")" = "47.0000" ] || fail "all 1 ms: $out"
[ "$(field conv_sum_ms <<<"$out")" = "94.0000" ] || fail "all 1 ms, sum: $out"
awk -F'\t' 'NR == 1 {print; next} {print $1 "\t2\t2"}' "$WORK/all1.tsv" >"$WORK/all2.tsv"
out=$("$T" random:inception_v3 "$WORK/all2.tsv" --nonconv-ms 0 --columns fp8_tuned_ms) || fail "all 2 ms"
[ "$(field critical_path_ms <<<"$out")" = "94.0000" ] || fail "all 2 ms: $out"
# Conv2d_1a_3x3 is on every chain: +10 ms lengthens the path by 10; the first conv listed with a
# name of Mixed_5b's 1x1 branch is beside the 3-conv chain: +1 ms changes nothing
first=$(awk -F'\t' 'NR == 2 {print $1}' "$WORK/all1.tsv")
side=$(awk -F'\t' '$1 ~ /Mixed_5b\.branch1x1/ {print $1; exit}' "$WORK/all1.tsv")
[ -n "$side" ] || fail "no Mixed_5b branch1x1 conv in the template"
awk -F'\t' -v a="$first" -v b="$side" 'NR > 1 && $1 == a {$2 = 11} NR > 1 && $1 == b {$2 = 2} {print $1 "\t" $2 "\t" $3}' \
  "$WORK/all1.tsv" >"$WORK/one.tsv"
out=$("$T" random:inception_v3 "$WORK/one.tsv" --nonconv-ms 0 --columns fp16_tuned_ms) || fail "one slower"
[ "$(field critical_path_ms <<<"$out")" = "57.0000" ] || fail "$first +10 ms, $side +1 ms: $out"
# other nodes at 0.5 ms: the path gets longer than 47, never longer than all nodes together
out=$("$T" random:inception_v3 "$WORK/all1.tsv" --columns fp16_tuned_ms --nonconv-ms 0.5) || fail "nonconv"
awk -v p="$(field critical_path_ms <<<"$out")" 'BEGIN {exit !(p > 47)}' || fail "nonconv: $out"
# --fuse-pairs (a what-if): inception_v3's reduction 1x1s read by one spatial conv alone, counted by
# hand: conv2d_3b -> 4a, Mixed_5b-d 2 each (5x5_1, 3x3dbl_1), Mixed_6a 1 (3x3dbl_1), Mixed_6b-e 2
# each (7x7_1, 7x7dbl_1), Mixed_7a 2 (3x3_1, 7x7x3_1), Mixed_7b-c 1 each (3x3dbl_1; their 3x3_1
# feeds two convs): 20, 12 of them on the 47-conv chain (stem 1, 3, 1, 4, 1, 2)
out=$("$T" random:inception_v3 "$WORK/all1.tsv" --nonconv-ms 0 --columns fp16_tuned_ms --fuse-pairs 0) || fail "fuse 0"
[ "$(field fused_pairs <<<"$out")" = 20 ] && [ "$(field conv_sum_ms <<<"$out")" = "74.0000" ] &&
  [ "$(field critical_path_ms <<<"$out")" = "35.0000" ] || fail "fuse 0: $out"
out=$("$T" random:inception_v3 "$WORK/all1.tsv" --nonconv-ms 0 --columns fp16_tuned_ms --fuse-pairs 0.5) || fail "fuse 0.5"
[ "$(field conv_sum_ms <<<"$out")" = "84.0000" ] && [ "$(field critical_path_ms <<<"$out")" = "41.0000" ] || fail "fuse 0.5: $out"
out=$("$T" random:inception_v3 "$WORK/all1.tsv" --nonconv-ms 0 --columns fp16_tuned_ms --fuse-pairs 1) || fail "fuse 1"
[ "$(field conv_sum_ms <<<"$out")" = "94.0000" ] && [ "$(field critical_path_ms <<<"$out")" = "47.0000" ] || fail "fuse 1: $out"
# only Mixed_6a-e's pairs: 1 + 4 x 2 = 9, 5 of them on the chain
out=$("$T" random:inception_v3 "$WORK/all1.tsv" --nonconv-ms 0 --columns fp16_tuned_ms --fuse-pairs 0 --fuse-match 'Mixed_6*') || fail "fuse Mixed_6"
[ "$(field fused_pairs <<<"$out")" = 9 ] && [ "$(field critical_path_ms <<<"$out")" = "42.0000" ] || fail "fuse Mixed_6: $out"
expect_fail 1 "--fuse-pairs '1.5' is not a fraction" "$T" random:inception_v3 "$WORK/all1.tsv" --fuse-pairs 1.5
expect_fail 1 "--fuse-match goes with --fuse-pairs" "$T" random:inception_v3 "$WORK/all1.tsv" --fuse-match 'Mixed_6*'
# hostile inputs: exit 1, the file and line named
{ head -1 "$WORK/all1.tsv"; printf 'no_such_conv\t1\t1\n'; } >"$WORK/unknown.tsv"
expect_fail 1 "unknown.tsv:2: 'no_such_conv' is no conv" "$T" random:inception_v3 "$WORK/unknown.tsv"
head -50 "$WORK/all1.tsv" >"$WORK/short.tsv"
expect_fail 1 "short.tsv: no row for conv" "$T" random:inception_v3 "$WORK/short.tsv"
{ cat "$WORK/all1.tsv"; sed -n 2p "$WORK/all1.tsv"; } >"$WORK/twice.tsv"
expect_fail 1 "twice.tsv:96: conv .* listed twice" "$T" random:inception_v3 "$WORK/twice.tsv"
awk -F'\t' 'NR == 3 {$2 = "fast"} {print $1 "\t" $2 "\t" $3}' "$WORK/all1.tsv" >"$WORK/nan.tsv"
expect_fail 1 "nan.tsv:3: column 'fp16_tuned_ms' is not a time" "$T" random:inception_v3 "$WORK/nan.tsv"
awk -F'\t' 'NR == 3 {$2 = -1} {print $1 "\t" $2 "\t" $3}' "$WORK/all1.tsv" >"$WORK/neg.tsv"
expect_fail 1 "neg.tsv:3: column 'fp16_tuned_ms' is not a time" "$T" random:inception_v3 "$WORK/neg.tsv"
sed '1s/fp8_tuned_ms/other/' "$WORK/all1.tsv" >"$WORK/nocol.tsv"
expect_fail 1 "nocol.tsv:1: no column 'fp8_tuned_ms'" "$T" random:inception_v3 "$WORK/nocol.tsv"
: >"$WORK/empty.tsv"
expect_fail 1 "empty.tsv: empty" "$T" random:inception_v3 "$WORK/empty.tsv"
expect_fail 1 "missing.tsv" "$T" random:inception_v3 "$WORK/missing.tsv"
expect_fail 1 "unknown arch 'resnet'" "$T" random:resnet "$WORK/all1.tsv"
expect_fail 1 "--nonconv-ms '-1'" "$T" random:inception_v3 "$WORK/all1.tsv" --nonconv-ms -1
head -c 9000 /dev/zero | tr '\0' 'x' >"$WORK/long.tsv"
expect_fail 1 "long.tsv:1: line longer than" "$T" random:inception_v3 "$WORK/long.tsv"
echo "ok: critical_path"
