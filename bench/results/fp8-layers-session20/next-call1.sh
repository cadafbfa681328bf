#!/usr/bin/env bash
# Prepared in session 20 for a later session's first device call (not run): issue 4's batch-1
# rows of inception_resnet_v2 and inception_v3 against torch.compile on the final code (session 19
# ran them on the same GPU kernels), then inception_v4's parity as tools/gpu-check runs it by
# default (--adaptive-rounding stem; session 20's final host code, 2852bf2, not yet run on a GPU)
# and with the Inception-A blocks rounded too (CPU emulation KL 7.97e-5 against 8.51e-5 for the stem alone; GPU: 9.52e-5 at b1).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
W=/tmp/gpu-check-work
echo "== bench_fp16 IRv2 v3 b1 (t=${SECONDS}s)"
BENCH_ARCHES="inception_resnet_v2 inception_v3" BENCH_BATCHES=1 timeout 150 tools/gpu-check bench_fp16 2>&1 | tail -1
grep -h "tuned in" $OUT/bench_fp16.log
echo "== bench_peers IRv2 v3 b1 compile (t=${SECONDS}s)"
BENCH_ARCHES="inception_resnet_v2 inception_v3" BENCH_BATCHES=1 PEER_MODES=compile timeout $((330 - SECONDS)) \
  tools/gpu-check bench_peers 2>&1 | grep -E "median" | tail -2
mkdir -p $W
(STEPS=(); source tools/gpu-check.d/cuda.sh; gpu_env >/dev/null &&
  build-device/bin/infer8 gen-images --count 16 --seed 1 -o $W/rounding-images >/dev/null) || echo "gen-images failed"
echo "== parity inception_v4, its default parity build (--adaptive-rounding stem) on the final host code (t=${SECONDS}s)"
PARITY_ARCHES=inception_v4 timeout 200 tools/gpu-check parity 2>&1 | grep -E "batch|timm fp16|reference vs" | tail -6
mv $OUT/parity-inception_v4.json $OUT/parity-inception_v4-stem.json 2>/dev/null
echo "== parity inception_v4, stem and Inception-A rounded (t=${SECONDS}s)"
PARITY_ARCHES=inception_v4 PARITY_CUDA_ARGS="--adaptive-rounding stem,features.[6-9].* --rounding-images $W/rounding-images" \
  timeout $((570 - SECONDS)) tools/gpu-check parity 2>&1 | grep -E "batch|timm fp16|reference vs" | tail -6
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/next1.tgz . && rm -rf ./* && mv /tmp/next1.tgz .
