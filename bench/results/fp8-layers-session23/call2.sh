#!/usr/bin/env bash
# Session 23, call 2: tools/gpu-check verify on the commit with the phased TMA epilogue (every GPU
# test step, then IRv2 fp8_bench at batch 32 and 1).
cd "$(dirname "$0")/../../.."
export GPU_CHECK_PACK=never
tools/gpu-check verify 2>&1 | tail -40
grep -E "graph as tuned" $OUT/fp8_bench_b*.log | head
cd $OUT && tar czf /tmp/c2.tgz . && rm -rf ./* && mv /tmp/c2.tgz .
