#!/usr/bin/env bash
# Session 40 call 4: the benchmarks on the final GPU code (the code call 3 tested: HEAD 0f48a74 +
# stem-packk-mlp.patch + conv-epilogue.patch + the pool rewrite), infer8 and its PyTorch peer in
# the same call. Issue 5's table (recipe `default` against infer8 fp16, same process, 7
# interleaved rounds, with the isolated-node profiles), IRv2 at batch 1 and 32, then
# peers_torch.py on the same IRv2 snapshot (eager kernels in a CUDA graph, torch.compile with
# freezing; batch 1 and 32), then v4 and v3 at batch 32 as the time left allows.
# 574 s of device budget were left before this call, so it keeps to 480 s.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-480}
. tools/device-call.sh
call_setup
bench_step irv2-b32 inception_resnet_v2 32 110
bench_step irv2-b1 inception_resnet_v2 1 70
if [ "$(left)" -gt 150 ]; then
  stamp peers
  BENCH_ARCHES=inception_resnet_v2 timeout $(cap 170) tools/gpu-check bench_peers 2>&1 | tail -6
  grep -h -E '"(model|mode|batch|median_ms|min_ms|max_ms)"' "$OUT"/peers-*.json 2>/dev/null | tr -d ' \n' | head -c 1500; echo
fi
bench_step v4-b32 inception_v4 32 110
bench_step v3-b32 inception_v3 32 85
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call4
