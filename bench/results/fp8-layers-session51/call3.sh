#!/usr/bin/env bash
# Session 51, call 3 (the same warm machine): the whole-model FP8 tests (inception_v3 and IRv2
# against the CPU emulation, the tuner free to pick the three-consumer kernels), side by side, 8
# OpenMP threads each; then inception_v4's and v3's batch-32 rows. Carry as call 1.
# As run, the loop below ended in a plain `wait`, which also waits for call_setup's tee of the
# output (a process substitution, which ends only with the call): both tests passed by t=123 s,
# then the call waited until the device tool's 600 s limit, and its archive was never packed (the
# files under call3/ are what $OUT held). The rows ran in call 4. Fixed here: wait for the two pids.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-540}
. tools/device-call.sh
call_setup
pids=()
for part in "fp8_v3 test_inception_v3_fp8*" "fp8_irv2 test_inception_resnet_v2*"; do
  read -r name filter <<<"$part"
  (export OMP_NUM_THREADS=8; fp8_tests_step "$name" 220 "$filter" >"$OUT/$name.summary" 2>&1) &
  pids+=($!)
done
wait "${pids[@]}"
cat "$OUT/fp8_v3.summary" "$OUT/fp8_irv2.summary"
bench_step v4-b32 inception_v4 32 120
bench_step v3-b32 inception_v3 32 100
pack_call call3
