#!/usr/bin/env bash
# The malformed-input corpus (tests/malformed/, listed in its MANIFEST): every file, read by
# the CLI command that takes it, must give exit 2 (never a signal or another code) and an
# error message matching the MANIFEST's pattern. Also the fuzzers' regression inputs
# (fuzz/regressions/<target>/) through the same commands. Limits (--max-image-pixels) and
# --allow-nonfinite are checked here too.
. "$SRC/tests/lib/common.sh"
CORPUS="$SRC/tests/malformed"
good=$(snapshot inception_v3 0)
"$INFER8" gen-images --count 1 --seed 3 --size 64x48 -o "$WORK/ok" >/dev/null 2>&1
ok=$(ls "$WORK"/ok/*.png | head -1)

# run_kind KIND FILE: the command that reads FILE; its exit code in $rc, stderr in $WORK/stderr
run_kind() {
  local kind=$1 f=$2
  rc=0
  case "$kind" in
    st) "$INFER8" inspect "$f" --arch inception_v3 >"$WORK/stdout" 2>"$WORK/stderr" || rc=$? ;;
    config)
      rm -rf "$WORK/cfgdir" && mkdir -p "$WORK/cfgdir"
      cp "$f" "$WORK/cfgdir/config.json" && : > "$WORK/cfgdir/model.safetensors"
      "$INFER8" inspect "$WORK/cfgdir" >"$WORK/stdout" 2>"$WORK/stderr" || rc=$? ;;
    image)
      "$INFER8" preprocess "$good" --image "$f" -o "$WORK/out.npy" --max-image-pixels 1048576 \
        >"$WORK/stdout" 2>"$WORK/stderr" || rc=$? ;;
    scales)
      "$INFER8" classify "$good" --precision fp8 --scales "$f" --image "$ok" >"$WORK/stdout" 2>"$WORK/stderr" || rc=$? ;;
    bundle) "$INFER8" inspect "$f" >"$WORK/stdout" 2>"$WORK/stderr" || rc=$? ;;
    recipe) "$INFER8" recipe "$good" --recipe "$f" >"$WORK/stdout" 2>"$WORK/stderr" || rc=$? ;;
    *) fail "unknown kind $kind" ;;
  esac
}

n=0
while IFS=$'\t' read -r file kind regex; do
  case "$file" in ''|'#'*) continue ;; esac
  [ -f "$CORPUS/$file" ] || fail "MANIFEST names missing file $file"
  run_kind "$kind" "$CORPUS/$file"
  [ "$rc" -lt 128 ] || { cat "$WORK/stderr" >&2; fail "$file: killed by signal $((rc - 128))"; }
  [ "$rc" -eq 2 ] || { cat "$WORK/stderr" >&2; fail "$file ($kind): expected exit 2, got $rc"; }
  grep -Eq -- "$regex" "$WORK/stderr" || { cat "$WORK/stderr" >&2; fail "$file ($kind): message lacks /$regex/"; }
  echo "ok: $file ($kind): $(head -c 160 "$WORK/stderr" | head -1)"
  n=$((n + 1))
done < "$CORPUS/MANIFEST"
[ "$n" -ge 80 ] || fail "only $n corpus entries ran"

# fuzzer regression inputs: any outcome but a signal or an exit other than 0/2
for d in "$SRC"/fuzz/regressions/*/; do
  [ -d "$d" ] || continue
  t=$(basename "$d")
  case "$t" in safetensors) kind=st ;; config) kind=config ;; image) kind=image ;; scales) kind=scales ;;
               bundle) kind=bundle ;; recipe) kind=recipe ;; *) continue ;; esac
  for f in "$d"*; do
    run_kind "$kind" "$f"
    [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || { cat "$WORK/stderr" >&2; fail "regression $t/$(basename "$f"): exit $rc"; }
    n=$((n + 1))
  done
done

# limits: the same valid image refused under a small pixel limit (before decoding), accepted above
expect_fail 2 "pixels.*(limit|max)|limit.*pixels" "$INFER8" preprocess "$good" --image "$ok" -o "$WORK/o.npy" --max-image-pixels 3071
"$INFER8" preprocess "$good" --image "$ok" -o "$WORK/o.npy" --max-image-pixels 3072 2>/dev/null || fail "64x48 image refused at limit 3072"
expect_fail 2 "(bytes|limit)" "$INFER8" preprocess "$good" --image "$ok" -o "$WORK/o.npy" --max-image-bytes 100
expect_fail 2 "(limit|bytes)" "$INFER8" inspect "$good" --max-json-bytes 64
expect_fail 2 "(limit|tensors)" "$INFER8" inspect "$good" --max-tensors 10
expect_fail 64 "max-image-pixels" "$INFER8" inspect "$good" --max-image-pixels 0

# NaN weights: refused by default (above), accepted with --allow-nonfinite (the load then stops
# at the next missing tensor, which proves the NaN tensor itself was taken)
expect_fail 2 "missing tensor" "$INFER8" inspect "$CORPUS/st_nan_weight.safetensors" --arch inception_v3 --allow-nonfinite
echo "malformed corpus: $n inputs ok"
