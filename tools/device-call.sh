# Sourced by the device-call scripts (bench/results/*/callN.sh) from the repository root on the GPU
# machine: the time accounting and packing every call repeats.
#   CALL_SECONDS  the call's own limit (default 540; the device allows 600 with the start)
#   left          seconds left of it;  cap N: N, or what is left if less (at least 1)
#   bench_step NAME ARCH BATCHES NEED   fp8_bench into $OUT/NAME when NEED seconds are left
#   pack_call NAME                      everything under $OUT into $OUT/NAME.tgz (the device returns
#                                       at most 8 files)
export GPU_CHECK_PACK=never
call_t0=$SECONDS
left() { echo $((${CALL_SECONDS:-540} - (SECONDS - call_t0))); }
cap() { local l; l=$(left); echo $(( $1 < l ? $1 : (l > 1 ? l : 1) )); }
stamp() { echo "== $* (t=$((SECONDS - call_t0)) s)"; }
bench_step() {
  local name=$1 arch=$2 batches=$3 need=$4
  if [ "$(left)" -lt "$need" ]; then echo "$name skipped: $(left) s left, $need needed"; return 0; fi
  stamp "$name"
  FP8_BENCH_INTO=$name INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=$batches \
    FP8_BENCH_TIMEOUT=$(cap $((need + 30))) tools/gpu-check fp8_bench 2>&1 | tail -8
  grep -E "own-kernel choice|convs on own kernels|graph as tuned" "$OUT/$name/fp8_bench.log" | head -6
}
pack_call() {
  stamp "end"
  (cd "$OUT" && tar czf "/tmp/$1.tgz" . && rm -rf ./* && mv "/tmp/$1.tgz" .)
}
