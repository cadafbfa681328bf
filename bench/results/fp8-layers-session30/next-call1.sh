#!/usr/bin/env bash
# Prepared for the next session (not run): what holds the residual TMA kernels after session 30's
# producer change. Nsight Compute with SASS-level stall samples on the ping-pong residual kernel
# (variant 53, tma128x64s4pr) on the Block17 and Block35 up-projections at batch 32 in the default
# recipe's mode (mode 4), each report reduced to its summary and its per-instruction CSV
# ($OUT/ncu-SHAPE-53*.gz); then the lab times of every kernel on the three up-projections.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-300}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
for spec in "b17up:Block17 up 1x1 384->1088 @17 b32" "b35up:Block35 up 1x1 128->320 @35 b32"; do
  name=${spec%%:*} shape=${spec#*:}
  [ -n "$ncu" ] || { echo "no ncu"; break; }
  stamp "ncu $name variant 53"
  FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=4 FP8_LAB_VARIANT=53 timeout $(cap 120) \
    "$ncu" --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --section SourceCounters --section LaunchStats --import-source no -k regex:'tma_fp8' --launch-count 1 \
    -o "/tmp/ncu-$name" build-device/bin/fp8_lab >"$OUT/ncu-$name.log" 2>&1; echo "ncu exit $?"
  "$ncu" -i "/tmp/ncu-$name.ncu-rep" | gzip >"$OUT/ncu-$name-53.txt.gz"
  "$ncu" -i "/tmp/ncu-$name.ncu-rep" --page source --print-source sass --csv 2>&1 | gzip >"$OUT/ncu-$name-53-sass.csv.gz"
  zcat "$OUT/ncu-$name-53.txt.gz" | grep -E "Duration|DRAM Throughput|Issued Warp|No Eligible"
done
for shape in "Block17 up 1x1 384->1088 @17 b32" "Block8 up 1x1 448->2080 @8 b32" "Block35 up 1x1 128->320 @35 b32"; do
  stamp "lab: $shape, mode 4"
  FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=4 timeout $(cap 60) build-device/bin/fp8_lab >>"$OUT/lab-up.txt" 2>&1
done
grep -E "^Block|tma|best|WRONG" "$OUT/lab-up.txt" | head -40
pack_call next-call1
