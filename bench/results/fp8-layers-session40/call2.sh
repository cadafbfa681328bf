#!/usr/bin/env bash
# Session 40 call 2: why pool3_kernel<1, 4> (pool3-mlp.patch) made inception_v4's average pools
# slower in call 1 (0.671 ms fp16 at batch 32, isolated nodes, against a4c4be0's
# pool_s1w3_kernel 0.552 in session 39), while its stride-2 max pools got faster (0.094 against
# 0.106). One experimental binary (.devcarry/exp/infer8: the call-1 source plus a4c4be0's
# pool_s1w3_kernel, its pool dispatch chosen by POOL_EXP; not committed) times each choice in
# `infer8 bench --profile` (per-node pool times in profile_ms_by_layer). To rebuild it: a checkout
# of 0f48a74, git apply bench/results/fp8-layers-session40/pool-exp.patch (session 39's three
# patches and the POOL_EXP dispatch in one), tools/prepare-device, then copy build-device/bin/infer8
# to .devcarry/exp/infer8 in this checkout (added to the patch after the call: one comment line).
#   POOL_EXP=1  a4c4be0: pool_s1w3_kernel for stride 1, pool_kernel for the rest
#   POOL_EXP=0  call 1: pool3_kernel<1, 4> and <2, 2>
#   POOL_EXP=2  pool3_kernel<1, 2> and <2, 2>
#   POOL_EXP=3  pool3_kernel<1, 1> and <2, 1>
# then Nsight Compute on the stride-1 kernels of 1 and 0 (occupancy, memory, warp states).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
X=.devcarry/exp/infer8
stamp synth
$X synth --arch inception_v4 --seed 0 -o /tmp/v4 >/dev/null 2>"$OUT/synth.log" || tail -3 "$OUT/synth.log"
for v in 1 0 2 3; do
  stamp "POOL_EXP=$v"
  POOL_EXP=$v INFER8_CUDA_CUDNN_BUDGET=4 timeout "$(cap 80)" $X bench /tmp/v4 --device cuda --batch 32 --rounds 5 --iters 100 \
    --profile -o "$OUT/v4-pool$v.json" >"$OUT/v4-pool$v.txt" 2>&1
  echo "exit $?"; grep -E "pool|ms" "$OUT/v4-pool$v.txt" | head -8
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
for v in 1 0; do
  [ -n "$ncu" ] && [ "$(left)" -gt 100 ] || { echo "ncu $v skipped"; continue; }
  stamp "ncu POOL_EXP=$v"
  POOL_EXP=$v INFER8_CUDA_CUDNN_BUDGET=2 timeout "$(cap 90)" "$ncu" --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --kernel-name-base mangled -k "regex:pool3_kernelILi1|pool_s1w3" \
    --launch-count 1 -o "/tmp/ncu$v" $X bench /tmp/v4 --device cuda --batch 32 --rounds 1 --iters 1 >"$OUT/ncu$v.log" 2>&1
  echo "ncu exit $?"
  "$ncu" -i "/tmp/ncu$v.ncu-rep" >"$OUT/ncu$v.txt" 2>&1
  grep -E "Duration|Memory Throughput|DRAM Throughput|L2 Hit|L1/TEX Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Grid Size|Issued Warp|No Eligible|Warp Cycles Per Issued|Stall" "$OUT/ncu$v.txt" | head -24
done
pack_call call2
