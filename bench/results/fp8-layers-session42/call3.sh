#!/usr/bin/env bash
# Session 42 call 3: the GPU tests and the benchmark with its PyTorch peer in one call, on the final
# GPU code (2c60461: session 41's kernels, the SM count asked through one helper,
# i8_cuda_sm_count), then the lab's six-stage ping-pong kernels (dev only, 70-72) on four IRv2
# batch-32 convs against the product's four-stage ones.
#   suites     test_cuda_fp8 (all tests, three processes by name) beside cuda_tests
#   irv2-b32   issue 5's row: recipe `default` against infer8 fp16, same process, 7 interleaved
#              rounds, with the per-layer table and the isolated-node profiles
#   peers      peers_torch.py on the IRv2 snapshot at batch 32 (eager in a CUDA graph, torch.compile)
#   lab-*      fp8_lab, product variants 48 52 53 55 56 against lab 70 (s6p) 71 (s6pr) 72 (s6pc)
#   irv2-b1    the batch-1 row
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
suites_split_step 330
bench_step irv2-b32 inception_resnet_v2 32 130
if [ "$(left)" -gt 150 ]; then
  stamp peers
  BENCH_ARCHES=inception_resnet_v2 BENCH_BATCHES=32 timeout $(cap 200) tools/gpu-check bench_peers 2>&1 | tail -4
  grep -h -E '"(model|mode|batch|median_ms|min_ms|max_ms)"' "$OUT"/peers-*.json 2>/dev/null | tr -d ' \n' | head -c 900; echo
  stamp "peers done"
fi
lab_mode() {
  local file=$1 shape=$2 mode=$3
  [ "$(left)" -gt 80 ] || { echo "lab $shape skipped"; return 0; }
  stamp "lab $shape, mode $mode"
  FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode FP8_LAB_VARIANT=48,52,53,55,56,70,71,72 timeout "$(cap 40)" \
    build-device/bin/fp8_lab >"$OUT/$file" 2>&1
  echo "exit $?" >>"$OUT/$file"
  grep -E "tma|WRONG|FAIL|exit" "$OUT/$file" | cut -c1-60 | head -8
}
lab_mode lab-7x1.txt "7x1 160->192 @17 b32" 0
lab_mode lab-1x7.txt "1x7 128->160 @17 b32" 0
lab_mode lab-b17branch.txt "Block17 branch 1x1 1088->192 @17 b32" 0
lab_mode lab-b17up.txt "Block17 up 1x1 384->1088 @17 b32 +res" 4
bench_step irv2-b1 inception_resnet_v2 1 70
grep -h "profile " "$OUT"/*/fp8_bench.md 2>/dev/null
pack_call call3
