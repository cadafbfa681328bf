#!/usr/bin/env bash
# session 18 call 2: issue 4's open rows on 08d542c + verify.sh: inception_v3 parity after the
# cuBLASLt fp16 split-K filter (4fcd9f3), then, if batch 32 stays above the 1e-4 KL, the same
# with cuDNN forced; inception_v4 at batch 32, infer8 fp16 and torch.compile in the same call;
# inception_v4 FP8 in the time left
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
summary() { python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); c=d['cuda_fp16']
for b in ('batch1','batch32'):
  for k in ('vs_timm','vs_cpu_reference'):
    r=c[b][k]; print(sys.argv[2], b, k, 'top1 %.4f maxrel %.3e kl %.3e' % (r['top1_agreement'], r['max_rel_error'], r['mean_kl']))
" "$1" "$2"; }
echo "== parity inception_v3 (t=${SECONDS}s)"
PARITY_ARCHES=inception_v3 timeout 170 tools/gpu-check parity 2>&1 | tail -12
mv $OUT/parity-inception_v3.json $OUT/parity-inception_v3-default.json 2>/dev/null
summary $OUT/parity-inception_v3-default.json default
kl=$(python3 -c "import json; print(json.load(open('$OUT/parity-inception_v3-default.json'))['cuda_fp16']['batch32']['vs_timm']['mean_kl'] > 1e-4)" 2>/dev/null)
if [ "$kl" = True ]; then
  echo "== parity inception_v3, INFER8_CUDA_TACTIC=cudnn (t=${SECONDS}s)"
  INFER8_CUDA_TACTIC=cudnn PARITY_ARCHES=inception_v3 timeout 120 tools/gpu-check parity 2>&1 | tail -3
  mv $OUT/parity-inception_v3.json $OUT/parity-inception_v3-cudnn.json 2>/dev/null
  summary $OUT/parity-inception_v3-cudnn.json cudnn
fi
echo "== bench_fp16 inception_v4 b32 (t=${SECONDS}s)"
BENCH_ARCHES=inception_v4 BENCH_BATCHES=32 timeout 130 tools/gpu-check bench_fp16 2>&1 | tail -6
echo "== bench_peers inception_v4 b32 compile (t=${SECONDS}s)"
BENCH_ARCHES=inception_v4 BENCH_BATCHES=32 PEER_MODES=compile timeout 160 tools/gpu-check bench_peers 2>&1 | tail -4
cat $OUT/peers-inception_v4.json 2>/dev/null | head -c 1500; echo
left=$((555 - SECONDS))
echo "== fp8_bench inception_v4 b1,32 within ${left}s (t=${SECONDS}s)"
if [ $left -gt 60 ]; then
  INFER8_FP8_BENCH_ARCHES=inception_v4 INFER8_CUDA_CUDNN_BUDGET=20 FP8_BENCH_TIMEOUT=$left \
    timeout $left tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|exit"
fi
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
