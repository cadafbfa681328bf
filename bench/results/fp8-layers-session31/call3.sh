#!/usr/bin/env bash
# Session 31 call 3 (run as one command line while the machine was still held after call 2): the
# GPU's e4m3 conversion tables (fp8_table; compared here with tests/fixtures/fp8/: byte-identical),
# then fp8_parity on IRv2 (the CLI's classify on cuda against the CPU emulation, 64 images; its
# 200 s cap ended it while the CLI tuned batch 32: no result).
cd "$(dirname "$0")/../../.."
. tools/device-call.sh && CALL_SECONDS=280 && stamp fp8_table && timeout 60 tools/gpu-check fp8_table 2>&1 | tail -3
stamp fp8_parity
FP8_PARITY_ARCHES=inception_resnet_v2 timeout $(cap 200) tools/gpu-check fp8_parity 2>&1 | grep -E "parity|exit|max rel|agree" | tail -8
stamp end
