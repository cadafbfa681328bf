#!/usr/bin/env bash
# session 17 call 2: issue 4's goal on the final code (graph-timed fp16 tuning since session 16):
# infer8 fp16 against PyTorch (eager in a CUDA graph, torch.compile + freezing) on the same synth
# weights, IRv2 and v4 first, then v3 in the time left; each step under a timeout so that what
# ran comes back
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
step() { # tag seconds archs steps...
  local tag=$1 t=$2 archs=$3; shift 3
  echo "== $tag: $* ($archs) within ${t}s (t=${SECONDS}s)"
  INFER8_CUDA_CUDNN_BUDGET=30 BENCH_ARCHES="$archs" timeout "$t" tools/gpu-check "$@" 2>&1 | tail -8
  [ -f $OUT/infer8-cuda-fp16.json ] && mv $OUT/infer8-cuda-fp16.json $OUT/infer8-cuda-fp16-$tag.json
  [ -f $OUT/bench_fp16.log ] && mv $OUT/bench_fp16.log $OUT/bench_fp16-$tag.log
}
step a 300 "inception_resnet_v2 inception_v4" bench_fp16
step a $((470 - SECONDS)) "inception_resnet_v2 inception_v4" bench_peers
left=$((585 - SECONDS))
if [ $left -gt 150 ]; then
  step b $((left * 45 / 100)) inception_v3 bench_fp16
  step b $((585 - SECONDS)) inception_v3 bench_peers
fi
ls $OUT
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
