# FP8 steps of tools/gpu-check (sourced by it; gpu_env comes from cuda.sh): fp8_tests, fp8_bench,
# fp8_lab, fp8_parity, calib_tests, calib_compare, fp8_ncu. Run from the repository root on the GPU
# machine; results under $OUT.
STEPS+=(fp8_tests fp8_bench fp8_lab)

# FP8 CUDA path against the CPU FP8 emulation (tests/unit/test_cuda_fp8.c): per-op graphs (1x1,
# 3x3, fused residual with and without residual_fp8, dual-output producer, concat read as FP8,
# scale conflict) and quantized inception_v3 / inception_resnet_v2 at batch 1 and 4.
# INFER8_FP8_TEST_IMAGES overrides the number of whole-model inputs (default 64 v3, 16 IRv2).
# The whole run takes about 490 s on the H200 at the default cuDNN budget (session 30: about 280 s
# up to the whole models, the two IRv2 ones 150 s, v3 with the own-kernel choice 57 s) and 279 s
# with INFER8_CUDA_CUDNN_BUDGET=10 (session 31); FP8_TESTS_TIMEOUT (default 540) caps it.
# A call script short of time runs groups of them with INFER8_TEST_FILTER instead.
fp8_tests() {
  gpu_env >/dev/null
  gpu_test fp8_tests test_cuda_fp8 ${FP8_TESTS_TIMEOUT:-540} '^\[|max rel|ms/forward|top-1|tactics restored|restored vs|critical path|SKIP|FAIL|Error|error|prepare|run:' 60
}

# The im2col TMA kernels' tests alone (test_fp8_im2col: each im2col variant forced on the spatial
# cases it fits; test_fp8_im2col_chain: on chains of spatial convs), against the CPU FP8
# emulation, for a kernel change before anything else runs: $OUT/fp8_im2col.log. Not in STEPS
# (fp8_tests runs them too).
fp8_im2col() {
  gpu_env >/dev/null
  INFER8_TEST_FILTER='test_fp8_im2col*' gpu_test fp8_im2col test_cuda_fp8 ${FP8_IM2COL_TIMEOUT:-240} \
    'tma128|chain on|^\[|WRONG|FAIL|Error|error' 60
}

# The halo kernels' tests alone (test_fp8_halo: each halo variant forced on the spatial cases it
# fits; test_fp8_halo_chain: on the narrow chain; test_fp8_halo_prefetch: both again with
# INFER8_CUDA_HALO_PREFETCH=1 and 2), against the CPU FP8 emulation: $OUT/fp8_halo.log.
# Not in STEPS (fp8_tests runs them too).
fp8_halo() {
  gpu_env >/dev/null
  INFER8_TEST_FILTER='test_fp8_halo*' gpu_test fp8_halo test_cuda_fp8 ${FP8_HALO_TIMEOUT:-240} \
    'halo|chain on|^\[|WRONG|FAIL|Error|error' 60
}

# fp16 vs FP8 of the same model (IRv2 and v3, recipe default; INFER8_FP8_BENCH_RECIPE and
# INFER8_FP8_BENCH_ARCHES override): 7 interleaved rounds of CUDA-graph replays at batch 1 and
# 32, median (min-max) and x = fp16 / fp8, the recipe's roofline bound (eval/roofline.c on the FP8
# graph), arena and weight memory, per-layer-type profile, the per-conv-class comparison of the two
# graphs and the five convs where FP8 loses most; every conv's two times and tactics in
# $OUT/fp8-layers-ARCH-bN.tsv, and their roofline bound and efficiency (bench/fp8_roofline.py, which
# models every residual conv as the default recipe's).
# FP8_BENCH_INTO=NAME writes everything under $OUT/NAME instead (several runs in one call) and
# prints only the rows, the roofline lines and the whole-graph choices. FP8_BENCH_BIN runs another
# build's test_cuda_fp8 (an A/B of two commits in one call; default build-device/tests/test_cuda_fp8).
fp8_bench() {
  gpu_env >/dev/null
  local dir="$OUT${FP8_BENCH_INTO:+/$FP8_BENCH_INTO}" bin=${FP8_BENCH_BIN:-build-device/tests/test_cuda_fp8}
  mkdir -p "$dir" || return 1
  # the benchmark lives in the FP8 test binary: a call that did not carry it gets told so, not just
  # "exit 127" (session 49's call 3 carried build-device/bin and tests/tools only)
  if [ ! -x "$bin" ]; then
    echo "fp8_bench${FP8_BENCH_INTO:+ $FP8_BENCH_INTO}: $bin is missing: carry it (tools/prepare-device builds it)" | tee "$dir/fp8_bench.log"
    echo "fp8_bench${FP8_BENCH_INTO:+ $FP8_BENCH_INTO}: exit 127"
    return 127
  fi
  INFER8_FP8_BENCH=1 INFER8_FP8_BENCH_TSV="$dir" INFER8_CUDA_CUDNN_BUDGET=${INFER8_CUDA_CUDNN_BUDGET:-60} timeout ${FP8_BENCH_TIMEOUT:-540} \
    "$bin" >"$dir/fp8_bench.md" 2>"$dir/fp8_bench.log"
  local rc=$?
  # the roofline bound of FP8 over fp16 on the same convs (standard-library Python)
  ls "$dir"/fp8-layers-*.tsv >/dev/null 2>&1 && python3 bench/fp8_roofline.py "$dir"/fp8-layers-*.tsv >>"$dir/fp8_bench.md"
  if [ -n "${FP8_BENCH_INTO:-}" ]; then
    grep -E "^\| (incep|fp8-layers)|roofline bound" "$dir/fp8_bench.md"
    grep -E "high priority|graph as tuned" "$dir/fp8_bench.log"
  else
    tail -20 "$dir/fp8_bench.log"
    cat "$dir/fp8_bench.md"
  fi
  echo "fp8_bench${FP8_BENCH_INTO:+ $FP8_BENCH_INTO}: exit $rc"
  return $rc
}

