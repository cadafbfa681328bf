#!/usr/bin/env bash
# session 15 call 1 (final commit a216e10, owed): tools/gpu-check verify
cd "$(dirname "$0")/../.."
echo "== verify (t=${SECONDS}s)"
VERIFY_SECONDS=565 GPU_CHECK_PACK=never tools/gpu-check verify 2>&1 | tail -30
echo "== rejections"
grep -h "cuda fp8 check:\|differs from" $OUT/*.log | cut -c1-300 | head -20
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
