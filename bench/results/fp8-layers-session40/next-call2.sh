#!/usr/bin/env bash
# Prepared in session 40, not run (no device budget left): pool-tile.patch. After session 40's
# rewrite the pools are no longer issue-bound alone: v4's A-block pool (35x35x384, batch 32) takes
# 0.035 ms for 60 MB in and out, and each thread loads its own 9 taps (L1 hit rate 34% before the
# rewrite), so most taps come from L2 again. The patch gives each 128-thread block a 4-group x
# 8-column x 4-row tile of outputs (3x3 pools over multiples of 32 channels), whose loads overlap
# in L1: 60 input pixels for 288 thread loads at stride 1. The same per-thread code otherwise,
# so the same bits. INFER8_CUDA_POOL_TILE=0 keeps the untiled order (session 40's code).
# pool_tile_emu.py checks the mapping: every output once, on 6 shapes (and catches a wrong decode).
# The patch also widens the per-op pool cases' 8-channel-group variants from 16 to 32 channels
# (tiled, with part-filled tiles at 17 and 15) and reruns each per-op graph untiled in cuda_tests.
# Here, before the call: git apply bench/results/fp8-layers-session40/pool-tile.patch, then
# tools/prepare-device. Land it if cuda_tests and the v3 FP8 test pass and the pools get faster;
# document INFER8_CUDA_POOL_TILE with the other INFER8_CUDA_* switches.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_step fp8_v3 200 300 'test_inception_v3_fp8'
X=build-device/bin/infer8
for arch in inception_v4 inception_v3; do
  $X synth --arch $arch --seed 0 -o /tmp/$arch >/dev/null 2>"$OUT/synth-$arch.log" || tail -2 "$OUT/synth-$arch.log"
  for tile in 1 0; do
    [ "$(left)" -gt 40 ] || { echo "$arch tile $tile skipped"; continue; }
    stamp "$arch pools, INFER8_CUDA_POOL_TILE=$tile"
    INFER8_CUDA_POOL_TILE=$tile INFER8_CUDA_CUDNN_BUDGET=4 timeout "$(cap 60)" $X bench /tmp/$arch --device cuda --batch 32 \
      --rounds 5 --iters 100 --profile -o "$OUT/pools-$arch-tile$tile.json" >"$OUT/pools-$arch-tile$tile.txt" 2>&1
    echo "exit $?"; grep -E "pool|^/tmp" "$OUT/pools-$arch-tile$tile.txt" | head -6
  done
done
pack_call next-call2
