#!/usr/bin/env bash
# Session 37, call 1: session 36's prepared A/B (next-call1.sh), in this order so that the last build
# is the one dropped if time runs short. Where did IRv2 `default` at batch 32 lose 1.2% between
# session 35 (x 1.208 / 1.205 on 7ef7589) and session 36 (x 1.190 / 1.189 on da9fdc0)?
# One machine, each fp8_bench against its own fp16 in the same process:
#   HEAD     beb8b5b + profile-replays.patch (the per-node profile as graph replays; timing of the
#            forward unchanged); its per-layer lines check the profile against the tuner
#   7ef7589  session 35's figures
#   maxnan   7cd112b + relu-maxnan.patch (relu_f32 as max.NaN.f32: fmaxf's instruction count)
#   fad3e94  session 35's final code (each merged sibling's weights as rows of the group's arrays)
# Then test_fp8_nan on maxnan (it must keep NaN exactly as the reference).
# Here, before the call: tools/prepare-device; .devcarry/ab from
# bench/results/fp8-layers-session36/build-ab.sh.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
for name in HEAD 7ef7589 maxnan fad3e94; do
  if [ "$name" = HEAD ]; then unset FP8_BENCH_BIN; else export FP8_BENCH_BIN=.devcarry/ab/test_cuda_fp8_$name; fi
  bench_step "irv2-b32-$name" inception_resnet_v2 32 115
done
unset FP8_BENCH_BIN
if [ "$(left)" -gt 30 ]; then
  stamp "test_fp8_nan on maxnan"
  INFER8_TEST_FILTER='test_fp8_nan' timeout "$(cap 40)" .devcarry/ab/test_cuda_fp8_maxnan >"$OUT/nan-maxnan.log" 2>&1
  echo "test_fp8_nan (maxnan): exit $?"; grep -E "NaN outputs|PASSED|FAILED" "$OUT/nan-maxnan.log"
fi
grep -h "per layer\|most lost" "$OUT"/irv2-b32-HEAD/fp8_bench.md 2>/dev/null | head -20
pack_call call1
