#!/usr/bin/env bash
# Session 43 call 3: test_fp8_nan again, its cuBLASLt fp16 pass now with INFER8_CUDA_LOSSY_ENGINES=1
# (call 2 forced cuBLASLt without it, and none of the 1x1 convs ran there: cuBLASLt offers no
# algorithm with an fp32 bias for an fp16 output) and the cuDNN e4m3 pass bound to the three convs
# that read an e4m3 copy (call 2: 3 of 4).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-200}
. tools/device-call.sh
call_setup
unit_test_step nan test_cuda_fp8 test_fp8_nan 150
grep -E "NaN outputs|prepare" "$OUT/nan.log" | cut -c1-200
pack_call call3
