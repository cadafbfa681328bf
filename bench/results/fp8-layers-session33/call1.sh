#!/usr/bin/env bash
# Session 33 call 1, on session 32's final code (77236ec): what session 32 owed (its prepared
# next-call1.sh / next-call2.sh, regrouped so that the final code's remaining GPU tests run in call 2)
# and the lab A/B of uniform-indices.patch.
# 1. test_fp8_tma_store_paths alone: the test that failed in session 32's call 1 before the
#    host-side fix (rows of whole 16-byte chunks only for TMA stores).
# 2. The lab A/B of uniform-indices.patch (.devcarry/fp8_lab_uniform, built from 77236ec with the
#    patch applied) against the final build, per shape in turn, on the TMA kernels; a wrong output of
#    either build is reported (grep WRONG|FAIL).
# 3. The fp16-input TMA kernel (tma128x64s3h, mode h->q): base (be87941) / final / final with
#    TMA stores off.
# 4. IRv2 `default` at batch 32 and 1, then inception_v4 and inception_v3 at batch 32, against
#    infer8's fp16 (fp8_bench: interleaved rounds in one process).
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-580}
. tools/device-call.sh
. tools/gpu-check.d/cuda.sh 2>/dev/null; gpu_env >/dev/null 2>&1
fp8_tests_step store_paths 60 test_fp8_tma_store_paths
export FP8_LAB_VARIANT=48,49,50,51,52,53,54,55,56,57 # the TMA kernels
for spec in "4:Block17 up 1x1 384->1088 @17 b32" "4:Block8 up 1x1 448->2080 @8 b32" "4:Block35 up 1x1 128->320 @35 b32" \
  "0:Block17 branch 1x1 1088->192 @17 b32" "0:Block17 1x7 128->160 @17 b32"; do
  mode=${spec%%:*} shape=${spec#*:}
  for bin in build-device/bin/fp8_lab .devcarry/fp8_lab_uniform; do
    stamp "lab $bin: $shape, mode $mode"
    { echo "### $bin"; FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode timeout $(cap 40) $bin; echo "exit $?"; } >"$OUT/lab-part.txt" 2>&1
    cat "$OUT/lab-part.txt" >>"$OUT/lab.txt"
    grep -E "tma128x(64|128)s[34](p|pr|r|c|pc)? |best|WRONG|FAIL|exit [1-9]" "$OUT/lab-part.txt" | head -8
  done
done
rm -f "$OUT/lab-part.txt"
unset FP8_LAB_VARIANT
for lab in base new new-store-off; do
  bin=build-device/bin/fp8_lab store=1
  [ $lab = base ] && bin=.devcarry/fp8_lab_base
  [ $lab = new-store-off ] && store=0
  stamp "lab $lab: h->q"
  FP8_LAB_TMA_STORE=$store FP8_LAB_MODE=1 FP8_LAB_VARIANT=51 FP8_LAB_SHAPE="Block17 branch 1x1 1088->192 @17 b32" \
    timeout $(cap 20) $bin 2>&1 | tee -a "$OUT/lab-hq.txt" | grep -E "h->q|WRONG|FAIL" | head -3
done
bench_step irv2-b32 inception_resnet_v2 32 130
bench_step irv2-b1 inception_resnet_v2 1 60
bench_step v4-b32 inception_v4 32 95
bench_step v3-b32 inception_v3 32 85
pack_call call1
