#!/usr/bin/env bash
# For session 57 (prepared in session 56, not run): the 64-channel im2col sub-slice variants
# (70 tma128x64s4c64, 71 tma128x64s4pc64, 72 tma128x128s3c64; c_in <= 64) on a GPU for the first time.
# (1) Correctness: test_fp8_im2col (every im2col variant on the five cases with c_in <= 64: expects
#     4 * 10 + 4 * 5 + 4 * 3 cases) and test_fp8_im2col_chain (the narrow chain on 70-72); the
#     rest of test_fp* at the end if 150 s are left (else in a second call).
# (2) The lab at batch 32: v4 Block A 3x3 64->96 (55, tma128x128s3c, took 20-23 us in v4's graph, cuDNN fp16 16.8)
#     and IRv2 Block35 3x3 48->64, on 55, 56, 57, the halo kernels 58-62 and 70-72, modes 0 (e4m3 out)
#     and 4 (fp16 + e4m3 out, as v4's features.6.branch1.1).
# (3) With INFER8_CUDA_FP8_C64=1: inception_v4 and inception_v3 at batch 32 (their 3x3 64->96 and 5x5 48->64) with their
#     torch.compile peers, then IRv2 at batch 32 with its peer, as far as the time goes. Before:
#     session 56's H100: v4 b32 x 1.137 (fp16 2.769, FP8 2.436 ms), v3 b32 x 1.127, IRv2 b32 x 1.265.
# Carry ["build-device/bin/infer8", "build-device/bin/fp8_lab", "build-device/tests/test_cuda_fp8",
# "build-device/tests/tools", ".devcarry"] after tools/prepare-device.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-560}
. tools/device-call.sh
call_setup
fp8_tests_step im2col 120 'test_fp8_im2col*'
grep -E "chain on|tma128x64s4p?c64" "$OUT/im2col.log" | head -20
fp8_tests_step c64off 40 'test_fp8_c64_off' # the default leaves 70-72 out, a stored tactic for them is tuned again
for shape in "v4 Block A 3x3 64->96 @35 b32" "Block35 3x3 48->64 @35 b32"; do
  lab_step lab_c64.txt "$shape" FP8_LAB_MODE=0 FP8_LAB_VARIANT=55,56,57,58,59,60,61,62,70,71,72
  lab_step lab_c64.txt "$shape" FP8_LAB_MODE=4 FP8_LAB_VARIANT=55,56,57,70,71,72
done
# the tuner tries 70-72 only with INFER8_CUDA_FP8_C64=1 (off until this call has checked them)
export INFER8_CUDA_FP8_C64=1
bench_step v4-b32 inception_v4 32 120
PEER_MODES=compile peers_step inception_v4 32 100
bench_step v3-b32 inception_v3 32 80
PEER_MODES=compile peers_step inception_v3 32 80
bench_step irv2-b32 inception_resnet_v2 32 130
[ "$(left)" -gt 150 ] && fp8_tests_step fp8_all 150 'test_fp*' # the rest, where the tuner may now pick 70-72
pack_call next1
