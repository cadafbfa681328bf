#!/usr/bin/env bash
# Ran in session 56 as its call 1 (H100): logs in bench/results/fp8-layers-session56/call1.
# Session 55, call 2. (1) Where a pair kernel's time goes: call 1's Nsight Compute of pair-c4 on
# Block17 (batch 1) showed 2% of its instructions are MMAs (mma.sync e4m3, which sm_90 runs as
# F2FP unpacks + fp16 HMMA), 0.41 issued per scheduler, and the samples spread over the load, 1x1,
# cluster-wait, consumer and epilogue phases. pair_lab built with I8_PAIR_LAB_PHASES skips phases
# (PAIR_LAB_PHASES mask: 1 the 1x1's MMAs, 2 the consumer's, 4 weight loads, 8 input loads, 16 the
# epilogues); each mask's time is a block's floor without those phases (checks fail by design when
# a phase is skipped). (2) The lab's wgmma pair (dev/kernels/pair_wg.cuh, new, never run: a row pair
# as two wgmma GEMMs with A by ldmatrix, no K split, epilogues from the accumulators) against the CPU
# reference and the two product kernels, in pair_lab_step. (3) Session 52's owed rows: inception_v4 and inception_v3 at batch 1 with
# their torch.compile peers, then v4 at batch 32 with its peer, as far as the time goes.
# Also the GPU tests of the final FP8 code (test_fp*: test_fp8_pair's six cases now all on cp.async).
# Carry ["build-device/bin/infer8", "build-device/bin/pair_lab", "build-device/tests/test_cuda_fp8",
# "build-device/tests/tools", ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-575}
. tools/device-call.sh
call_setup
pair_lab_step # every shape: the product's pair variants and pair_wg.cuh's wgmma pair (wg-c1 .. wg-c8)
fp8_tests_step fp8_small 200 'test_fp*' # the final FP8 GPU code (the bulk path removed since call 1)
grep -E "pairs on" "$OUT/fp8_small.log"
stamp "pair phases"
for shape in "Block17 1x1 1088->128 + 1x7 ->160 @17 b1" "Block35 1x1 320->32 + 3x3 ->48" "Block8 1x1"; do
  for mask in 31 0 28 3 12 16 19 15; do
    [ "$(left)" -gt 15 ] || continue
    echo "## $shape, phases $mask" >>"$OUT/pair_phases.txt"
    PAIR_LAB_PHASES=$mask timeout 40 build-device/bin/pair_lab "$shape" 2>&1 |
      grep -E "two kernels|pair-c[0-9]w? " >>"$OUT/pair_phases.txt"
  done
done
grep -E "^##|pair-c4 |pair-c2 |pair-c8 " "$OUT/pair_phases.txt" | head -80
bench_step v4-b1 inception_v4 1 70
PEER_MODES=compile peers_step inception_v4 1 80
bench_step v3-b1 inception_v3 1 60
PEER_MODES=compile peers_step inception_v3 1 70
bench_step v4-b32 inception_v4 32 120
PEER_MODES=compile peers_step inception_v4 32 120
pack_call call2
