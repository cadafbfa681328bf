#!/usr/bin/env bash
# session 17 call 3: the rest of issue 4's goal on the final code (call 2's time limit cut
# inception_v4's torch.compile at batch 32 and left inception_v3 out): inception_v3 infer8 fp16
# and its peers, inception_v4's torch.compile at batch 32, then inception_v3's FP8 benchmark
# (graph-timed tuning) in the time left
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
echo "== v3 bench_fp16 (t=${SECONDS}s)"
INFER8_CUDA_CUDNN_BUDGET=30 BENCH_ARCHES=inception_v3 timeout 200 tools/gpu-check bench_fp16 2>&1 | tail -3
echo "== v3 peers (t=${SECONDS}s)"
BENCH_ARCHES=inception_v3 timeout $((400 - SECONDS)) tools/gpu-check bench_peers 2>&1 | tee $OUT/peers-inception_v3.log | grep median
echo "== v4 peers compile b32 (t=${SECONDS}s)"
BENCH_ARCHES=inception_v4 BENCH_BATCHES=32 PEER_MODES=compile timeout $((525 - SECONDS)) tools/gpu-check bench_peers 2>&1 \
  | tee $OUT/peers-inception_v4.log | grep median
left=$((575 - SECONDS))
if [ $left -gt 100 ]; then
  echo "== v3 fp8_bench within ${left}s (t=${SECONDS}s)"
  INFER8_FP8_BENCH_ARCHES=inception_v3 FP8_BENCH_TIMEOUT=$left INFER8_CUDA_CUDNN_BUDGET=40 timeout $left \
    tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|per layer|exit"
fi
ls $OUT
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call3.tgz . && rm -rf ./* && mv /tmp/call3.tgz .
