# Oracle steps of tools/gpu-check (sourced by it): env_info, oracle, fp8_table.
# INFER8 (the CLI) and WORK (scratch space) come from tools/gpu-check.
STEPS+=(env_info snapshots oracle fp8_table)
export PYTHONUNBUFFERED=1
mkdir -p "$WORK"

env_info() {
  gpu_env >/dev/null
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
    nvcc --version | tail -n 2
    python3 -c "import torch, timm; print('torch', torch.__version__, 'timm', timm.__version__, 'cudnn', torch.backends.cudnn.version())"
    echo "cpus $(nproc)"
  } 2>&1 | tee "$OUT/env.txt"
}

# The three families' seed-0 snapshots, made in parallel (so that steps run concurrently on
# several GPUs never race to make the same one).
snapshots() {
  gpu_env >/dev/null
  local arch pids=()
  for arch in inception_resnet_v2 inception_v4 inception_v3; do
    snapshot "$arch" >/dev/null & pids+=($!)
  done
  local rc=0 p
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  return $rc
}

# timm logits for infer8 synth snapshots: the CPU parity fixtures (tests/fixtures/oracle/).
oracle() {
  gpu_env >/dev/null
  "$INFER8" gen-images --count 4 --seed 1000 -o "$WORK/oracle-images" || return 1
  local arch img
  for arch in inception_resnet_v2 inception_v4 inception_v3; do
    snapshot "$arch" >/dev/null || return 1
    mkdir -p "$WORK/$arch-inputs"
    for img in "$WORK"/oracle-images/*.png; do
      "$INFER8" preprocess "$WORK/$arch" --image "$img" -o "$WORK/$arch-inputs/$(basename "$img" .png).npy" || return 1
    done
    python3 tests/oracle/timm_logits.py --arch "$arch" --seed 0 --snapshot "$WORK/$arch" \
      --images "$WORK/oracle-images" --inputs "$WORK/$arch-inputs" --out "$OUT/oracle-$arch.json" || return 1
  done
}

fp8_table() {
  gpu_env >/dev/null
  nvcc -O2 -arch=sm_90 tools/fp8-table.cu -o "$WORK/fp8-table" || return 1
  mkdir -p "$OUT/fp8" && "$WORK/fp8-table" "$OUT/fp8"
}
