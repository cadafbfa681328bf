#!/usr/bin/env bash
# Session 38, call 3: why the tuner kept cuDNN (0.071 ms at batch 32) for IRv2's conv2d_1a over the
# own direct variant 16 (stem-direct8.patch): conv_lab times every own variant on that shape
# (all 8 channels carrying data), and Nsight Compute profiles the direct kernel once; then the
# patched build's remaining rows of issue 5's table (v4 b1, v3 b32, v3 b1).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
stamp conv_lab
CONV_LAB_ONLY=conv2d_1a timeout 60 build-device/bin/conv_lab >"$OUT/conv_lab.txt" 2>&1; echo "conv_lab exit $?"
cat "$OUT/conv_lab.txt"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -n "$ncu" ]; then
  stamp ncu direct8
  CONV_LAB_ONLY="@299 b32" timeout 120 "$ncu" --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis -k regex:direct8 --launch-count 1 \
    build-device/bin/conv_lab >"$OUT/ncu-direct8.txt" 2>&1; echo "ncu exit $?"
  grep -E "Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|Compute \(SM\)|DRAM Throughput|Stall|Block Limit|L1/TEX Hit|L2 Hit" "$OUT/ncu-direct8.txt" | head -30
fi
bench_step v3-b32 inception_v3 32 90
bench_step v4-b1 inception_v4 1 60
bench_step v3-b1 inception_v3 1 60
pack_call call3
