#!/usr/bin/env bash
# Prepared in session 36 (not run): where did IRv2 `default` at batch 32 lose 1.2%? Session 35 measured
# x 1.208 / 1.205 on 7ef7589 (two machines), session 36 x 1.190 / 1.189 on da9fdc0 (two machines;
# fp16 the same, the FP8 graph as tuned 0.4% slower, and PDL, which won 0.6-0.9%, now loses
# 0.2-0.3%). One machine, four builds, each fp8_bench against its own fp16 in the same process:
#   7ef7589  session 35's figures
#   fad3e94  + 0828884 (each merged sibling's weights are rows of the group's arrays) and host refactors
#   HEAD     + the joint launch choice (choose_launch) and relu_f32 (v < 0 ? 0 : v) in the qmma /
#            wgmma / halo epilogues and the fp16 own kernels
#   maxnan   HEAD with relu-maxnan.patch (relu_f32 as max.NaN.f32, fmaxf's instruction count)
# Here, before the call: tools/prepare-device, then bench/results/fp8-layers-session36/build-ab.sh.
# Carry: build-device/bin, build-device/tests/{test_cuda_fp8,test_cuda_backend,test_cuda_calib,tools}, .devcarry
# (.devcarry/ab holds the three other binaries, 3.7 MB each).
# If maxnan is as fast as the fastest, apply relu-maxnan.patch and run test_fp8_nan on it
# (fp8_tests_step nan 60 'test_fp8_nan') in the same or the next call.
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
for name in HEAD 7ef7589 fad3e94 maxnan; do
  if [ "$name" = HEAD ]; then unset FP8_BENCH_BIN; else export FP8_BENCH_BIN=.devcarry/ab/test_cuda_fp8_$name; fi
  bench_step "irv2-b32-$name" inception_resnet_v2 32 125
done
unset FP8_BENCH_BIN
if [ -x .devcarry/ab/test_cuda_fp8_maxnan ] && [ "$(left)" -gt 40 ]; then
  stamp "test_fp8_nan on maxnan"
  INFER8_TEST_FILTER='test_fp8_nan' timeout "$(cap 40)" .devcarry/ab/test_cuda_fp8_maxnan >"$OUT/nan-maxnan.log" 2>&1
  echo "test_fp8_nan (maxnan): exit $?"; grep -E "NaN outputs|PASSED|FAILED" "$OUT/nan-maxnan.log"
fi
pack_call next-call1
