#!/usr/bin/env bash
# Process start-up cost, the figures of README's "The two commands" and docs/performance.md's
# "Session 44": median [min, max] wall seconds of RUNS starts of
#   - `infer8 version` (INFER8, default build/bin/infer8),
#   - an empty C program linked with libcublasLt.so.<major> (what every process paid while
#     libinfer8 linked cuBLASLt), and the same program linked with the CUDA runtime only.
# usage: bench/startup.sh [INFER8] [RUNS]   (needs cc; the CUDA toolkit for the two empty programs)
set -euo pipefail
infer8=${1:-build/bin/infer8}
runs=${2:-11}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# median [min, max] of RUNS starts of the command given
starts() {
  local i t0 t1
  for i in $(seq "$runs"); do
    t0=$(date +%s.%N)
    "$@" >/dev/null
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
  done | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f [%.3f, %.3f] s\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
printf 'infer8 version:                     %s' "$(starts "$infer8" version)"; echo
cuda_lib=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda-*/lib; do
  if [ -e "$d/libcudart.so" ] && ls "$d"/libcublasLt.so.* >/dev/null 2>&1; then cuda_lib=$d; break; fi
done
if [ -z "$cuda_lib" ]; then echo "no CUDA toolkit libraries found: the empty programs are skipped"; exit 0; fi
echo 'int main(void) { return 0; }' >"$work/empty.c"
cc "$work/empty.c" -o "$work/with_cublaslt" -Wl,--no-as-needed -L"$cuda_lib" -lcudart -lcublasLt -Wl,-rpath,"$cuda_lib"
cc "$work/empty.c" -o "$work/cudart_only" -Wl,--no-as-needed -L"$cuda_lib" -lcudart -Wl,-rpath,"$cuda_lib"
printf 'empty program, cudart + cuBLASLt:   %s' "$(starts "$work/with_cublaslt")"; echo
printf 'empty program, cudart only:         %s' "$(starts "$work/cudart_only")"; echo
