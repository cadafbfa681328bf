#!/usr/bin/env bash
# Session 24, call 5 (fresh machine, the session's last 378 s of device time): test_cuda_fp8 on
# the final commit 7d387f6 (the grid choice's 1% margin and the bench line's condition were added
# after call 3's run of it).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
t0=$SECONDS
INFER8_CUDA_CUDNN_BUDGET=10 timeout 250 tools/gpu-check fp8_tests >/dev/null 2>&1
echo "fp8_tests: exit $? t=$((SECONDS - t0)) s"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|max rel logit|kept .* blocks|2 blocks|every SM" "$OUT/fp8_tests.log"
