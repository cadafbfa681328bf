#!/usr/bin/env bash
# Valgrind-clean CLI runs: `infer8 inspect` and `infer8 classify` (and `infer8 build` when the
# command exists) on an inception_v3 synth snapshot under
# `valgrind --error-exitcode=99 --leak-check=full`: no invalid access, no use of uninitialised
# values, no leak. classify runs at input size 75 (config.json edited, same weights) so the
# reference executor finishes in well under a minute under valgrind. Prints SKIP when valgrind is
# not installed or the build uses AddressSanitizer (the two cannot run together).
. "$SRC/tests/lib/common.sh"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "SKIP: valgrind not installed (scripts/install-fuzz-deps.sh installs it)"
  exit 0
fi
if grep -q '^INFER8_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
  echo "SKIP: sanitizer build (valgrind runs in the plain build)"
  exit 0
fi
good=$(snapshot inception_v3 0)
small="$WORK/v3-75"
mkdir -p "$small"
ln -sf "$good/model.safetensors" "$small/model.safetensors"
/usr/bin/python3 - "$good/config.json" "$small/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["pretrained_cfg"]["input_size"] = [3, 75, 75]
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
"$INFER8" gen-images --count 1 --seed 4 --size 90x80 -o "$WORK/img" >/dev/null 2>&1
img=$(ls "$WORK"/img/*.png | head -1)

# OpenMP worker threads keep pool memory that valgrind reports as "possibly lost" at exit:
# one thread (and OMP_NUM_THREADS=1) keeps the report about infer8 itself.
export OMP_NUM_THREADS=1
VG=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --quiet
    --suppressions="$SRC/tests/lib/valgrind.supp")
run_vg() {
  local name=$1; shift
  local start=$SECONDS rc=0
  "${VG[@]}" --log-file="$WORK/vg-$name.log" "$@" >"$WORK/out-$name" 2>"$WORK/err-$name" || rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$WORK/vg-$name.log" "$WORK/err-$name" >&2
    fail "$name under valgrind: exit $rc"
  fi
  echo "ok: $name valgrind-clean in $((SECONDS - start)) s"
}
run_vg inspect "$INFER8" inspect "$good" --threads 1
run_vg classify "$INFER8" classify "$small" "$img" --threads 1 --topk 3
grep -q "$(basename "$img")" "$WORK/out-classify" || fail "classify printed no result"
# a failing run must be clean too (error paths free what they took)
rc=0
"${VG[@]}" --log-file="$WORK/vg-bad.log" "$INFER8" inspect "$SRC/tests/malformed/st_overlap.safetensors" \
  --arch inception_v3 >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/vg-bad.log" >&2; fail "malformed inspect under valgrind: exit $rc (want 2)"; }
rc=0
"${VG[@]}" --log-file="$WORK/vg-nan.log" "$INFER8" inspect "$SRC/tests/malformed/st_nan_weight.safetensors" \
  --arch inception_v3 >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/vg-nan.log" >&2; fail "NaN-weight inspect under valgrind: exit $rc (want 2)"; }
echo "ok: error paths valgrind-clean"
if "$INFER8" build --help >/dev/null 2>&1; then
  run_vg build "$INFER8" build "$small" -o "$WORK/m.bundle"
  run_vg inspect-bundle "$INFER8" inspect "$WORK/m.bundle"
else
  echo "note: no build command yet; bundle runs skipped"
fi
