#!/usr/bin/env bash
# Prepared in session 39, not run: the README's infer8-against-torch.compile table for inception_v4
# and inception_v3 is session 25's (IRv2 was measured again in session 39's call 3). This call
# measures both tools on the same synth weights in one call: infer8 fp16 (`infer8 bench --profile`,
# default tuning effort, 7 interleaved rounds of 200 replays), then peers_torch.py (eager kernels
# in a CUDA graph, and torch.compile with freezing) on the same snapshots.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry
# (.devcarry/peers_torch.py: tools/prepare-device copies ../shared/bench/peers_torch.py there).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
export BENCH_ARCHES="inception_v4 inception_v3"
stamp bench_fp16
timeout "$(cap 220)" tools/gpu-check bench_fp16 2>&1 | tail -8
stamp bench_peers
timeout "$(cap 330)" tools/gpu-check bench_peers 2>&1 | grep -E "median|error|Error" | head -12
pack_call next-call2
