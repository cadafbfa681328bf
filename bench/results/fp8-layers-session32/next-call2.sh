#!/usr/bin/env bash
# Prepared for the next session (not run): the other rows of issue 5's table on session 32's final
# code (IRv2 b32 ran in call 1, IRv2 b1 in next-call1.sh), then the fp16 backend's and the
# calibration tests. First, when .devcarry/fp8_lab_uniform exists, the lab A/B of
# uniform-indices.patch (warp-uniform warpgroup and warp indices: R2UR 66 -> 10 in tma128x64s4pr,
# statically) against the final build on the shapes of call 1; build it here with
#   git worktree add /tmp/uni HEAD && git -C /tmp/uni apply bench/results/fp8-layers-session32/uniform-indices.patch
#   cmake -S /tmp/uni -B /tmp/uni/b -DINFER8_CUDA=ON -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/uni/b --target fp8_lab
#   cp /tmp/uni/b/bin/fp8_lab .devcarry/fp8_lab_uniform
#
# Never run as it stood: session 33 regrouped these steps into
# bench/results/fp8-layers-session33/call1.sh (the lab A/B and the batch-32 rows) and call3.sh (the batch-1 rows, cuda_tests, calib_tests; on the final code),
# which ran; their output is in bench/results/fp8-layers-session33/. The commands are there.
echo "superseded by bench/results/fp8-layers-session33/ (see the header)" >&2
exit 2
