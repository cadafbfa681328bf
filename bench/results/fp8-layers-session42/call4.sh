#!/usr/bin/env bash
# Session 42 call 4: the rest of issue 5's table on the final GPU code (as call 3), on call 3's machine
# held warm: v4 and v3 at batch 32 and 1, then peers_torch.py at batch 1 on the IRv2 snapshot and,
# as the time left allows, at batch 32 on v4's.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-450}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 80
bench_step v3-b32 inception_v3 32 75
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 50
for spec in "inception_resnet_v2 1 90" "inception_v4 32 110"; do
  read -r arch batch need <<<"$spec"
  [ "$(left)" -gt "$need" ] || { echo "peers $arch b$batch skipped: $(left) s left"; continue; }
  stamp "peers $arch b$batch"
  BENCH_ARCHES=$arch BENCH_BATCHES=$batch timeout $(cap $need) tools/gpu-check bench_peers 2>&1 | tail -3
done
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call4
