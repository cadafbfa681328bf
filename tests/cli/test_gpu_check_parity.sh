#!/usr/bin/env bash
# tools/gpu-check parity: inception_v4 runs as its parity build (--adaptive-rounding stem over 16
# calibration images made apart from the 64 parity images) unless PARITY_CUDA_ARGS is set, which
# then applies to every family. No GPU here: a stand-in infer8 makes folders and a stand-in
# tests/oracle/cuda_parity.py logs how it was called.
. "$SRC/tests/lib/common.sh"
repo="$WORK/repo" out="$WORK/out" calls="$WORK/calls.txt"
mkdir -p "$repo/build-device/bin" "$repo/tests/oracle" "$out"
cp -r "$SRC/tools" "$repo/"
cat >"$repo/build-device/bin/infer8" <<SH
#!/bin/sh
echo "infer8 \$*" >>"$calls"
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && { mkdir -p "\$2"; touch "\$2/model.safetensors"; }; shift; done
SH
cat >"$repo/tests/oracle/cuda_parity.py" <<SH
import sys
a = sys.argv[1:]
print("parity", a[a.index("--arch") + 1], "args=[" + a[a.index("--cuda-args") + 1] + "]", file=open("$calls", "a"))
SH
chmod +x "$repo/build-device/bin/infer8"
run_parity() { (cd "$repo" && env -u INFER8 OUT="$out" WORK="$WORK/gc" GPU_CHECK_PACK=never "$@" tools/gpu-check parity); }

run_parity >"$WORK/parity.txt" 2>&1 || fail "parity failed: $(cat "$WORK/parity.txt")"
grep -qx "parity inception_resnet_v2 args=\[\]" "$calls" || fail "IRv2 args: $(cat "$calls")"
grep -qx "parity inception_v3 args=\[\]" "$calls" || fail "v3 args: $(cat "$calls")"
grep -qx "parity inception_v4 args=\[--adaptive-rounding stem --rounding-images $WORK/gc/rounding-images\]" "$calls" \
  || fail "v4 args: $(cat "$calls")"
grep -q "infer8 gen-images --count 16 --seed 1 -o $WORK/gc/rounding-images" "$calls" || fail "no rounding images: $(cat "$calls")"
grep -q "infer8 gen-images --count 64 --seed 20000 -o $WORK/gc/parity-images" "$calls" || fail "no parity images: $(cat "$calls")"
echo "ok: inception_v4 runs parity as its adaptive-rounding build, the others plain"

rm -f "$calls"
run_parity env PARITY_CUDA_ARGS="--split-weights stem" PARITY_ARCHES="inception_v4 inception_v3" >"$WORK/parity2.txt" 2>&1 \
  || fail "parity failed: $(cat "$WORK/parity2.txt")"
[ "$(grep -c "args=\[--split-weights stem\]" "$calls")" = 2 ] || fail "PARITY_CUDA_ARGS not applied to both: $(cat "$calls")"
echo "ok: PARITY_CUDA_ARGS overrides every family's options"
echo "PASS"
