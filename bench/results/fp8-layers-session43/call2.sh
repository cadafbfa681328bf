#!/usr/bin/env bash
# Session 43 call 2: test_fp8_nan with the libraries' fused relu added (cuDNN e4m3, cuDNN fp16,
# cuBLASLt fp16, own fp16, beside the four own FP8 families), alone first, then both GPU suites on
# the final tree (the lab's chained-stage kernels removed; the product's CUDA source is 2c60461's,
# as in call 1), then IRv2's batch-1 row and its PyTorch peers in the same call.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
unit_test_step nan test_cuda_fp8 test_fp8_nan 150
grep -E "NaN outputs|prepare" "$OUT/nan.log" | cut -c1-200
suites_split_step 330
bench_step irv2-b1 inception_resnet_v2 1 70
if [ "$(left)" -gt 80 ]; then
  stamp peers
  BENCH_ARCHES=inception_resnet_v2 BENCH_BATCHES=1 timeout $(cap 120) tools/gpu-check bench_peers 2>&1 | tail -4
  stamp "peers done"
fi
pack_call call2
