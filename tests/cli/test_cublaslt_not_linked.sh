#!/usr/bin/env bash
# cuBLASLt is opened by the CUDA backend when it makes a context, not linked: neither the CLI nor
# libinfer8.so needs it, and CPU work (inspect, classify on oneDNN and on the reference executor)
# never loads it. Linked, its static initializers cost about 0.35 s at every process start
# (src/backends/cuda/cuda_cublaslt.h). In a CUDA build the CLI still links the CUDA runtime, so
# the check is about a CUDA build, not a CPU-only one.
. "$SRC/tests/lib/common.sh"
needed() { readelf -d "$1" | awk '/\(NEEDED\)/ { gsub(/[][]/, "", $5); print $5 }'; }
for obj in "$INFER8" "$BUILD/lib/libinfer8.so"; do
  [ -f "$obj" ] || fail "no $obj"
  needed "$obj" >"$WORK/needed.txt"
  grep -q '^libc\.so' "$WORK/needed.txt" || fail "readelf shows no NEEDED entries of $obj: $(cat "$WORK/needed.txt")"
  grep -i cublas "$WORK/needed.txt" && fail "$obj links cuBLAS: $(tr '\n' ' ' <"$WORK/needed.txt")"
  if [ "${HAVE_CUDA:-0}" = 1 ]; then
    grep -q '^libcudart\.so' "$WORK/needed.txt" || fail "a CUDA build's $obj does not link the CUDA runtime: $(tr '\n' ' ' <"$WORK/needed.txt")"
  fi
done
snap=$(snapshot inception_v3)
"$INFER8" gen-images --count 1 --seed 2 --size 64x48 -o "$WORK/img" >/dev/null || fail "gen-images"
img=$(ls "$WORK"/img/*.png)
for run in "inspect $snap" "classify $snap --image $img --device ref" "classify $snap --image $img --device cpu"; do
  # shellcheck disable=SC2086
  LD_DEBUG=files LD_DEBUG_OUTPUT="$WORK/ld" "$INFER8" $run >/dev/null 2>"$WORK/err.txt" || fail "infer8 $run: $(cat "$WORK/err.txt")"
  cat "$WORK"/ld.* >"$WORK/loaded.txt" && rm -f "$WORK"/ld.*
  grep -q 'file=libc\.so' "$WORK/loaded.txt" || fail "LD_DEBUG=files logged no library of infer8 $run"
  grep -i 'file=[^ ]*cublas' "$WORK/loaded.txt" && fail "infer8 $run loaded cuBLAS"
  echo "ok: infer8 $run: $(grep -c 'file=.*needed by\|file=.*dynamically loaded' "$WORK/loaded.txt") libraries loaded, none of them cuBLAS"
done
echo "ok: the CLI and libinfer8.so do not link cuBLASLt; CPU runs do not load it"