# Whole graphs with and without the TMA kernels (INFER8_CUDA_FP8_TMA=0 leaves them out of the
# tuning): each is tuned conv by conv, timed alone, but a TMA kernel holds a whole SM per block
# beside the concurrent branches. IRv2 (FP8_AB_ARCH overrides) at batch FP8_AB_BATCH (default 1),
# each run against its own fp16 graph in the same process: compare the x columns. Since session
# 15 the backend makes this choice itself in each process (ensure_batch's whole-graph choice,
# printed in fp8_bench's rows); the step compares two separate tunings, whose noise it includes.
# FP8_AB_VAR and FP8_AB_VALUES run another such A/B, e.g. FP8_AB_VAR=INFER8_CUDA_FP8_DNN
# FP8_AB_VALUES="1 0" (cuDNN's e4m3 graphs in the tuning and out).
STEPS+=(fp8_tma_ab)
fp8_tma_ab() {
  gpu_env >/dev/null
  local var=${FP8_AB_VAR:-INFER8_CUDA_FP8_TMA} value rc=0
  for value in ${FP8_AB_VALUES:-0 1}; do
    env "$var=$value" INFER8_FP8_BENCH=1 INFER8_FP8_BENCH_ARCHES=${FP8_AB_ARCH:-inception_resnet_v2} \
      INFER8_FP8_BENCH_BATCHES=${FP8_AB_BATCH:-1} INFER8_CUDA_CUDNN_BUDGET=${INFER8_CUDA_CUDNN_BUDGET:-40} \
      timeout ${FP8_AB_TIMEOUT:-240} build-device/tests/test_cuda_fp8 >"$OUT/fp8_tma_ab_$value.md" 2>"$OUT/fp8_tma_ab_$value.log" || rc=1
    echo "$var=$value:"
    grep -E "^\| incep" "$OUT/fp8_tma_ab_$value.md"
  done
  echo "fp8_tma_ab: exit $rc"
  return $rc
}

# Kernel lab (dev/kernels/fp8_lab.cu, built by tools/prepare-device): validates and times
# the FP8 conv kernel's tile variants and I/O modes on IRv2's 1x1 GEMMs, fp16 own kernel beside.
fp8_lab() {
  gpu_env >/dev/null
  if [ -x build-device/bin/fp8_lab ]; then
    timeout 120 build-device/bin/fp8_lab >"$OUT/fp8_lab.txt" 2>&1
    local rc=$?
    cat "$OUT/fp8_lab.txt"
    echo "fp8_lab: exit $rc"
    return $rc
  fi
  echo "fp8_lab: build-device/bin/fp8_lab not built (tools/prepare-device builds it)"
}

