#!/usr/bin/env bash
# For session 66 (prepared in session 65). Carry [".devcarry"] (after bash tools/prepare-device);
# best on an H200 (issue 5's goal is stated for it; sessions 63-65 got H100s only). The final-code
# check of 9897e1a, which removed session 64's direct-epilogue variants 78-79 (they lost in session
# 65's lab; the other 22 TMA kernels' PTX is identical to the GPU-checked ecfee4e's), then the
# batch-32 row with its peer:
# 1. every test_fp* (225 s in session 65 with the direct kernels' cases; fewer now);
# 2. test_inception_v3_fp8* (85 s);
# 3. IRv2 at batch 32 and its torch.compile peer (session 65, H100: x 1.332, 1.60 over the peer).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-575}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_all 250 'test_fp*'
fp8_tests_step fp8_v3 100 'test_inception_v3_fp8*'
bench_step irv2-b32 inception_resnet_v2 32 100
PEER_MODES=compile peers_step inception_resnet_v2 32 95
pack_call next1
