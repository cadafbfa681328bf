#!/usr/bin/env bash
# Session 40 call 3: the GPU tests on the final GPU code (uncommitted at the call: HEAD 0f48a74 +
# stem-packk-mlp.patch + conv-epilogue.patch + the pool rewrite: pool3_kernel<S, MODE>, one
# output a thread, mode a template parameter, division through count_division.h), then the
# pools' per-node times. cuda_tests and the whole test_cuda_fp8 run side by side (correctness
# only; the GPU has room for both) to leave the benchmarks a call of their own (call 4).
#   cuda_tests   per-op graphs (12 pool cases: 3x3 s2 max / average, the blocks' s1 averages
#                excluding and including padding, the concat case's pools), variant 16 forced on
#                the padded-input convs, the three models against the CPU reference
#   fp8_tests    all of test_cuda_fp8 (pools writing the e4m3 twin, the NaN test, the models)
#   v4, v3 pools `infer8 bench --profile` fp16 batch 32 (cuDNN budget 4 s): the avgpool and
#                maxpool lines (call 2, a4c4be0's kernels: v4 0.530 / 0.113 ms)
cd "$(dirname "$0")/../../.."
CALL_SECONDS=${CALL_SECONDS:-585}
. tools/device-call.sh
call_setup
fp8_tests_step fp8_tests 420 >"$OUT/fp8_tests.summary" 2>&1 &
fp8_pid=$!
check_step cuda_tests 300
wait $fp8_pid
cat "$OUT/fp8_tests.summary"
X=build-device/bin/infer8
for arch in inception_v4 inception_v3; do
  [ "$(left)" -gt 45 ] || { echo "$arch pools skipped"; continue; }
  stamp "$arch pools"
  $X synth --arch $arch --seed 0 -o /tmp/$arch >/dev/null 2>"$OUT/synth-$arch.log" || tail -2 "$OUT/synth-$arch.log"
  INFER8_CUDA_CUDNN_BUDGET=4 timeout "$(cap 60)" $X bench /tmp/$arch --device cuda --batch 32 --rounds 5 --iters 100 \
    --profile -o "$OUT/pools-$arch.json" >"$OUT/pools-$arch.txt" 2>&1
  echo "exit $?"; grep -E "pool|^/tmp" "$OUT/pools-$arch.txt" | head -16
done
pack_call call3
