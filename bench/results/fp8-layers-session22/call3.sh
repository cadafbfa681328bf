#!/usr/bin/env bash
# Session 22, call 3: tools/gpu-check verify on the final GPU code (the TMA kernels' PDL path and
# the whole-graph cap on concurrent TMA convs; test_fp8_tma_pdl and test_fp8_tma_cap among
# fp8_tests); its IRv2 fp8_bench rows show what the cap choice kept.
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
tools/gpu-check verify 2>&1 | tail -40
grep -E "concurrent TMA convs|graph as tuned" $OUT/fp8_bench_b*.log | head
grep -E "INFER8_CUDA_PDL=|INFER8_CUDA_TMA_CAP=|without the waits|OK \] test_fp8_tma|FAILED \] test" $OUT/fp8_tests.log
cd $OUT && tar czf /tmp/c3.tgz . && rm -rf ./* && mv /tmp/c3.tgz .
