# examples/classify.c as an outside consumer: `cmake --install` into a temporary prefix, build
# the example with pkg-config (shared library, then static with --static), run both on an
# inception_v3 bundle and a generated image; their top-5 must equal `infer8 classify`'s.
source "$SRC/tests/lib/common.sh"
prefix="$WORK/prefix"
cmake --install "$BUILD" --prefix "$prefix" >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; fail "cmake --install"; }
pcdir=$(dirname "$(find "$prefix" -name infer8.pc | head -1)")
[ -f "$pcdir/infer8.pc" ] || fail "no infer8.pc installed"
[ -f "$prefix/include/infer8.h" ] || fail "no infer8.h installed"
export PKG_CONFIG_PATH="$pcdir"
# infer8.pc names the configure-time prefix; point it at the temporary install
pc() { pkg-config --define-variable=prefix="$prefix" "$@"; }
grep -q "libxxhash" "$pcdir/infer8.pc" || fail "infer8.pc does not require libxxhash"
# a sanitizer build's library needs the sanitizer runtimes in the consumer too (make test-asan)
cc() { if grep -q '^INFER8_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt"; then command cc -fsanitize=address,undefined "$@"; else command cc "$@"; fi; }
cc "$SRC/examples/classify.c" $(pc --cflags --libs infer8) -o "$WORK/classify_shared" || fail "shared build"
libdir=$(pc --variable=libdir infer8)
# static libinfer8: the full `pkg-config --static` closure needs every dependency's own static
# dependencies installed (libarchive's -lacl -lzstd -llz4 ... are not on a build machine); when
# that link fails, libinfer8.a is linked with its Requires.private modules as shared libraries
# plus its Libs.private.
mods=$(pc --print-requires-private infer8 | awk '{print $1}' | tr '\n' ' ')
extra=$(pc --static --libs infer8 | tr ' ' '\n' | grep -E -- '^(-ljpeg|-lm|-lpthread|-fopenmp|-ldnnl|-lcudart|-lcudnn|-ldl|-lstdc\+\+|/.*\.so|-L.*)$' | tr '\n' ' ')
cc "$SRC/examples/classify.c" -o "$WORK/classify_static" $(pc --cflags infer8) "$libdir/libinfer8.a" \
  $(pc --static --libs infer8 | sed 's/-linfer8//') 2>"$WORK/static.log" ||
  cc "$SRC/examples/classify.c" -o "$WORK/classify_static" $(pc --cflags infer8) "$libdir/libinfer8.a" \
    $(pkg-config --libs $mods) $extra || { cat "$WORK/static.log"; fail "static build"; }

snap=$(snapshot inception_v3)
"$INFER8" build "$snap" --precision fp32 -o "$WORK/v3.bundle" >/dev/null || fail "build"
"$INFER8" gen-images --count 1 --seed 11 --size 320x240 -o "$WORK/img" >/dev/null || fail "gen-images"
img=$(ls "$WORK"/img/*.png | head -1)

"$INFER8" classify "$WORK/v3.bundle" "$img" --topk 5 --json >"$WORK/cli.json" || fail "classify"
/usr/bin/python3 - "$WORK/cli.json" >"$WORK/expected.txt" <<'PY'
import json, sys
d = json.loads(open(sys.argv[1]).readline())
for i, t in enumerate(d["top"]):
    print("%d %d %.6f %s" % (i + 1, t["index"], t["probability"], t["label"]))
PY
for kind in shared static; do
  LD_LIBRARY_PATH="$libdir" "$WORK/classify_$kind" "$WORK/v3.bundle" "$img" 5 >"$WORK/$kind.txt" || fail "$kind consumer failed"
  head -1 "$WORK/$kind.txt" | grep -qx "inception_v3 fp32 299x299" || fail "$kind: info line: $(head -1 "$WORK/$kind.txt")"
  tail -n +2 "$WORK/$kind.txt" | diff - "$WORK/expected.txt" || fail "$kind consumer top-5 differs from infer8 classify"
  echo "ok: $kind consumer matches infer8 classify"
done
if [ "$kind" = static ] && ldd "$WORK/classify_static" | grep -q libinfer8; then fail "static consumer links libinfer8.so"; fi
