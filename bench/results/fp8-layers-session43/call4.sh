#!/usr/bin/env bash
# Session 43 call 4 (warm after call 3): issue 5's inception_v4 and inception_v3 rows at batch 32
# and 1 on the final tree, and their PyTorch peers (eager in a CUDA graph, torch.compile) in the
# same call, as many as the time allows (each peer run writes peers-ARCH-bBATCH.json).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 80
bench_step v3-b32 inception_v3 32 75
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 50
for spec in "inception_v4 32 110" "inception_v3 32 90" "inception_v4 1 80" "inception_v3 1 70"; do
  read -r arch batch need <<<"$spec"
  [ "$(left)" -gt "$need" ] || { echo "peers $arch b$batch skipped: $(left) s left"; continue; }
  stamp "peers $arch b$batch"
  BENCH_ARCHES=$arch BENCH_BATCHES=$batch timeout $(cap $need) tools/gpu-check bench_peers 2>&1 | tail -3
done
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call4
