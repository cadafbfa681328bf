# Benchmark step of tools/gpu-check (sourced by it): infer8 fp16 on CUDA against the PyTorch
# peers on the same weights (synth snapshots), in one call; merged into $OUT/cuda-fp16.json.
STEPS+=(bench_fp16 bench_peers)
BENCH_ARCHES=${BENCH_ARCHES:-"inception_resnet_v2 inception_v4 inception_v3"}

# the snapshots of BENCH_ARCHES (infer8 synth needs the carried libraries: bench_peers alone,
# without bench_fp16 before it, once found no snapshot and failed without a word, session 17)
bench_snapshots() {
  local arch
  gpu_env >/dev/null || { echo "bench: gpu_env failed"; return 1; }
  for arch in $BENCH_ARCHES; do
    snapshot "$arch" >/dev/null || { echo "bench: infer8 synth --arch $arch failed: $(tail -n 1 "$WORK/$arch.synth.log" 2>/dev/null)"; return 1; }
  done
}

# infer8: the three families in one interleaved run, batch 1 and 32, with the per-layer profile,
# at the default tuning effort (--opt-level 2: a 30 s cuDNN budget per batch size) unless
# INFER8_CUDA_CUDNN_BUDGET says otherwise (until session 18 this step set 60 s).
bench_fp16() {
  gpu_env >/dev/null
  bench_snapshots || return 1
  local dirs=() arch
  for arch in $BENCH_ARCHES; do dirs+=("$WORK/$arch"); done
  "$INFER8" bench "${dirs[@]}" --device cuda \
    --batch ${BENCH_BATCHES:-1,32} --rounds 7 --iters 200 --profile -o "$OUT/infer8-cuda-fp16.json" 2>"$OUT/bench_fp16.log"
  local rc=$?
  tail -n 5 "$OUT/bench_fp16.log"
  return $rc
}

# PyTorch eager-in-graph and torch.compile on the same weights (one snapshot per model). One
# file per model and batch list: named by the model alone, a second run of the same model in one
# call (v3 at batch 1 after batch 32, session 42's call 5) wrote over the first's results.
bench_peers() {
  [ -f .devcarry/peers_torch.py ] || { echo "peers_torch.py not carried"; return 1; }
  gpu_env >/dev/null || return 1 # infer8 synth makes the snapshots: the build unpacked, its libraries found
  bench_snapshots || return 1
  local arch batches=${BENCH_BATCHES:-1,32}
  for arch in $BENCH_ARCHES; do
    python3 .devcarry/peers_torch.py --models "$arch" --batch "$batches" --modes ${PEER_MODES:-graph,compile} \
      --snapshot "$WORK/$arch" --out "$OUT/peers-$arch-b${batches//,/-}.json" || return 1
  done
}

# What a build option costs at run time (issue 4 item 6: inception_v4's synth weights need the
# stem's fp16 rounding error reduced to meet the parity limits): each BENCH_ARCHES snapshot and
# its fp16 bundle built with VARIANT_BUILD_ARGS (default --split-weights ${SPLIT_SPEC:-stem}; e.g.
# "--adaptive-rounding stem --rounding-images DIR"), in one interleaved run (the ratio column is
# to the first model, so give one family at a time). Not in STEPS: run it by name.
bench_split() {
  gpu_env >/dev/null
  bench_snapshots || return 1
  local models=() arch
  for arch in $BENCH_ARCHES; do
    "$INFER8" build "$WORK/$arch" --precision fp16 ${VARIANT_BUILD_ARGS:---split-weights ${SPLIT_SPEC:-stem}} \
      -o "$WORK/$arch.variant.bundle" >"$OUT/build-variant-$arch.log" 2>&1 || { tail -n 3 "$OUT/build-variant-$arch.log"; return 1; }
    models+=("$WORK/$arch" "$WORK/$arch.variant.bundle")
  done
  "$INFER8" bench "${models[@]}" --device cuda --batch ${BENCH_BATCHES:-1,32} --rounds 7 --iters 200 \
    -o "$OUT/infer8-split.json" 2>"$OUT/bench_split.log"
  local rc=$?
  tail -n 5 "$OUT/bench_split.log"
  return $rc
}
