#!/usr/bin/env bash
# Prepared in session 50 (not run: no device time left): IRv2's rows of issue 5 on the final code
# (the mixed-width im2col kernels in the tuning) with their torch.compile peers in the same call,
# which session 50's calls 1-4 could not fit. The steps are session 49's call 3 (about 500 s there),
# run as they stand; its archive is named call3.tgz. Run after tools/prepare-device, carrying
# build-device/bin, build-device/tests/test_cuda_fp8 (the benchmark), build-device/tests/tools and
# .devcarry:
#   bash bench/results/fp8-layers-session50/next-call1.sh
exec bash "$(dirname "$0")/../fp8-layers-session49/call3.sh"
