# Bundle steps of tools/gpu-check (sourced by it): bundle_tactics.
# Builds an inception_v3 bundle with --device cuda (tactics tuned for batch 1 and 8 and stored),
# checks the tactics.cuda section is present, that its CUDA logits (tactics restored at open on
# the same GPU) stay within 1e-2 of the CPU reference, and that
# the same bundle still runs on the CPU; then an FP8 bundle built on the GPU (GPU calibration,
# FP8 tactic kinds stored) must open again and classify. Both CUDA runs (batch 1, one of the two
# tuned sizes) must keep every stored tactic (INFER8_CUDA_DEBUG's "N stored tactics kept, 0
# tuned again"); they build no cuDNN plans of their own (budget 0; restoring a stored one is not
# limited by it), so a tactic tuned again cannot match its stored one by chance. The FP8 bundle
# opens a second time with the default budget and must build no cuDNN e4m3 config at all.
# Both CUDA runs must also restore the graph's stream-priority choice stored with the tactics
# ("stream priorities restored"), not time it again.
# Results under $OUT/bundle_*.
STEPS+=(bundle_tactics)

bundle_tactics() {
  gpu_env >/dev/null
  local cli=$INFER8 w=$WORK/bundle
  mkdir -p "$w"
  {
    "$cli" synth --arch inception_v3 -o "$w/v3" >/dev/null &&
    "$cli" gen-images --count 2 -o "$w/img" >/dev/null &&
    "$cli" build "$w/v3" --precision fp16 --device cuda --max-batch 8 --opt-level 1 -o "$w/v3.cuda.bundle" &&
    "$cli" inspect "$w/v3.cuda.bundle" >"$w/inspect.txt" &&
    grep -E "tactics.cuda|tuned_gpu|opt_level" "$w/inspect.txt" &&
    grep -qE '"opt_level":[[:space:]]*1' "$w/inspect.txt" &&
    INFER8_CUDA_CUDNN_BUDGET=0 "$cli" classify "$w/v3.cuda.bundle" "$w"/img/*.png --device cuda --batch 1 --json >"$w/cuda.json" 2>"$w/cuda.log" &&
    "$cli" classify "$w/v3.cuda.bundle" "$w"/img/*.png --json >"$w/ref.json" &&
    python3 - "$w/ref.json" "$w/cuda.json" <<'PY' &&
import json, sys
for a, b in zip(open(sys.argv[1]), open(sys.argv[2])):
    x, y = json.loads(a)["logits"], json.loads(b)["logits"]
    rel = max(abs(p - q) for p, q in zip(x, y)) / max(abs(p) for p in x)
    print("cuda vs ref (fp16 bundle):", rel)
    assert rel <= 1e-2
PY
    cat "$w/cuda.log" &&
    grep -q "stored tactics kept, 0 tuned again" "$w/cuda.log" &&
    grep -q "stream priorities restored from the stored tactics" "$w/cuda.log" &&
    # an FP8 bundle built on the GPU stores the FP8 tactic kinds and must open again
    "$cli" calibrate "$w/v3" --images "$w/img" --device cuda -o "$w/v3.scales.json" &&
    "$cli" build "$w/v3" --precision fp8 --recipe default --scales "$w/v3.scales.json" --device cuda --max-batch 8 \
      -o "$w/v3.fp8.cuda.bundle" &&
    "$cli" inspect "$w/v3.fp8.cuda.bundle" >"$w/inspect-fp8.txt" &&
    grep -E "tactics.cuda|tuned_gpu" "$w/inspect-fp8.txt" &&
    INFER8_CUDA_CUDNN_BUDGET=0 "$cli" classify "$w/v3.fp8.cuda.bundle" "$w"/img/*.png --device cuda --batch 1 --json >"$w/fp8-cuda.json" 2>"$w/fp8-cuda.log" &&
    grep -E "stored tactics kept|restored" "$w/fp8-cuda.log" &&
    grep -q "stored tactics kept, 0 tuned again" "$w/fp8-cuda.log" &&
    grep -q "stream priorities restored from the stored tactics" "$w/fp8-cuda.log" &&
    # with the default cuDNN budget too: a restored tactic is final, no cuDNN e4m3 config is
    # built again (before session 11, restored own-kernel FP8 tactics were tuned on with cuDNN)
    "$cli" classify "$w/v3.fp8.cuda.bundle" "$w"/img/*.png --device cuda --batch 1 --json >"$w/fp8-cuda2.json" 2>"$w/fp8-cuda2.log" &&
    grep -E "stored tactics kept" "$w/fp8-cuda2.log" &&
    grep -q "stored tactics kept, 0 tuned again" "$w/fp8-cuda2.log" &&
    ! grep -q "cuda fp8-dnn:" "$w/fp8-cuda2.log" &&
    echo "FP8 bundle built on the GPU opens again and classifies: $(wc -l <"$w/fp8-cuda.json") results"
  } >"$OUT/bundle_tactics.log" 2>&1
  local rc=$?
  cat "$OUT/bundle_tactics.log"
  return $rc
}
