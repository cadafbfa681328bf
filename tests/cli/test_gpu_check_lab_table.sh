#!/usr/bin/env bash
# tools/gpu-check's fp8_lab_table (fp8.sh) on a committed lab output (session 12, call 5): one row
# per shape and mode, every kernel's time, the product kernel over the best other checked one.
. "$SRC/tests/lib/common.sh"
lab="$SRC/bench/results/fp8-lab-session12/call5-fp8_tma.txt"
bash -c '. "$1/tools/gpu-check.d/fp8.sh"; fp8_lab_table "$2"' _ "$SRC" "$lab" >"$WORK/table.md" || fail "fp8_lab_table failed"
rows=$(grep -c '^| Block' "$WORK/table.md")
# the lab file's shapes x modes: 5 shapes without residual x 2 modes + 5 with residual x 6 modes
[ "$rows" -eq $((5 * 2 + 5 * 6)) ] || fail "$rows rows, want 40"
# Block17 up-projection at batch 32, e4m3 in, dual out: product 45.71 us, best other 38.60 (ping-pong)
grep -qF '| Block17 up 1x1 384->1088 @17 b32 | q->dual | wgmma64x64s2 45.71 tma128x64s4 42.62 tma128x128s3 41.57 tma128x64s4r 44.74 tma128x64s4p 38.60 tma128x64s4pr 39.53 | 1.18 |' "$WORK/table.md" ||
  fail "Block17 up b32 q->dual row: $(grep 'Block17 up 1x1 384->1088 @17 b32 | q->dual |' "$WORK/table.md")"
# the residual case: the product kernel (48.49) beats the best TMA one (49.13)
grep -qE '^\| Block17 up 1x1 384->1088 @17 b32 \| q->h\+res \|.* \| 0\.99 \|$' "$WORK/table.md" || fail "q->h+res ratio"
# failed kernels (the first lab run, call 3) are marked and never "best"
bash -c '. "$1/tools/gpu-check.d/fp8.sh"; fp8_lab_table "$2"' _ "$SRC" "$SRC/bench/results/fp8-lab-session12/call3-fp8_tma.txt" >"$WORK/t3.md"
grep -qF '| Block35 branch 1x1 320->32 @35 b1 | q->dual | wgmma64x64s2 7.83! tma128x64s4 5.80!' "$WORK/t3.md" || fail "failed kernels not marked: $(sed -n 3p "$WORK/t3.md")"
grep -qE '^\| Block35 branch 1x1 320->32 @35 b1 \| q->dual \|.* \| - \|$' "$WORK/t3.md" || fail "a failed kernel counted as best"
# any shape name (not only Block*), the slice mode's suffix and a residual shape's "+res" dropped
cat >"$WORK/t_names.txt" <<'LAB'
device NVIDIA H200, 132 SMs

v3 Mixed_5b 1x1 192->64 @35 b4 (M 4900, K 192, N 64) (outputs: a channel slice)
  q->dual       wgmma64x64s2 k1    10.00 us  fp16 rel 5.00e-04  e4m3 codes differing 0.1000% (far 0, |v| <= 0.0e+00 of max)  ok
  q->dual       tma128x64s4 k1     8.00 us  fp16 rel 5.00e-04  e4m3 codes differing 0.1000% (far 0, |v| <= 0.0e+00 of max)  ok
  q->dual       best: tma128x64s4 k1 8.00 us

Block8 up 1x1 448->2080 @8 b1 +res (M 64, K 448, N 2080)
  q->h+res      wgmma64x64s2 k1     9.00 us  fp16 rel 5.00e-04  ok
  q->h+res      tma128x64s4r k1    12.00 us  fp16 rel 5.00e-04  WROTE OUTSIDE ITS SLICE FAIL
LAB
bash -c '. "$1/tools/gpu-check.d/fp8.sh"; fp8_lab_table "$2"' _ "$SRC" "$WORK/t_names.txt" >"$WORK/t_names.md"
grep -qxF '| v3 Mixed_5b 1x1 192->64 @35 b4 | q->dual | wgmma64x64s2 10.00 tma128x64s4 8.00 | 1.25 |' "$WORK/t_names.md" ||
  fail "v3 shape row: $(cat "$WORK/t_names.md")"
grep -qxF '| Block8 up 1x1 448->2080 @8 b1 | q->h+res | wgmma64x64s2 9.00 tma128x64s4r 12.00! | - |' "$WORK/t_names.md" ||
  fail "+res shape row: $(cat "$WORK/t_names.md")"
echo "ok: fp8_lab_table: $rows rows, ratios as computed by hand"
