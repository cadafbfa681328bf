#!/usr/bin/env bash
# Session 30 call 3: the final code (the residual TMA kernels' producer loads a tile's residual
# after its K slices; choose_own leaves forced tactic kinds alone) on the other figures of issue 5
# (call 2 measured IRv2 at batch 32): IRv2 `default` at batch 1, inception_v4 and inception_v3 at
# batch 32, then at batch 1 as far as the time allows (fp8_bench: 7 interleaved rounds against
# infer8's fp16 in the same process), each under $OUT/NAME.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-470}
. tools/device-call.sh
bench_step irv2-b1 inception_resnet_v2 1 80
bench_step v4-b32 inception_v4 32 130
bench_step v3-b32 inception_v3 32 80
bench_step v4-b1 inception_v4 1 70
bench_step v3-b1 inception_v3 1 55
pack_call call3
