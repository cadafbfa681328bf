#!/usr/bin/env bash
# Session 52, call 2 (H200): the whole-model FP8 tests on the final code, IRv2's batch-1 row with
# its torch.compile peer, then inception_v4's and v3's batch-32 rows:
#   fp8_v3, fp8_irv2  test_cuda_fp8's whole-model tests (GPU FP8 against the CPU emulation), side by side
#   irv2-b1, v4-b32, v3-b32  fp16 against FP8 `default`, 7 interleaved rounds
#   peers-*           peers_torch.py (torch.compile), same call
# The same carry as call1.sh:
#   bash bench/results/fp8-layers-session52/call2.sh
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-570}
. tools/device-call.sh
call_setup
pids=() # their pids, never a plain wait: call_setup's tee is a child of this shell too
for part in "fp8_v3 test_inception_v3_fp8*" "fp8_irv2 test_inception_resnet_v2*"; do
  read -r name filter <<<"$part"
  (export OMP_NUM_THREADS=8; fp8_tests_step "$name" 220 "$filter" >"$OUT/$name.summary" 2>&1) &
  pids+=($!)
done
wait "${pids[@]}"
cat "$OUT/fp8_v3.summary" "$OUT/fp8_irv2.summary"
bench_step irv2-b1 inception_resnet_v2 1 90
PEER_MODES=compile peers_step inception_resnet_v2 1 100
bench_step v4-b32 inception_v4 32 120
bench_step v3-b32 inception_v3 32 100
pack_call call2
