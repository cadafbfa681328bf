#!/usr/bin/env bash
# Session 49, call 2 (H100, warm after call 1 = session 47's next-call2.sh on 40c8bbe): issue 5's
# IRv2 batch-1 row (fp8_bench, fp16 against FP8 `default`, 7 interleaved rounds, 60 s cuDNN
# budget) and its torch.compile peer in the same call. Ran as the same commands inline, carrying
# build-device/bin, build-device/tests/tools and .devcarry: the warm machine still held call 1's
# build-device/tests/test_cuda_fp8 (the benchmark); a fresh machine needs it carried too.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-330}
. tools/device-call.sh
call_setup
bench_step irv2-b1 inception_resnet_v2 1 120
PEER_MODES=compile peers_step inception_resnet_v2 1 170
pack_call call2