# The product's TMA kernels (src/backends/cuda/cuda_fp8_tma.cu: by default 48-53 and 66-67, pointwise,
# and 63-65 and 68-75, im2col; the im2col 54-57 when named) next to the lean wgmma kernel (32,
# the product's winner on the up-projections before session 13) on every lab shape and mode that
# each fits: validation and times. The lab's own experiments (dev/kernels/fp8_tma.cu) are numbered
# after the product's variants (76 on since session 57) and run when named.
# FP8_TMA_SHAPE narrows the shapes, FP8_TMA_VARIANTS the kernels; FP8_LAB_SLICE=1 writes the
# outputs as a channel slice of a wider tensor (a concat's branch) and fails any byte outside it.
STEPS+=(fp8_tma)
fp8_tma() {
  gpu_env >/dev/null
  [ -x build-device/bin/fp8_lab ] || { echo "fp8_tma: build-device/bin/fp8_lab not built (tools/prepare-device builds it)"; return 1; }
  FP8_LAB_VARIANT=${FP8_TMA_VARIANTS:-32,48,49,50,51,52,53,63,64,65,66,67,68,69,70,71,72,73,74,75} FP8_LAB_SHAPE=${FP8_TMA_SHAPE:-} timeout ${FP8_TMA_TIMEOUT:-150} stdbuf -oL build-device/bin/fp8_lab >"$OUT/fp8_tma.txt" 2>&1
  local rc=$?
  fp8_lab_table "$OUT/fp8_tma.txt" | tee "$OUT/fp8_tma_table.md"
  grep -E "FAIL|PASS|failed" "$OUT/fp8_tma.txt" | tail -20
  echo "fp8_tma: exit $rc"
  return $rc
}

