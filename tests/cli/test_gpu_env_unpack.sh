#!/usr/bin/env bash
# tools/gpu-check.d/cuda.sh's gpu_env unpacks the build that tools/prepare-device packs into
# .devcarry/build.tar.xz (a call carries [".devcarry"] alone since session 58): into build-device
# of the tree it runs in, over what a warm machine kept from an earlier call, once per packed file
# (a second gpu_env leaves the unpacked files alone; a new archive unpacks again). No GPU here:
# nvidia-smi and ldd fail quietly, as they may.
. "$SRC/tests/lib/common.sh"
root="$WORK/call-root"
mkdir -p "$root/.devcarry" "$WORK/pack/build-device/bin" && ln -s "$SRC/tools" "$root/tools"
echo "first build" >"$WORK/pack/build-device/bin/infer8"
(cd "$WORK/pack" && tar -cf - build-device | xz >"$root/.devcarry/build.tar.xz") || fail "packing failed"
mkdir -p "$WORK/out"
run_env() { (cd "$root" && export OUT="$WORK/out" && . tools/gpu-check.d/cuda.sh && gpu_env >/dev/null 2>&1); }
# a stale binary from an earlier call on a warm machine is replaced
mkdir -p "$root/build-device/bin" && echo "stale" >"$root/build-device/bin/infer8"
run_env || fail "gpu_env failed"
[ "$(cat "$root/build-device/bin/infer8")" = "first build" ] || fail "not unpacked: $(cat "$root/build-device/bin/infer8")"
[ -s "$root/.devcarry/build.tar.xz.unpacked" ] || fail "no marker"
# the same archive again: nothing unpacked (the marker matches)
echo "touched" >"$root/build-device/bin/infer8"
run_env || fail "second gpu_env failed"
[ "$(cat "$root/build-device/bin/infer8")" = "touched" ] || fail "unpacked twice"
# a new archive unpacks again
echo "second build" >"$WORK/pack/build-device/bin/infer8"
(cd "$WORK/pack" && tar -cf - build-device | xz >"$root/.devcarry/build.tar.xz") || fail "packing failed"
run_env || fail "third gpu_env failed"
[ "$(cat "$root/build-device/bin/infer8")" = "second build" ] || fail "new archive not unpacked: $(cat "$root/build-device/bin/infer8")"
# a damaged archive fails gpu_env (the call's steps then say so) and leaves no marker for it
head -c 100 "$root/.devcarry/build.tar.xz" >"$WORK/cut.xz" && mv "$WORK/cut.xz" "$root/.devcarry/build.tar.xz"
run_env && fail "gpu_env passed on a damaged archive"
[ "$(cat "$root/.devcarry/build.tar.xz.unpacked")" != "$(sha256sum "$root/.devcarry/build.tar.xz" | cut -d' ' -f1)" ] ||
  fail "damaged archive marked unpacked"
echo "ok: gpu_env unpacks .devcarry/build.tar.xz over a stale build, once per archive, again for a new one, and fails on a damaged one"
