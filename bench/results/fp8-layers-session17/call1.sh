#!/usr/bin/env bash
# session 17 call 1: the owed GPU check of session 16's final commit (4b87910, code a5290b9)
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
VERIFY_SECONDS=565 tools/gpu-check verify 2>&1 | tail -40
echo "== rejections"
grep -h "cuda fp8 check:\|differs from" $OUT/*.log | cut -c1-300 | head -10
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
