#!/usr/bin/env bash
# session 18 call 5 (the command line given to the device tool, kept here): inception_resnet_v2
# parity after the bias change, then infer8 fp16 IRv2 and v4 at batch 32 (the cost of leaving
# cuBLASLt out of the fp16 tactics; no peer in this call: 235 s of device time were left)
export GPU_CHECK_PACK=never; echo "== parity IRv2"; PARITY_ARCHES=inception_resnet_v2 timeout 100 tools/gpu-check parity 2>&1 | grep -E "batch|timm fp16" | tail -5; echo "== bench_fp16 IRv2+v4 b32 (t=${SECONDS}s)"; BENCH_ARCHES="inception_resnet_v2 inception_v4" BENCH_BATCHES=32 timeout $((165 - SECONDS)) tools/gpu-check bench_fp16 2>&1 | tail -1; python3 -c "
import json; d=json.load(open('$OUT/infer8-cuda-fp16.json'))
for r in d['rows']: print('infer8', r['arch'], r['batch'], '%.3f [%.3f, %.3f]' % (r['median_ms'], r['min_ms'], r['max_ms']))" 2>&1 | tail -2; echo "t=${SECONDS}s"; cd $OUT && tar czf /tmp/call5.tgz . && rm -rf ./* && mv /tmp/call5.tgz .
