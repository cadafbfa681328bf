#!/usr/bin/env bash
# Session 38, call 5: what lands, as it lands: input-pack16 and linear-rows on 89b62d6, without
# the direct stem kernel (which the tuner never took, calls 1-4). cuda_tests (check_u8's bit
# identity of the uint8 input path, every per-op graph and model against the CPU reference),
# then IRv2 batch 1 if time is left.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-280}
. tools/device-call.sh
call_setup
check_step cuda_tests 175
grep -h "profile .* over the tuned convs" "$OUT"/cuda_tests*.log 2>/dev/null | head -4
bench_step irv2-b1 inception_resnet_v2 1 85
pack_call call5
