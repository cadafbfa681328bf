#!/usr/bin/env bash
# session 16 call 1: the owed GPU check of the final commit (session 15's 7f11bf0 / code 1e796b5)
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
VERIFY_SECONDS=565 tools/gpu-check verify 2>&1 | tail -40
echo "== rejections"
grep -h "cuda fp8 check:\|differs from" $OUT/*.log | cut -c1-300 | head -10
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
