#!/usr/bin/env bash
# Session 41 call 4: the PyTorch peers at batch 1 (eager kernels in a CUDA graph, torch.compile
# with freezing) on the same machine as calls 2 and 3 (held warm between them), for the batch-1
# rows those calls measured on 86d820a. 310 s of device budget were left: the call keeps to 260 s.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-260}
. tools/device-call.sh
call_setup
for arch in inception_resnet_v2 inception_v4 inception_v3; do
  [ "$(left)" -gt 60 ] || { echo "peers $arch skipped: $(left) s left"; continue; }
  stamp "peers $arch"
  BENCH_ARCHES=$arch BENCH_BATCHES=1 timeout $(cap 100) tools/gpu-check bench_peers 2>&1 | tail -3
done
pack_call call4
