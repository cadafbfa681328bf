# CUDA backend steps of tools/gpu-check (sourced by it): gpu_env, cuda_tests, cuda_bench.
# Run from the repository root on the GPU machine; results under $OUT.
STEPS+=(cuda_tests cuda_bench cuda_lab)

# unpack_once ARCHIVE DIR: the xz tar ARCHIVE (when carried) unpacked into DIR, over whatever a
# warm machine kept there from an earlier call, once per archive: its checksum, kept beside it
# (ARCHIVE.unpacked), marks it done
unpack_once() {
  local archive=$1 dir=$2 sum
  [ -f "$archive" ] || return 0
  sum=$(sha256sum "$archive" | cut -d' ' -f1)
  [ "$(cat "$archive.unpacked" 2>/dev/null)" = "$sum" ] && return 0
  tar -xJf "$archive" -C "$dir" || return 1
  echo "$sum" >"$archive.unpacked"
}

# Library path: the carried non-CUDA libraries, the system CUDA, then PyTorch's pip copies of
# cuDNN / cuBLAS / the runtime / NVRTC (the machine may have no system cuDNN).
gpu_env() {
  local extra=""
  # the shared libraries the GPU machine lacks, and the build itself (37 MB raw, 6 MB packed; a
  # call carries 64 MiB with the tracked tree), both xz-packed by tools/prepare-device
  unpack_once .devcarry/lib.tar.xz .devcarry || return 1
  unpack_once .devcarry/build.tar.xz . || return 1
  for d in /usr/local/cuda/lib64 /usr/local/cuda/lib; do [ -d "$d" ] && extra="$extra:$d"; done
  local torch_libs
  torch_libs=$(python3 - <<'PY' 2>/dev/null
import glob, os
try:
    import nvidia
    roots = list(nvidia.__path__)
except Exception:
    roots = []
dirs = []
for r in roots:
    for d in sorted(glob.glob(os.path.join(r, '*', 'lib'))) + sorted(glob.glob(os.path.join(r, 'cu*', 'lib'))):
        if d not in dirs: dirs.append(d)
print(':'.join(dirs))
PY
)
  export INFER8_CUDA_DEBUG=1
  export LD_LIBRARY_PATH="$PWD/.devcarry/lib$extra${torch_libs:+:$torch_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  {
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    ldd build-device/tests/test_cuda_backend | grep -E 'cud|cublas|nvrtc|not found'
    # cuBLASLt is opened at run time (src/backends/cuda/cuda_cublaslt.c), so ldd does not list it:
    # the first copy on the library path is the one dlopen takes
    local d lt_found=""
    for d in ${LD_LIBRARY_PATH//:/ }; do
      if [ -e "$d/libcublasLt.so.13" ]; then lt_found="$d/libcublasLt.so.13"; break; fi
    done
    echo "	libcublasLt.so.13 (opened at run time) => ${lt_found:-not on LD_LIBRARY_PATH (ld.so.cache decides)}"
  } >"$OUT/cuda_env.txt" 2>&1
  cat "$OUT/cuda_env.txt"
}

# gpu_test STEP PROGRAM SECONDS PATTERN LINES: runs the GPU test program build-device/tests/PROGRAM
# (tests/unit/test_cuda_*.c) into $OUT/STEP.log within SECONDS, prints its last LINES lines
# matching PATTERN (grep -E) and "STEP: exit N"; returns the program's status (77 = no GPU seen).
gpu_test() {
  local step=$1 program=$2 seconds=$3 pattern=$4 lines=$5
  timeout "$seconds" "build-device/tests/$program" >"$OUT/$step.log" 2>&1
  local rc=$?
  grep -E "$pattern" "$OUT/$step.log" | tail -n "$lines"
  echo "$step: exit $rc"
  return $rc
}

