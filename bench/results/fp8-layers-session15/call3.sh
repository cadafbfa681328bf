#!/usr/bin/env bash
# session 15 call 3: the im2col kernels case by case (which conv went wrong in call 2)
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
INFER8_TEST_FILTER='test_fp8_im2col' timeout 150 tools/gpu-check fp8_tests 2>&1 | tail -5
grep -E "WRONG|ok$|tactic|RUN|OK|FAIL|ERROR|LINE" $OUT/fp8_tests.log | head -40
echo "== done (t=${SECONDS}s)"
