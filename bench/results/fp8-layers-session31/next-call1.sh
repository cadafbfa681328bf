#!/usr/bin/env bash
# Prepared for the next session (not run): the GPU steps session 31 had no budget for, and a
# profile of the residual TMA kernel after session 31's instruction cuts.
# 1. Nsight Compute, SASS-level stall samples, on tma128x64s4pr (variant 53) for the Block17
#    up-projection at batch 32 in the default recipe's mode (mode 4): $OUT/ncu-b17up-53*.
#    bench/ncu_sass_stalls.py lists where its warps wait; compare with session 30's
#    bench/results/fp8-layers-session30/call1/ncu-53-sass.csv.gz (898 epilogue instructions per
#    warp and tile there).
# 2. fp8_parity on IRv2 (the CLI on cuda against the CPU emulation, three recipes) with room to
#    finish: session 31's 200 s cap ended it while the CLI tuned batch 32.
# 3. oracle (timm logits of the three snapshots) and parity (the fp16 CLI against timm) in what
#    is left.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -n "$ncu" ]; then
  stamp "ncu b17up variant 53"
  FP8_LAB_SHAPE="Block17 up 1x1 384->1088 @17 b32" FP8_LAB_MODE=4 FP8_LAB_VARIANT=53 timeout $(cap 90) \
    "$ncu" --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section SourceCounters \
    --import-source no -k regex:'tma_fp8' --launch-count 1 -o /tmp/ncu-b17up build-device/bin/fp8_lab >"$OUT/ncu-b17up.log" 2>&1
  echo "ncu exit $?"
  "$ncu" -i /tmp/ncu-b17up.ncu-rep >"$OUT/ncu-b17up-53.txt" 2>&1
  "$ncu" -i /tmp/ncu-b17up.ncu-rep --page source --print-source sass --csv 2>&1 | gzip >"$OUT/ncu-b17up-53-sass.csv.gz"
  grep -E "Duration|Issued Warp|No Eligible|Registers" "$OUT/ncu-b17up-53.txt"
  python3 bench/ncu_sass_stalls.py --top 10 "$OUT/ncu-b17up-53-sass.csv.gz" 2>&1 | head -40
fi
stamp fp8_parity
FP8_PARITY_ARCHES=inception_resnet_v2 timeout $(cap 300) tools/gpu-check fp8_parity 2>&1 | grep -E "parity|max rel|agree|exit" | tail -8
for step in oracle parity; do
  if [ "$(left)" -lt 60 ]; then echo "$step skipped: $(left) s left"; continue; fi
  stamp "$step"
  timeout $(cap 200) tools/gpu-check $step 2>&1 | tail -5
done
pack_call next-call1
