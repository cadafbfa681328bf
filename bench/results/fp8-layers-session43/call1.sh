#!/usr/bin/env bash
# Session 43 call 1: the GPU tests and the benchmark with its PyTorch peer in one call, on the final
# GPU code (8f03773; the product's TMA kernels compile to the same bytes as 2c60461, whose suites and
# rows session 42's call 3 measured), then session 42's prepared lab comparison
# (fp8-layers-session42/next-call1.sh): the lab's chained-stage TMA kernels 73-78 against the
# product's 48 50 52 53 54 56 on five IRv2 batch-32 convs.
#   suites     test_cuda_fp8 (all tests, three processes by name) beside cuda_tests
#   irv2-b32   issue 5's row: recipe `default` against infer8 fp16, same process, 7 interleaved rounds
#   peers      peers_torch.py on the IRv2 snapshot at batch 32 (eager in a CUDA graph, torch.compile)
#   lab-*      fp8_lab; each kernel's output checked against the lab's double-precision reference
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
V=48,50,52,53,54,56,73,74,75,76,77,78
lab_step lab-7x1.txt "7x1 160->192 @17 b32" FP8_LAB_VARIANT=$V
lab_step lab-b17branch.txt "Block17 branch 1x1 1088->192 @17 b32" FP8_LAB_VARIANT=$V
lab_step lab-b17up.txt "Block17 up 1x1 384->1088 @17 b32 +res" FP8_LAB_MODE=4 FP8_LAB_VARIANT=$V
lab_step lab-1x7.txt "1x7 128->160 @17 b32" FP8_LAB_VARIANT=$V
lab_step lab-b35up.txt "Block35 up 1x1 128->320 @35 b32 +res" FP8_LAB_MODE=4 FP8_LAB_VARIANT=$V
pack_call call1
