# Shared helpers for tests/cli/*.sh (sourced). Env from CTest: INFER8, SRC, BUILD, TOOLS, WORK.
set -euo pipefail
: "${INFER8:?}" "${SRC:?}" "${BUILD:?}" "${WORK:?}"
rm -rf "$WORK" && mkdir -p "$WORK"
# INFER8_SNAPSHOTS: share the cache of another build tree (make test-asan reuses the plain
# build's: synth is deterministic, so the bytes are the same, and synth under ASan is slow)
SNAPSHOTS="${INFER8_SNAPSHOTS:-$BUILD/testwork/snapshots}"
mkdir -p "$SNAPSHOTS"

fail() { echo "FAIL: $*" >&2; exit 1; }

# snapshot ARCH [SEED]: path of a synth snapshot, made once per build tree (flock-guarded so
# parallel tests share it).
snapshot() {
  local arch=$1 seed=${2:-0} dir="$SNAPSHOTS/$1-seed${2:-0}"
  (
    flock 9
    if [ ! -f "$dir/model.safetensors" ]; then
      "$INFER8" synth --arch "$arch" --seed "$seed" -o "$dir.tmp" >/dev/null 2>&1 || exit 1
      rm -rf "$dir" && mv "$dir.tmp" "$dir"
    fi
  ) 9>"$SNAPSHOTS/.lock-$arch-$seed" || fail "synth $arch failed"
  echo "$dir"
}

# expect_fail CODE PATTERN CMD...: runs CMD, which must exit with CODE and print PATTERN (grep -E) on stderr.
expect_fail() {
  local code=$1 pattern=$2; shift 2
  local rc=0
  "$@" >"$WORK/stdout" 2>"$WORK/stderr" || rc=$?
  [ "$rc" -eq "$code" ] || { cat "$WORK/stderr" >&2; fail "expected exit $code, got $rc: $*"; }
  grep -Eq -- "$pattern" "$WORK/stderr" || { cat "$WORK/stderr" >&2; fail "stderr lacks /$pattern/: $*"; }
  echo "ok: exit $code /$pattern/"
}