# GPU unit tests of the CUDA backend (per-op graphs for every tactic kind, whole families vs
# the CPU reference at batch 1 and 4).
cuda_tests() {
  gpu_env
  INFER8_CUDA_CUDNN_BUDGET=${INFER8_CUDA_CUDNN_BUDGET:-8} gpu_test cuda_tests test_cuda_backend 250 \
    '^\[|max rel|ms/forward|over the tuned convs|device:|tactics:|cudnn budget|high priority|restored|SKIP|FAIL|Error|error' 60
}

# Latency of the three families at batch 1 and 32 (CUDA-graph replay, median of 7 rounds) and
# the batch-1 profile; INFER8_CUDA_BENCH_ARCHES=a,b picks the families. Whole host calls (float32
# tensors against uint8 crops normalized on the GPU): `infer8 bench --input f32|u8`.
cuda_bench() {
  gpu_env >/dev/null
  INFER8_CUDA_BENCH=1 INFER8_CUDA_CUDNN_BUDGET=${INFER8_CUDA_CUDNN_BUDGET:-30} timeout 200 \
    build-device/tests/test_cuda_backend >"$OUT/cuda_bench.md" 2>"$OUT/cuda_bench.log"
  local rc=$?
  cat "$OUT/cuda_bench.log" | tail -40
  cat "$OUT/cuda_bench.md"
  echo "cuda_bench: exit $rc"
  return $rc
}


# Kernel lab (dev/kernels/conv_lab.cu, built by tools/prepare-device): validates and
# times every own conv kernel variant on Inception shapes.
cuda_lab() {
  gpu_env >/dev/null
  if [ -x build-device/bin/conv_lab ]; then
    timeout 90 build-device/bin/conv_lab >"$OUT/conv_lab.txt" 2>&1
    local rc=$?
    cat "$OUT/conv_lab.txt"
    echo "cuda_lab: exit $rc"
    return $rc
  fi
  echo "cuda_lab: build-device/bin/conv_lab not built (tools/prepare-device builds it)"
}

# Issue 4 item 6: GPU fp16 logits vs the CPU fp32 reference and vs timm (fp32, its own
# transform) on synth seed-0 snapshots, 64 generated images, batch 1 and 32
# (tests/oracle/cuda_parity.py; thresholds top-1 100%, max rel 1e-2, mean KL 1e-4).
# PARITY_ARCHES overrides the families; PARITY_CUDA_ARGS adds classify options to the GPU runs.
# Unset, inception_v4 runs as its parity build, --adaptive-rounding stem over 16 calibration
# images (gen-images seed 1, not the parity images): its synth stem amplifies fp16 weight
# rounding beyond the limits (docs/performance.md, sessions 19 and 20); set PARITY_CUDA_ARGS=" "
# for the plain build.
STEPS+=(parity)
parity() {
  gpu_env >/dev/null
  local cli=$INFER8 w=$WORK arch args rc=0
  mkdir -p "$w"
  "$cli" gen-images --count 64 --seed 20000 -o "$w/parity-images" >/dev/null || return 1
  for arch in ${PARITY_ARCHES:-inception_resnet_v2 inception_v4 inception_v3}; do
    snapshot "$arch" >/dev/null || return 1
    args=${PARITY_CUDA_ARGS:-}
    if [ -z "${PARITY_CUDA_ARGS+set}" ] && [ "$arch" = inception_v4 ]; then
      [ -d "$w/rounding-images" ] || "$cli" gen-images --count 16 --seed 1 -o "$w/rounding-images" >/dev/null || return 1
      args="--adaptive-rounding stem --rounding-images $w/rounding-images"
    fi
    INFER8_CUDA_CUDNN_BUDGET=${INFER8_CUDA_CUDNN_BUDGET:-5} python3 tests/oracle/cuda_parity.py --arch "$arch" \
      --snapshot "$w/$arch" --images "$w/parity-images" --infer8 "$cli" --out "$OUT/parity-$arch.json" \
      --cuda-args "$args" || rc=1
  done
  return $rc
}
