#!/usr/bin/env bash
# Session 41 call 2: the GPU tests and the benchmark with its PyTorch peer in one call, on the
# final GPU code, 86d820a: the review's GPU mends (packk128's tap load and store in one helper
# each; packk128's and the halo kernels' grid bound in one helper, cuda_resident.cuh; the SM count
# asked once, at prepare). Session 40's pool-tile.patch is not in it: in call 1 IRv2's pools at
# batch 32 took longer with it (max 0.090 ms, average 0.022, against 0.077 / 0.018 in session 40).
#   suites       test_cuda_fp8 (all 23, in three processes by test name) and cuda_tests side by
#                side (call 1: 366 s for test_cuda_fp8 alone, 240 of them its model tests)
#   irv2-b32     issue 5's row: recipe `default` against infer8 fp16, same process, 7 interleaved
#                rounds, with the isolated-node profiles
#   peers        peers_torch.py on the IRv2 snapshot at batch 32: eager kernels in a CUDA graph and
#                torch.compile with freezing (call 1 ran out of time in torch.compile)
#   irv2-b1      the batch-1 row, as the time left allows
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_split_step 330
bench_step irv2-b32 inception_resnet_v2 32 130
if [ "$(left)" -gt 120 ]; then
  stamp peers
  BENCH_ARCHES=inception_resnet_v2 BENCH_BATCHES=32 timeout $(cap 200) tools/gpu-check bench_peers 2>&1 | tail -4
  grep -h -E '"(model|mode|batch|median_ms|min_ms|max_ms)"' "$OUT"/peers-*.json 2>/dev/null | tr -d ' \n' | head -c 900; echo
  stamp "peers done"
fi
bench_step irv2-b1 inception_resnet_v2 1 70
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call2
