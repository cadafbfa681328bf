#!/usr/bin/env bash
# session 15 call 2: the im2col TMA kernels (per-op tests, lab on spatial shapes), IRv2 fp8_bench, TMA A/B at b1
cd "$(dirname "$0")/../.."
export GPU_CHECK_PACK=never
echo "== per-op fp8 tests (t=${SECONDS}s)"
INFER8_TEST_FILTER='test_fp8_*' tools/gpu-check fp8_tests 2>&1 | tail -40
echo "== lab, spatial shapes (t=${SECONDS}s)"
FP8_LAB_SHAPE=' b8' FP8_LAB_MODE=0 FP8_LAB_VARIANT=0,1,2,3,16,17,18,19,32,33,34,35,54,55,56 timeout 120 tools/gpu-check fp8_lab > $OUT/lab_spatial_b8.txt 2>&1
grep -E "^[A-Z].*\(M |best|FAIL|fp16 own|PASS|failure" $OUT/lab_spatial_b8.txt | head -60
grep -E "tma128" $OUT/lab_spatial_b8.txt | head -30
FP8_LAB_SHAPE='@17 b1' FP8_LAB_MODE=0 FP8_LAB_VARIANT=0,1,2,3,16,17,18,19,32,33,34,35,54,55,56 timeout 60 tools/gpu-check fp8_lab > $OUT/lab_spatial_b1.txt 2>&1
grep -E "^[A-Z].*\(M |best|FAIL|fp16 own|PASS|failure|tma128" $OUT/lab_spatial_b1.txt | head -40
echo "== fp8_bench IRv2 (t=${SECONDS}s)"
INFER8_FP8_BENCH_ARCHES=inception_resnet_v2 FP8_BENCH_TIMEOUT=170 INFER8_CUDA_CUDNN_BUDGET=40 tools/gpu-check fp8_bench 2>&1 | grep -E "^\| incep|per layer|most lost|^\| fp8-layers|exit"
echo "== rejections"
grep -h "cuda fp8 check:\|differs from" $OUT/*.log | cut -c1-300 | head -20
echo "== fp8_tma_ab (t=${SECONDS}s)"
left=$((540 - SECONDS)); per=$(( left / 2 - 5 ))
[ $per -gt 60 ] && FP8_AB_TIMEOUT=$per tools/gpu-check fp8_tma_ab 2>&1 | tail -8
echo "== done (t=${SECONDS}s)"
cd $OUT && tar czf /tmp/call2.tgz . && rm -rf ./* && mv /tmp/call2.tgz .
