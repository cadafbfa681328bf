#!/usr/bin/env bash
# Session 42 call 5: the peers not yet run this session, on the machine of calls 3-4 held warm, as
# the device time left allows (about 300 s): v3 at batch 32, v4 and v3 at batch 1.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-240}
. tools/device-call.sh
call_setup
for spec in "inception_v3 32 70" "inception_v4 1 85" "inception_v3 1 75"; do
  read -r arch batch need <<<"$spec"
  [ "$(left)" -gt "$need" ] || { echo "peers $arch b$batch skipped: $(left) s left"; continue; }
  stamp "peers $arch b$batch"
  BENCH_ARCHES=$arch BENCH_BATCHES=$batch timeout $(cap $need) tools/gpu-check bench_peers 2>&1 | tail -3
done
pack_call call5
