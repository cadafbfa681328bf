#!/usr/bin/env bash
# Session 39, call 3 (warm after call 2, same build): issue 5's table on the landed code, then the
# PyTorch peers (graph, torch.compile) on IRv2's synth snapshot if time is left.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 130
bench_step v4-b32 inception_v4 32 110
bench_step v4-b1 inception_v4 1 80
bench_step v3-b1 inception_v3 1 70
if [ "$(left)" -gt 100 ]; then
  stamp peers
  BENCH_ARCHES=inception_resnet_v2 timeout $(cap 200) tools/gpu-check bench_peers 2>&1 | tail -6
  cat "$OUT"/peers-*.json 2>/dev/null | head -60
fi
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call3
