#!/usr/bin/env bash
# Session 41 call 3: issue 5's rows for inception_v4 and inception_v3 on the final GPU code
# (86d820a, the code call 2 tested), with their PyTorch peers in the same call: v4 and v3 at
# batch 32 (recipe `default` against infer8 fp16, same process, 7 interleaved rounds), then
# peers_torch.py on each snapshot at batch 32 (eager kernels in a CUDA graph, torch.compile with
# freezing), then the batch-1 rows as the time left allows. The call keeps to 560 s: 682 s of
# device budget were left before it.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
bench_step v4-b32 inception_v4 32 130
bench_step v3-b32 inception_v3 32 90
for arch in inception_v4 inception_v3; do
  [ "$(left)" -gt 110 ] || { echo "peers $arch skipped: $(left) s left"; continue; }
  stamp "peers $arch"
  BENCH_ARCHES=$arch BENCH_BATCHES=32 timeout $(cap 130) tools/gpu-check bench_peers 2>&1 | tail -3
done
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 55
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call3
