#!/usr/bin/env bash
# Builds, here, the test_cuda_fp8 binaries next-call1.sh compares (fp8_bench runs in them), into
# .devcarry/ab/test_cuda_fp8_NAME: 7ef7589 (session 35's figures), fad3e94 (session 35's final
# code) and maxnan (this checkout's HEAD with relu-maxnan.patch). The checkout's own
# build-device (tools/prepare-device) is the fourth. Each: a git worktree under /tmp, test_cuda_fp8
# only; about 10 minutes each on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$PWD
mkdir -p .devcarry/ab
for name in 7ef7589 fad3e94 maxnan; do
  [ -x ".devcarry/ab/test_cuda_fp8_$name" ] && continue
  rev=$name; [ "$name" = maxnan ] && rev=HEAD
  wt=/tmp/infer8-ab-$name
  rm -rf "$wt"; git worktree prune
  git worktree add -f --detach "$wt" "$rev" >/dev/null
  [ "$name" = maxnan ] && git -C "$wt" apply "$root/bench/results/fp8-layers-session36/relu-maxnan.patch"
  cmake -S "$wt" -B "$wt/build-device" -DCMAKE_BUILD_TYPE=Release -DINFER8_CUDA=ON -DINFER8_ONEDNN=ON >/dev/null
  cmake --build "$wt/build-device" -j "$(nproc)" --target test_cuda_fp8 >/dev/null
  cp "$wt/build-device/tests/test_cuda_fp8" ".devcarry/ab/test_cuda_fp8_$name"
done
ls -la .devcarry/ab
