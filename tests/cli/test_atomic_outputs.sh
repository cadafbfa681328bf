#!/usr/bin/env bash
# Atomic outputs: `infer8 synth --arch inception_resnet_v2` killed with SIGKILL while it writes
# model.safetensors (~220 MB) must leave the earlier model.safetensors of the folder intact and
# no partial file under the final name; the partial data sits only in the temporary
# "model.safetensors.tmp.<pid>" next to it (same folder, so the final rename is atomic), which
# a later run does not confuse with its own. A SIGTERM'd run behaves the same. One calibration
# image keeps the run short (the write is what is tested). INFER8_TEST_QUICK=1 (make test-asan,
# where each synth run takes minutes) uses inception_v3 (~95 MB written) instead.
. "$SRC/tests/lib/common.sh"
arch=inception_resnet_v2
[ "${INFER8_TEST_QUICK:-0}" = 1 ] && arch=inception_v3
out="$WORK/snap"
mkdir -p "$out"
printf 'EARLIER FILE\n' > "$out/model.safetensors"
printf '{"earlier": true}\n' > "$out/config.json"
old_sum=$(sha256sum "$out/model.safetensors" | cut -d' ' -f1)

# kill_during_write SIGNAL: starts synth, waits until its temporary file holds > 8 MB, kills it
kill_during_write() {
  "$INFER8" synth --arch "$arch" --seed 1 --calib-images 1 -o "$out" >/dev/null 2>"$WORK/synth.err" &
  local pid=$! tmp="$out/model.safetensors.tmp.$!" waited=0
  while :; do
    if [ -f "$tmp" ] && [ "$(stat -c %s "$tmp")" -gt 8000000 ]; then break; fi
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/synth.err" >&2; fail "synth ended before the write could be interrupted"; }
    sleep 0.05
    waited=$((waited + 1))
    [ "$waited" -lt 6000 ] || { kill -9 "$pid"; fail "no temporary file $tmp after 300 s"; }
  done
  kill "-$1" "$pid"
  wait "$pid" 2>/dev/null && fail "synth exited 0 after SIG$1" || true
  echo "killed synth (pid $pid) with SIG$1 at $(stat -c %s "$tmp") bytes of $tmp"
  [ "$(sha256sum "$out/model.safetensors" | cut -d' ' -f1)" = "$old_sum" ] || fail "earlier model.safetensors was changed"
  grep -q earlier "$out/config.json" || true   # config.json may be replaced whole (written first, atomically)
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/config.json" || fail "config.json is not whole JSON"
  # nothing but the earlier files and this run's temporary
  local extra
  killed="$killed -e model.safetensors.tmp.$pid"
  extra=$(cd "$out" && ls -A | grep -v -x -e model.safetensors -e config.json $killed || true)
  [ -z "$extra" ] || fail "unexpected files left: $extra"
}
killed=""
kill_during_write KILL
kill_during_write TERM
echo "leftover temporaries (named <final>.tmp.<pid>, safe to delete): $(cd "$out" && ls | grep tmp | tr '\n' ' ')"
