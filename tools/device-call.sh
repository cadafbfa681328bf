# Sourced by the device-call scripts (bench/results/*/callN.sh) from the repository root on the GPU
# machine: the time accounting and packing every call repeats.
#   CALL_SECONDS  the call's own limit (default 540; the device allows 600 with the start)
#   left          seconds left of it;  cap N: N, or what is left if less (at least 1)
#   bench_step NAME ARCH BATCHES NEED   fp8_bench into $OUT/NAME when NEED seconds are left
#   fp8_tests_step NAME CAP [FILTER]    test_cuda_fp8 (every FP8 GPU test, or those FILTER matches) at a
#                                       10 s cuDNN budget into $OUT/NAME.log (each test's start and end
#                                       in $OUT/NAME.times), and its verdict lines; stopped by its
#                                       cap, the test it was in and how many tests finished
#   call_setup                          the GPU environment (gpu_env: carried libraries, CUDA paths)
#                                       and the GPU's name and driver into $OUT/gpu.txt; from here on
#                                       the call's output is also kept, as output.txt in the archive;
#                                       its tee runs in the background until the call ends, so a script
#                                       that runs steps side by side waits for their pids, never with a
#                                       plain `wait` (session 51's call 3 waited out the device's limit)
#   lab_step FILE SHAPE [VAR=VALUE...]  fp8_lab on SHAPE with the environment given (FP8_LAB_MODE=4,
#                                       FP8_LAB_VARIANT=48,52; mode 0 unless given) appended to $OUT/FILE,
#                                       and its kernels' and verdict lines, when 30 s are left
#   peers_step ARCH BATCH NEED          peers_torch.py (tools/gpu-check bench_peers) on ARCH's snapshot at
#                                       BATCH when more than NEED seconds are left, capped at NEED: its
#                                       figures (peers-ARCH-bBATCH.json) in the same call as infer8's
#   row_step NAME ARCH BATCH NEED PEER_NEED  one row of issue 5's table: bench_step NAME ARCH BATCH NEED,
#                                       then peers_step ARCH BATCH PEER_NEED with torch.compile alone
#                                       (PEER_MODES, unless the caller sets it): the pair every rows call
#                                       repeated by hand
#   sink_ab_step NAME ARCH BATCH NEED   bench_step NAME-nosink without the pool pass (INFER8_SINK_AVGPOOL=0),
#                                       then bench_step NAME with it: session 68's A/B of i8_pass_sink_avgpool
#   issue5_rows [NAME...]               row_step for each row of issue 5's table named (all six without:
#                                       irv2-b32, irv2-b1, v3-b32, v3-b1, v4-b32, v4-b1), always in that
#                                       order, with the bench and peer needs sessions 65-67 measured;
#                                       a row the time left cannot hold is skipped, as row_step skips it;
#                                       a name it does not know: a message and status 2, no row run
#   issue5_check_call NAME [ROW...]     the whole owed check in one call: call_setup, every test_fp* and
#                                       test_inception_v3_fp8* beside cuda_tests (suites_parts), then
#                                       issue5_rows ROW..., then pack_call NAME (an unknown ROW: nothing runs)
#   check_step STEP CAP                 tools/gpu-check STEP (cuda_tests, calib_tests, ...) at a 4 s
#                                       cuDNN budget, and its verdict lines (and the profile's agreement
#                                       with the tuner, which test_cuda_backend prints)
#   suites_step NAME FP8_CAP CUDA_CAP [FILTER]  test_cuda_fp8 (fp8_tests_step NAME; every test, or those
#                                       FILTER matches) and cuda_tests (check_step) side by side: they check
#                                       correctness only and the GPU has room for both (session 40: the whole
#                                       of both in 376 s)
#   suites_split_step CAP               the same two suites, test_cuda_fp8 split in three processes by test
#                                       name (fp8_small, fp8_v3, fp8_irv2), 4 OpenMP threads each
#   suites_parts CUDA_CAP THREADS "NAME CAP [FILTER]"...  what both run: one test_cuda_fp8 process a part
#                                       (CUDA_CAP 0: the parts alone, side by side)
#   unit_test_step NAME BINARY FILTER CAP  one GPU test binary (build-device/tests/BINARY) on the tests
#                                       FILTER matches, at a 4 s cuDNN budget, into $OUT/NAME.log
#   conv_lab_step ONLY                  conv_lab on the shapes whose names contain ONLY: $OUT/conv_lab.txt
#   stage_lab_step [VAR=VALUE...]       stage_lab (dev/kernels/stage_lab.cu: a chain of dependent stand-in
#                                       layers) with the environment given, appended to $OUT/stage-lab.txt
#   pair_lab_step [SHAPE]               pair_lab (the pair kernels, dev/kernels/pair_lab.cu) on the shapes whose
#                                       names contain SHAPE (all without): appended to $OUT/pair_lab.txt
#   ncu_step NAME SHAPE MODE VARIANT [KERNEL_REGEX]  Nsight Compute (speed of light, warp states, SASS stall samples)
#                                       of one fp8_lab kernel (NCU_LAB=pair_lab: of pair_lab's, VARIANT its pair
#                                       variant; NCU_SKIP=N: after N matching launches; NCU_FLAGS: more ncu options,
#                                       e.g. "--cache-control none --clock-control none --warp-sampling-interval 0"
#                                       for a warm launch at the device's clocks with the densest stall sampling):
#                                       $OUT/NAME.txt, $OUT/NAME-sass.csv.gz and
#                                       bench/ncu_sass_stalls.py's top stalls
#   pack_call NAME                      everything under $OUT into $OUT/NAME.tgz (the device returns
#                                       at most 8 files)
export GPU_CHECK_PACK=never
GPU_CHECK=${GPU_CHECK:-tools/gpu-check} # every step's gpu-check (a test puts a stand-in here)
call_t0=$SECONDS
left() { echo $((${CALL_SECONDS:-540} - (SECONDS - call_t0))); }
cap() { local l; l=$(left); echo $(( $1 < l ? $1 : (l > 1 ? l : 1) )); }
stamp() { echo "== $* (t=$((SECONDS - call_t0)) s)"; }
bench_step() {
  local name=$1 arch=$2 batches=$3 need=$4
  if [ "$(left)" -lt "$need" ]; then echo "$name skipped: $(left) s left, $need needed"; return 0; fi
  stamp "$name"
  FP8_BENCH_INTO=$name INFER8_FP8_BENCH_ARCHES=$arch INFER8_FP8_BENCH_BATCHES=$batches \
    FP8_BENCH_TIMEOUT=$(cap $((need + 30))) "$GPU_CHECK" fp8_bench 2>&1 | tail -8
  grep -E "own-kernel choice|convs on own kernels|graph as tuned" "$OUT/$name/fp8_bench.log" | head -6
}
fp8_tests_step() {
  local name=$1 limit=$2 filter=${3:-}
  stamp "$name"
  # no filter: no INFER8_TEST_FILTER at all (an empty pattern would match no test)
  local capped rc
  capped=$(cap "$limit")
  env ${filter:+INFER8_TEST_FILTER="$filter"} INFER8_CUDA_CUDNN_BUDGET=10 INFER8_CUDA_DEBUG=1 timeout "$capped" \
    build-device/tests/test_cuda_fp8 2>&1 | test_times "$OUT/$name.times" >"$OUT/$name.log"
  rc=${PIPESTATUS[0]}
  echo "$name: test_cuda_fp8 exit $rc"
  # stopped by its cap (session 57's call 2: 160 s ran out inside test_fp8_pair): which test it was
  # in and how many never ran, so that the next call can run just those
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    local total done_n current
    total=$(sed -n 's/^\[==========\] Running \([0-9]*\) test(s)\./\1/p' "$OUT/$name.log" | head -1)
    done_n=$(grep -cE '^\[ +(OK|FAILED) \]' "$OUT/$name.log")
    current=$(grep -E '^\[ RUN +\]' "$OUT/$name.log" | tail -1 | sed 's/^\[ RUN *\] //')
    echo "$name: stopped by its ${capped} s cap in ${current:-no test}; ${done_n} of ${total:-?} tests finished, the rest did not run"
  fi
  grep -E "^\[  (PASSED|FAILED)|^\[ +(FAILED|SKIPPED) |max rel logit|TMA stores|stores forced|pass [0-9]: launch|NaN outputs|critical path|siblings merged" \
    "$OUT/$name.log" | tail -20
}
# copies a cmocka log through, and appends each test's start and end (seconds since the step
# began) to FILE: where a suite's time goes
test_times() {
  local t0=$SECONDS line
  while IFS= read -r line || [ -n "$line" ]; do # a last line without its newline (a crash) too
    printf '%s\n' "$line"
    case $line in "[ RUN"* | "[       OK"* | "[  FAILED"* | "[  ERROR"*) echo "$((SECONDS - t0)) $line" >>"$1" ;; esac
  done
}
call_setup() {
  # the call's printed output (the stamps, each step's summary) also into a file that pack_call
  # packs: until session 42 it reached only the device tool's reply, and a peer's figures whose JSON
  # a later run overwrote survived there alone
  call_output=$(mktemp -t call-output.XXXXXX) # under $TMPDIR, else /tmp
  exec 3>&1 4>&2
  exec > >(tee "$call_output") 2>&1
  call_tee=$!
  . tools/gpu-check.d/cuda.sh 2>/dev/null
  gpu_env >/dev/null 2>&1
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$OUT/gpu.txt" 2>&1
}
lab_step() {
  local file=$1 shape=$2
  shift 2
  if [ "$(left)" -lt 30 ]; then echo "lab $shape $* skipped: $(left) s left"; return 0; fi
  stamp "lab $shape $*"
  local part
  part=$(mktemp -t lab-part.XXXXXX)
  # FP8_LAB_MODE=0 first: a mode among the caller's VAR=VALUE pairs overrides it
  { echo "### $shape $*"; env FP8_LAB_MODE=0 "$@" FP8_LAB_SHAPE="$shape" timeout "$(cap 60)" build-device/bin/fp8_lab; echo "exit $?"; } \
    >"$part" 2>&1
  cat "$part" >>"$OUT/$file"
  grep -E "tma|abl-|best|WRONG|FAIL|exit [1-9]" "$part" | cut -c1-110 | head -20
  rm -f "$part"
}
stage_lab_step() {
  stamp "stage_lab $*"
  { echo "### $*"; env "$@" timeout "$(cap 30)" build-device/bin/stage_lab; echo "exit $?"; } 2>&1 | tee -a "$OUT/stage-lab.txt"
}
peers_step() {
  local arch=$1 batch=$2 need=$3
  if [ "$(left)" -le "$need" ]; then echo "peers $arch b$batch skipped: $(left) s left"; return 0; fi
  stamp "peers $arch b$batch"
  local limit t0=$SECONDS rc
  limit=$(cap "$need")
  BENCH_ARCHES=$arch BENCH_BATCHES=$batch timeout "$limit" "$GPU_CHECK" bench_peers 2>&1 | tail -4
  rc=${PIPESTATUS[0]}
  # a peer killed by its cap printed nothing (session 56's call 2: IRv2's torch.compile at 80 s)
  [ "$rc" -eq 0 ] || echo "peers $arch b$batch: exit $rc after $((SECONDS - t0)) s$([ "$rc" -eq 124 ] && echo " (the ${limit} s cap)")"
}
sink_ab_step() {
  INFER8_SINK_AVGPOOL=0 bench_step "$1-nosink" "$2" "$3" "$4"
  bench_step "$1" "$2" "$3" "$4"
}
row_step() {
  bench_step "$1" "$2" "$3" "$4"
  PEER_MODES=${PEER_MODES:-compile} peers_step "$2" "$3" "$5"
}
# NAME ARCH BATCH BENCH_NEED PEER_NEED, in the order the rows are owed: IRv2 (the goal's model) at
# batch 32, then batch 1, then v3, then v4. Session 67 measured the benches at 113 s (IRv2 b32), 50,
# 57, 27 and 71 s, the peers at 71, 54, 42 and 76 s (v3 b1's: 38 s); session 65 v4 b1's bench at
# 45 s and its peer at 63 s. A peer's first torch.compile on a fresh machine takes longer.
ISSUE5_ROWS=(
  "irv2-b32 inception_resnet_v2 32 120 95"
  "irv2-b1 inception_resnet_v2 1 75 150"
  "v3-b32 inception_v3 32 70 80"
  "v3-b1 inception_v3 1 45 75"
  "v4-b32 inception_v4 32 100 85"
  "v4-b1 inception_v4 1 60 80"
)
issue5_rows_known() { # a misspelt row would otherwise run nothing, silently
  local row name known=" "
  for row in "${ISSUE5_ROWS[@]}"; do known+="${row%% *} "; done
  for name in "$@"; do
    if [[ "$known" != *" $name "* ]]; then echo "issue5_rows: no row '$name' (rows:$known)" >&2; return 2; fi
  done
}
issue5_rows() {
  local row name arch batch need peer_need
  issue5_rows_known "$@" || return
  for row in "${ISSUE5_ROWS[@]}"; do
    read -r name arch batch need peer_need <<<"$row"
    if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
    row_step "$name" "$arch" "$batch" "$need" "$peer_need"
  done
}
issue5_check_call() {
  local name=$1
  shift
  issue5_rows_known "$@" || return # before the tests, not after them
  call_setup
  # session 67: beside test_fp* (179 s), test_inception_v3_fp8 took 88 s and a 120 s cap stopped the
  # own-choice test after it, which then took 39 s alone; session 68 added cuda_tests beside them (the
  # fp16 families and per-op graphs, the moved pools' bias and relu among them): all done in 184 s
  suites_parts 200 4 "fp8_all 240 test_fp*" "fp8_v3 200 test_inception_v3_fp8*"
  stamp "suites done"
  issue5_rows "$@"
  pack_call "$name"
}
check_step() {
  stamp "$1"
  INFER8_CUDA_CUDNN_BUDGET=4 timeout "$(cap "$2")" "$GPU_CHECK" "$1" 2>&1 | grep -E "PASSED|FAILED|exit" | tail -3
  grep -h "profile .* over the tuned convs" "$OUT/$1.log" 2>/dev/null | head -4
}
# test_cuda_fp8 processes, one per PART "NAME CAP [FILTER]" (fp8_tests_step), beside cuda_tests
# (check_step, CUDA_CAP; 0: none); THREADS > 0: that many OpenMP threads each
suites_parts() {
  local cuda_cap=$1 threads=$2 part name cap filter pids=() names=() pid
  shift 2
  for part in "$@"; do
    read -r name cap filter <<<"$part" # read, not word splitting: a FILTER's * must not glob
    (if [ "$threads" -gt 0 ]; then export OMP_NUM_THREADS=$threads; fi
     fp8_tests_step "$name" "$cap" "$filter" >"$OUT/$name.summary" 2>&1) &
    pids+=($!)
    names+=("$name")
  done
  if [ "$cuda_cap" -gt 0 ]; then
    (if [ "$threads" -gt 0 ]; then export OMP_NUM_THREADS=$threads; fi
     check_step cuda_tests "$cuda_cap")
  fi
  for pid in "${pids[@]}"; do wait "$pid"; done
  for name in "${names[@]}"; do cat "$OUT/$name.summary"; done
}
suites_step() { suites_parts "$3" 0 "$1 $2 ${4:-}"; }
# session 41: test_cuda_fp8's four model tests took 240 of its 367 s, most of it the CPU emulation;
# split three ways, 4 OpenMP threads each on the 16 cores, the longest part took 177 s
suites_split_step() {
  suites_parts "$1" 4 "fp8_small $1 test_fp*" "fp8_v3 $1 test_inception_v3_fp8*" "fp8_irv2 $1 test_inception_resnet_v2*"
  stamp "suites done"
}
unit_test_step() {
  local name=$1 binary=$2 filter=$3 limit=$4
  stamp "$name"
  INFER8_TEST_FILTER="$filter" INFER8_CUDA_CUDNN_BUDGET=4 timeout "$(cap "$limit")" "build-device/tests/$binary" \
    >"$OUT/$name.log" 2>&1
  echo "$name: $binary exit $?"
  grep -E "^\[  (PASSED|FAILED)|^\[ +(FAILED|SKIPPED|ERROR) |[Aa]ssert" "$OUT/$name.log" | head -12
}
conv_lab_step() {
  stamp "conv_lab $1"
  CONV_LAB_ONLY="$1" timeout "$(cap 60)" build-device/bin/conv_lab >"$OUT/conv_lab.txt" 2>&1
  echo "conv_lab exit $?"
  cat "$OUT/conv_lab.txt"
}
pair_lab_step() {
  if [ "$(left)" -lt 30 ]; then echo "pair_lab $* skipped: $(left) s left"; return 0; fi
  stamp "pair_lab $*"
  local part
  part=$(mktemp -t pair-lab.XXXXXX)
  { timeout "$(cap 120)" build-device/bin/pair_lab "${1:-}"; echo "exit $?"; } >"$part" 2>&1
  cat "$part" >>"$OUT/pair_lab.txt"
  grep -vE "^$" "$part" | cut -c1-220 | tail -60
  rm -f "$part"
}
ncu_step() {
  local name=$1 shape=$2 mode=$3 variant=$4 kernels=${5:-tma_fp8} ncu
  # a profile and its reports take 20-60 s: with less left, the call's packing would be cut short
  if [ "$(left)" -lt 45 ]; then echo "$name skipped: $(left) s left"; return 0; fi
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  if [ -z "$ncu" ]; then echo "$name skipped: no ncu"; return 0; fi
  stamp "ncu $name: $shape, mode $mode, variant $variant"
  # FP8_LAB_TIMING=launch: the lab's launches as stream launches, which NCU_SKIP counts (its graph timing
  # would replay captured ones)
  FP8_LAB_TIMING=launch FP8_LAB_SHAPE="$shape" FP8_LAB_MODE=$mode FP8_LAB_VARIANT=$variant PAIR_LAB_SHAPE="$shape" PAIR_LAB_VARIANT=$variant \
    timeout $(cap 90) "$ncu" --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section SourceCounters \
    --section LaunchStats --section Occupancy --import-source no -k "regex:$kernels" --launch-skip "${NCU_SKIP:-0}" \
    ${NCU_FLAGS:-} --launch-count 1 -o "/tmp/$name" "build-device/bin/${NCU_LAB:-fp8_lab}" >"$OUT/$name.log" 2>&1
  echo "ncu exit $?"
  "$ncu" -i "/tmp/$name.ncu-rep" >"$OUT/$name.txt" 2>&1
  "$ncu" -i "/tmp/$name.ncu-rep" --page source --print-source sass --csv 2>&1 | gzip >"$OUT/$name-sass.csv.gz"
  grep -E "Duration|Elapsed Cycles|Issued Warp|No Eligible|Registers" "$OUT/$name.txt"
  python3 bench/ncu_sass_stalls.py --top 10 "$OUT/$name-sass.csv.gz" 2>&1 | head -40
}
pack_call() {
  stamp "end"
  if [ -n "${call_output:-}" ]; then # the tee ends at its input's end, having written every line
    exec 1>&3 2>&4 3>&- 4>&-
    wait "$call_tee" 2>/dev/null
    cp "$call_output" "$OUT/output.txt" && rm -f "$call_output"
  fi
  (cd "$OUT" && tar czf "/tmp/$1.tgz" . && rm -rf ./* && mv "/tmp/$1.tgz" .)
}
