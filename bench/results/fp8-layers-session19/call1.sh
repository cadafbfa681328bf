#!/usr/bin/env bash
# session 19 call 1: the owed GPU check of session 18's final code (1c28c13: the waves
# experiment removed, lt_bias, test_fp8_tma_tile_loop): every GPU test step, then the FP8
# benchmark of inception_resnet_v2 at batch 32 and 1
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
VERIFY_SECONDS=555 tools/gpu-check verify 2>&1 | tail -45
echo "== rejections"
grep -h "cuda fp8 check:\|differs from" $OUT/*.log | cut -c1-300 | head -12
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call1.tgz . && rm -rf ./* && mv /tmp/call1.tgz .