# fp8_lab_table FILE: the lab's output as one markdown row per shape and I/O mode: each kernel's
# time in us, and the first (product) kernel's time over the best other checked one. Ablation
# kernels (output not checked) are listed but never "best".
fp8_lab_table() {
  awk '
    / \(M [0-9]+, K [0-9]+, N [0-9]+\)/ { shape = $0; sub(/ \(M .*/, "", shape); sub(/ \+res$/, "", shape); next }
    /^  [qh][^ ]* / && $2 != "best:" {
      key = shape " | " $1
      cells[key] = cells[key] sprintf(" %s %s%s", $2, $4, /ablation/ ? "*" : (/ FAIL/ ? "!" : ""))
      if (!(key in count)) { order[++n] = key; first[key] = $4 }
      else if (!/ablation/ && !/ FAIL/ && $4 + 0 > 0 && (!(key in best) || $4 + 0 < best[key] + 0)) best[key] = $4
      count[key]++
    }
    END {
      print "| shape | mode | kernels: us (* ablation, ! failed) | first / best other |"
      print "|---|---|---|---|"
      for (i = 1; i <= n; i++) {
        k = order[i]; split(k, p, " [|] ")
        printf "| %s | %s |%s | %s |\n", p[1], p[2], cells[k], (k in best) ? sprintf("%.2f", first[k] / best[k]) : "-"
      }
    }' "$1"
}

# Issue 5 item 6 on synth snapshots: GPU FP8 logits (--device cuda) against the CPU FP8
# emulation (--device ref) with calibrated scales (max, 32 generated images), 64 other
# generated images, recipes default and (IRv2) residual-fp8:10-39 and residual-fp8; thresholds
# max relative logit difference 2e-2, top-1 agreement 99%, or, where the emulation drifts further
# from itself accumulating in double (--fp64; tools/fp8-floor), twice that drift.
# FP8_PARITY_ARCHES and FP8_PARITY_RECIPES override.
STEPS+=(fp8_parity)
fp8_parity() {
  gpu_env >/dev/null
  local cli=$INFER8 w=$WORK arch recipe rc=0
  mkdir -p "$w"
  "$cli" gen-images --count 64 --seed 20000 -o "$w/parity-images" >/dev/null || return 1
  "$cli" gen-images --count 32 --seed 30000 -o "$w/calib-images" >/dev/null || return 1
  for arch in ${FP8_PARITY_ARCHES:-inception_resnet_v2 inception_v3}; do
    snapshot "$arch" >/dev/null || return 1
    "$cli" calibrate "$w/$arch" --images "$w/calib-images" --count 32 -o "$w/$arch.scales.json" 2>/dev/null || return 1
    local recipes="default"
    [ "$arch" = inception_resnet_v2 ] && recipes="default residual-fp8:10-39 residual-fp8"
    recipes=${FP8_PARITY_RECIPES:-$recipes}
    for recipe in $recipes; do
      for dev in ref ref-fp64 cuda; do
        INFER8_CUDA_CUDNN_BUDGET=${INFER8_CUDA_CUDNN_BUDGET:-5} "$cli" classify "$w/$arch" --precision fp8 --recipe "$recipe" \
          --scales "$w/$arch.scales.json" --device ${dev%-fp64} $([ $dev = ref-fp64 ] && echo --fp64) --batch 32 \
          --json --topk 1 "$w"/parity-images/*.png >"$w/fp8-$arch-$recipe-$dev.jsonl" || rc=1
      done
      python3 tests/oracle/logit_parity.py "$w/fp8-$arch-$recipe-ref.jsonl" "$w/fp8-$arch-$recipe-cuda.jsonl" \
        --label "fp8 parity $arch $recipe: cuda vs CPU emulation" --count 64 --max-rel 2e-2 --min-agree 0.99 \
        --floor "$w/fp8-$arch-$recipe-ref-fp64.jsonl" "$w/fp8-$arch-$recipe-ref.jsonl" || rc=1
    done
  done >"$OUT/fp8_parity.txt" 2>&1
  cat "$OUT/fp8_parity.txt"
  return $rc
}

# Calibration on the GPU (issue 5 item 3): tests/unit/test_cuda_calib.c (device histograms equal
# the host's bin for bin on known fp16 values; inception_v3 scales of every method against the
# reference executor's), then `infer8 calibrate --device cuda` against `--device ref` on the
# IRv2 snapshot (64 generated images, max and percentile: relative amax differences per tensor)
# and the GPU path's time for 500 images.
STEPS+=(calib_tests calib_compare)
calib_tests() {
  gpu_env >/dev/null
  gpu_test calib_tests test_cuda_calib 300 '^\[|tensors|SKIP|FAIL|Error|error|host amax' 20
}

calib_compare() {
  gpu_env >/dev/null
  local snap w=$WORK m rc=0
  snap=$(snapshot inception_resnet_v2) || return 1
  "$INFER8" gen-images --count 500 --seed 40000 -o "$w/calib500" >/dev/null || return 1
  for m in max percentile; do
    "$INFER8" calibrate "$snap" --images "$w/calib500" --count 64 --method $m --batch 32 --device ref -o "$w/cal-ref-$m.json" 2>&1 | tail -1
    "$INFER8" calibrate "$snap" --images "$w/calib500" --count 64 --method $m --batch 32 --device cuda -o "$w/cal-cuda-$m.json" 2>&1 | tail -1
    python3 - "$w/cal-ref-$m.json" "$w/cal-cuda-$m.json" $m <<'PY' || rc=1
import json, sys
a = json.load(open(sys.argv[1]))["tensors"]; b = json.load(open(sys.argv[2]))["tensors"]
assert a.keys() == b.keys(), "tensor sets differ"
rel = sorted((abs(b[k]["amax"] - a[k]["amax"]) / a[k]["amax"], k) for k in a if a[k]["amax"] > 0)
print(f"calibrate {sys.argv[3]}: cuda vs ref over {len(rel)} tensors: median rel {rel[len(rel)//2][0]:.2e}, "
      f"max {rel[-1][0]:.2e} ({rel[-1][1]})")
sys.exit(0 if rel[-1][0] <= 2e-2 else 1)
PY
  done
  "$INFER8" calibrate "$snap" --images "$w/calib500" --count 500 --batch 32 --device cuda -o "$w/cal-cuda-500.json" 2>&1 | tail -1
  return $rc
}

# Nsight Compute on one configuration of the kernel lab (build-device/bin/fp8_lab, see fp8_lab):
# FP8_NCU_SHAPE (a substring of a lab shape's name), FP8_NCU_MODE (0 q->dual, 1 h->q, 2 q->h+res,
# 3 q->dual+resq, 4 q->dual+res, 5 q->h+resfq) and FP8_NCU_VARIANTS (space-separated variant numbers; 32 = wgmma64x64s2,
# 17 = wgmma128x64); default: IRv2's Block17 up-projection at batch 32 with its fused residual,
# the conv where FP8 loses most (docs/performance.md, "Session 10"). One report per variant in
# $OUT/ncu-vN.txt: speed of light, memory, occupancy, scheduler, warp-state (stall reasons) and
# source-counter sections.
STEPS+=(fp8_ncu)
fp8_ncu() {
  gpu_env >/dev/null
  local ncu v rc=0
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  [ -n "$ncu" ] || { echo "fp8_ncu: no ncu on this machine"; return 1; }
  [ -x build-device/bin/fp8_lab ] || { echo "fp8_ncu: build-device/bin/fp8_lab not built (tools/prepare-device builds it)"; return 1; }
  for v in ${FP8_NCU_VARIANTS:-32 17}; do
    FP8_LAB_TIMING=launch FP8_LAB_SHAPE=${FP8_NCU_SHAPE:-"Block17 up 1x1 384->1088 @17 b32"} FP8_LAB_MODE=${FP8_NCU_MODE:-2} FP8_LAB_VARIANT=$v \
      timeout 120 "$ncu" --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section WarpStateStats --section SchedulerStats --section LaunchStats --section SourceCounters -k regex:'conv_fp8|tma_fp8' --launch-count 1 \
      build-device/bin/fp8_lab >"$OUT/ncu-v$v.txt" 2>&1 || rc=1
    echo "fp8_ncu: variant $v"
    grep -E "Duration|Throughput|Occupancy|Registers Per|Eligible|Issued Warp|No Eligible|Cycles Per Issued|[Ss]tall" "$OUT/ncu-v$v.txt"
  done
  return $rc
}
