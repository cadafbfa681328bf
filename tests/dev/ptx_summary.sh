#!/usr/bin/env bash
# tools/ptx-summary on a made-up repository: kernels that compile to the same PTX under other names
# share a hash and a count; one more operation changes both; --match keeps the kernels it names;
# --rev compiles a file as a revision holds it (with that revision's header); --sass gives each
# kernel's machine-code size; a missing file, a
# file that does not compile, a bad revision and a bad option fail, naming what was wrong.
# Usage: ptx_summary.sh NVCC SRC_ROOT WORK
set -euo pipefail
nvcc=$1 src=$2 work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
repo="$work/repo"
rm -rf "$repo" && mkdir -p "$repo/src" || fail "setup"
cd "$repo" && git init -q . || fail "git init"
cat >src/scale.h <<'H'
#define SCALE 2.0f
H
cat >src/k.cu <<'K'
#include "scale.h"
__global__ void twice(float *x, const float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = y[i] * SCALE; }
__global__ void twice_again(float *x, const float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = y[i] * SCALE; }
__global__ void twice_plus(float *x, const float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = y[i] * SCALE + y[n - 1 - i]; }
__global__ void looped(float *x, int n) { for (int i = threadIdx.x; i < n; i += blockDim.x) if (x[i] > 0.0f) x[i] = 1.0f; }
K
git add src && git -c user.name=t -c user.email=t@t commit -qm init || fail "commit"
run() { NVCC=$nvcc "$src/tools/ptx-summary" "$@"; }
out=$(run src/k.cu) || fail "ptx-summary failed: $out"
echo "$out"
[ "$(echo "$out" | wc -l)" -eq 4 ] || fail "4 kernels expected: $out"
field() { echo "$out" | awk -F'\t' -v k="$1" -v f="$2" '$4 ~ "^" k "\\(" {print $f}'; }
for k in twice twice_again twice_plus looped; do
  [ -n "$(field "$k" 2)" ] || fail "no line for $k"
  [ "$(field "$k" 1)" = src/k.cu ] || fail "$k: file column $(field "$k" 1)"
  [[ "$(field "$k" 3)" =~ ^[0-9a-f]{12}$ ]] || fail "$k: hash $(field "$k" 3)"
done
# the same body under another name (its parameters carry the name): the same count and hash
[ "$(field twice 2)" = "$(field twice_again 2)" ] && [ "$(field twice 3)" = "$(field twice_again 3)" ] ||
  fail "twice and twice_again differ: $out"
# a load and an add more: more instructions, another hash
[ "$(field twice_plus 2)" -gt "$(field twice 2)" ] && [ "$(field twice_plus 3)" != "$(field twice 3)" ] ||
  fail "twice_plus not larger than twice: $out"
# the loop's branch labels are in the hash only as \$L; the count is what ptxas would see, at least
# a load, a compare, a store and a branch
[ "$(field looped 2)" -ge 4 ] || fail "looped counts $(field looped 2)"
# every counted statement is an instruction: the PTX itself, filtered as the tool says
"$nvcc" -std=c++17 -O3 -arch=sm_90a -ptx -Isrc -o "$work/k.ptx" src/k.cu
want=$(awk '/\.entry[ \t]+_Z5twicePfPKfi\(/ {on = 1} on && /^\{/ {body = 1} body {s = $0; sub(/^[ \t]+/, "", s); if (s ~ /;$/ && s !~ /^[.$\/]/) n++} body && /^\}/ {print n; exit}' "$work/k.ptx")
[ "$(field twice 2)" = "$want" ] || fail "twice counts $(field twice 2), the PTX has $want instructions"

# --sass: the machine code's size before the name, as readelf gives the .text section (sm_90
# instructions are 16 bytes, sections padded to 128); the kernel with more instructions has no less
# code; the other columns as without
sass=$(run --sass src/k.cu) || fail "--sass failed: $sass"
echo "$sass"
[ "$(echo "$sass" | cut -f1-3,5)" = "$(echo "$out" | cut -f1-4)" ] || fail "--sass changed the other columns: $sass"
bytes() { echo "$sass" | awk -F'\t' -v k="$1" '$5 ~ "^" k "\\(" {print $4}'; }
for k in twice twice_plus looped; do
  b=$(bytes "$k")
  [[ "$b" =~ ^[0-9]+$ ]] && [ "$b" -gt 0 ] && [ $((b % 16)) -eq 0 ] || fail "$k: SASS bytes '$b'"
done
[ "$(bytes twice_plus)" -ge "$(bytes twice)" ] || fail "twice_plus $(bytes twice_plus) bytes, twice $(bytes twice)"
# an unrolled body of 512 more FFMAs: at least 512 more instructions of 16 bytes
cat >src/big.cu <<'K'
__global__ void small(float *x) { float a = x[threadIdx.x];
#pragma unroll 1
  for (int i = 0; i < 512; i++) a = fmaf(a, a, x[i & 7]); x[threadIdx.x] = a; }
__global__ void big(float *x) { float a = x[threadIdx.x];
#pragma unroll
  for (int i = 0; i < 512; i++) a = fmaf(a, a, x[i & 7]); x[threadIdx.x] = a; }
K
big=$(run --sass src/big.cu) || fail "--sass on big.cu: $big"
small_b=$(echo "$big" | awk -F'\t' '$5 ~ /^small\(/ {print $4}') big_b=$(echo "$big" | awk -F'\t' '$5 ~ /^big\(/ {print $4}')
[ "$big_b" -ge $((small_b + 512 * 16)) ] || fail "unrolled kernel $big_b bytes, the loop $small_b: $big"
rm src/big.cu

out=$(run --match 'twice' src/k.cu) || fail "--match failed"
[ "$(echo "$out" | wc -l)" -eq 3 ] || fail "--match twice kept $(echo "$out" | wc -l) kernels: $out"

# --rev: the committed file and header, not the working tree's
sed -i 's/2.0f/(y[0] + 1.0f)/' src/scale.h
now=$(run --match '^_Z5twice' src/k.cu) || fail "after the edit"
then=$(run --rev HEAD --match '^_Z5twice' src/k.cu) || fail "--rev HEAD failed"
[ "$(echo "$then" | cut -f3)" = "$(field twice 3)" ] || fail "--rev HEAD: $then, committed: $(field twice 3)"
[ "$(echo "$now" | cut -f3)" != "$(field twice 3)" ] || fail "the edited header changed nothing: $now"

# errors
rc=0; err=$(run src/none.cu 2>&1) || rc=$?
[ "$rc" -eq 1 ] && [[ "$err" == *"src/none.cu: no such file"* ]] || fail "missing file: rc $rc, $err"
echo '__global__ void broken( {' >src/bad.cu
rc=0; err=$(run src/bad.cu 2>&1) || rc=$?
[ "$rc" -eq 1 ] && [[ "$err" == *"src/bad.cu does not compile"* ]] || fail "bad file: rc $rc, $err"
rc=0; err=$(run --rev no-such-rev src/k.cu 2>&1) || rc=$?
[ "$rc" -eq 2 ] && [[ "$err" == *"no revision no-such-rev"* ]] || fail "bad revision: rc $rc, $err"
rc=0; err=$(run --rev HEAD src/bad.cu 2>&1) || rc=$?
[ "$rc" -eq 1 ] && [[ "$err" == *"src/bad.cu: no such file in HEAD"* ]] || fail "file not in the revision: rc $rc, $err"
rc=0; run --frob src/k.cu >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "bad option: rc $rc"
echo "ok: ptx-summary"
