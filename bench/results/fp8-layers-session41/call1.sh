#!/usr/bin/env bash
# Session 41 call 1: the GPU tests and the benchmark with its PyTorch peer in one call, on the
# candidate GPU code: HEAD d97fe74 + session 40's pool-tile.patch (3x3 pools over multiples of 32
# channels a 128-thread block per 4-group x 8-column x 4-row tile; INFER8_CUDA_POOL_TILE=0 keeps
# the untiled order) + the review's GPU mends (packk128's tap load and store in one helper each;
# packk128's and the halo kernels' grid bound in one helper, cuda_resident.cuh; the SM count asked
# once at prepare). Opcode counts here: the untiled pools and the halo kernels as before, packk128
# 0-8 instructions fewer, same registers.
#   suites       test_cuda_fp8 (all 23, each test's time in fp8_tests.times) and cuda_tests (per-op
#                graphs incl. the 12 pool cases widened to 32 channels, tiled and rerun untiled;
#                variant 16 forced; the three models) side by side
#   irv2-b32     issue 5's row: recipe `default` against infer8 fp16, same process, 7 interleaved
#                rounds, with the isolated-node profiles
#   peers        peers_torch.py on the IRv2 snapshot at batch 32 (torch.compile with freezing, eager
#                kernels in a CUDA graph), as the time left allows
#   pools        v4 at batch 32, INFER8_CUDA_POOL_TILE 1 and 0, as the time left allows
# Rebuild the binary it ran: git checkout d97fe74 && git apply bench/results/fp8-layers-session41/call1-code.patch
# (the candidate diff as it was at the call: pool-tile.patch, the mends of 86d820a, tools/device-call.sh)
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_step fp8_tests 420 300
bench_step irv2-b32 inception_resnet_v2 32 110
if [ "$(left)" -gt 70 ]; then
  stamp peers
  BENCH_ARCHES=inception_resnet_v2 BENCH_BATCHES=32 timeout $(cap 110) tools/gpu-check bench_peers 2>&1 | tail -4
  grep -h -E '"(model|mode|batch|median_ms|min_ms|max_ms)"' "$OUT"/peers-*.json 2>/dev/null | tr -d ' \n' | head -c 900; echo
fi
X=build-device/bin/infer8
for tile in 1 0; do
  [ "$(left)" -gt 35 ] || { echo "v4 tile $tile skipped"; continue; }
  [ -d /tmp/inception_v4 ] || $X synth --arch inception_v4 --seed 0 -o /tmp/inception_v4 >/dev/null 2>"$OUT/synth-v4.log"
  stamp "v4 pools, INFER8_CUDA_POOL_TILE=$tile"
  INFER8_CUDA_POOL_TILE=$tile INFER8_CUDA_CUDNN_BUDGET=4 timeout "$(cap 40)" $X bench /tmp/inception_v4 --device cuda --batch 32 \
    --rounds 5 --iters 100 --profile -o "$OUT/pools-v4-tile$tile.json" >"$OUT/pools-v4-tile$tile.txt" 2>&1
  echo "exit $?"; grep -E "pool|^/tmp" "$OUT/pools-v4-tile$tile.txt" | head -6
done
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call1
