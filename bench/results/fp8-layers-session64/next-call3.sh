#!/usr/bin/env bash
# For session 65 (prepared in session 64): test_inception_v3_fp8* (the whole-graph choices with the
# direct kernels among the candidates), then inception_v3 at batch 32 and 1 with their
# torch.compile peers. Carry [".devcarry"]; best on an H200.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-420}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_v3 100 'test_inception_v3_fp8*'
bench_step v3-b32 inception_v3 32 70
PEER_MODES=compile peers_step inception_v3 32 80
bench_step v3-b1 inception_v3 1 45
PEER_MODES=compile peers_step inception_v3 1 75
pack_call next3
