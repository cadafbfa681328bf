#!/usr/bin/env bash
# The wgmma kernels compile with their wgmma pipelined: ptxas serializes every wgmma.mma_async of
# a kernel that makes a function call (a device printf, a non-inlined helper) and says so only
# as "info" C7510, which a build does not show. The TMA lab kernel shipped that way in session 12
# (its barrier wait printed before trapping). Compiles the product's FP8 kernels (cuda_fp8.cu,
# cuda_fp8_tma.cu) and the labs' (fp8_tma.cu, which includes them; pair_lab.cu's wgmma pair,
# pair_wg.cuh) for sm_90a with ptxas -v; the product's TMA and halo kernels and the wgmma pair must
# not spill either.
# Usage: wgmma_pipelined.sh NVCC SRC_ROOT WORK
set -euo pipefail
nvcc=$1 src=$2 work=$3
mkdir -p "$work"
for f in src/backends/cuda/cuda_fp8.cu src/backends/cuda/cuda_fp8_tma.cu dev/kernels/fp8_tma.cu dev/kernels/pair_lab.cu; do
  log="$work/$(basename "$f").ptxas.txt"
  "$nvcc" -std=c++17 -O3 -arch=sm_90a -cubin -I"$src/src" -I"$src/include" -Xptxas -v -o "$work/$(basename "$f").cubin" "$src/$f" >"$log" 2>&1 ||
    { cat "$log" >&2; echo "FAIL: $f does not compile"; exit 1; }
  kernels=$(grep -c "Compiling entry function '_Z[0-9]*[a-z_0-9]*wgmma" "$log" || true)
  [ "$f" != src/backends/cuda/cuda_fp8.cu ] && kernels=$(grep -c "Compiling entry function '_Z[0-9]*tma_fp8_kernel" "$log" || true)
  [ "$f" = dev/kernels/pair_lab.cu ] && kernels=$(grep -c "Compiling entry function '_Z[0-9]*pair_wg_kernel" "$log" || true)
  [ "$kernels" -gt 0 ] || { echo "FAIL: $f: ptxas compiled no wgmma kernel (renamed?)"; exit 1; }
  # C7517: a wgmma wait ptxas injected itself (registers read before their group was waited for;
  # session 52's rolling halo pipeline drew it before the serialization, C7514)
  if grep -qE "C7510|C7517|wgmma.mma_async instructions are serialized" "$log"; then
    grep -E "C7510|C7517|wgmma.mma_async instructions are serialized" "$log" | sed 's/^/  /' >&2
    echo "FAIL: $f: wgmma serialized or waited for by ptxas in the kernels above"
    exit 1
  fi
  # the product's TMA kernels spill nothing; in the three-consumer ones a spill means ptxas compiled
  # the consumers within the registers the block starts with, ignoring setmaxnreg (it does where a
  # kernel holds a trap: session 51, mbar_wait<FAULT>)
  if [ "$f" = dev/kernels/pair_lab.cu ]; then
    spills=$(awk '/Function properties for _Z[0-9]*pair_wg_kernel/ {fn = $NF; getline; if ($5 + 0 > 0) print fn}' "$log")
    [ -z "$spills" ] || { echo "$spills" | sed 's/^/  /' >&2; echo "FAIL: $f: wgmma pair kernels above spill registers"; exit 1; }
  fi
  if [ "$f" = src/backends/cuda/cuda_fp8_tma.cu ]; then
    spills=$(awk '/Function properties for _Z[0-9]*tma_fp8_kernel/ {fn = $NF; getline; if ($5 + 0 > 0) print fn}' "$log")
    [ -z "$spills" ] || { echo "$spills" | sed 's/^/  /' >&2; echo "FAIL: $f: TMA kernels above spill registers"; exit 1; }
  fi
  # nor do the halo kernels, with and without their fragment prefetch and slab pairs (a second
  # fragment set, and sum array, under the 128-register cap of the BN <= 64 ones; session 52)
  if [ "$f" = src/backends/cuda/cuda_fp8.cu ]; then
    halos=$(grep -c "Compiling entry function '_Z[0-9]*conv_fp8_halo_kernel" "$log" || true)
    [ "$halos" -eq 12 ] || { echo "FAIL: $f: $halos halo kernels compiled, 12 expected (5 variants x PIPE 0, 1; 2 at BN 32)"; exit 1; }
    spills=$(awk '/Function properties for _Z[0-9]*conv_fp8_halo_kernel/ {fn = $NF; getline; if ($5 + 0 > 0) print fn}' "$log")
    [ -z "$spills" ] || { echo "$spills" | sed 's/^/  /' >&2; echo "FAIL: $f: halo kernels above spill registers"; exit 1; }
  fi
  echo "ok: $f: $kernels wgmma kernels, none serialized"
done
