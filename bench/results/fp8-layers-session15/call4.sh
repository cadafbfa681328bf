#!/usr/bin/env bash
# session 15 call 4: the chain of spatial convs on each kernel (is call 2's chain error the kernel's?)
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
INFER8_TEST_FILTER='test_fp8_im2col_chain' timeout 100 tools/gpu-check fp8_tests 2>&1 | tail -3
grep -E "chain|tactic|FAIL|ERROR|LINE" $OUT/fp8_tests.log | head -20
echo "== done (t=${SECONDS}s)"
