#!/usr/bin/env bash
# tools/device-call.sh keeps a device call's printed output: from call_setup on, everything the
# call script prints (stdout and stderr) still reaches the console and also lands in output.txt
# inside the archive pack_call makes, down to pack_call's own "== end" stamp; what is printed
# after pack_call is not in it; lab_step runs fp8_lab with the shape and environment it is given. A stub call script stands in for bench/results/*/callN.sh (no GPU:
# call_setup's gpu_env and nvidia-smi fail quietly here, as they may).
. "$SRC/tests/lib/common.sh"
out="$WORK/out"
# the call runs in a tree of its own (tools linked): in the checkout, call_setup's gpu_env would
# unpack .devcarry/lib.tar.xz there, and the next device call would carry 76 MiB more (session 43)
call_root="$WORK/call-root"
mkdir -p "$out" "$call_root" && ln -s "$SRC/tools" "$call_root/tools"
cat >"$WORK/call.sh" <<'CALL'
cd "$CALL_ROOT"
CALL_SECONDS=100
. tools/device-call.sh
call_setup
stamp first
for i in $(seq 1 3000); do echo "line $i"; done
echo "a line to stderr" >&2
stamp last
pack_call callx
echo "after the pack"
CALL
mkdir -p "$WORK/tmp" # the call's temporary copy goes under TMPDIR: this run's alone
CALL_ROOT="$call_root" OUT="$out" TMPDIR="$WORK/tmp" bash "$WORK/call.sh" >"$WORK/console.txt" 2>&1 || fail "stub call failed: $(tail -3 "$WORK/console.txt")"
[ "$(find "$out" -type f | wc -l)" -eq 1 ] && [ -f "$out/callx.tgz" ] || fail "not one archive: $(ls "$out")"
mkdir -p "$WORK/x" && tar -xzf "$out/callx.tgz" -C "$WORK/x"
[ -f "$WORK/x/output.txt" ] && [ -f "$WORK/x/gpu.txt" ] || fail "archive lacks output.txt or gpu.txt: $(ls "$WORK/x")"
kept="$WORK/x/output.txt"
[ "$(grep -c '^line ' "$kept")" -eq 3000 ] || fail "output.txt holds $(grep -c '^line ' "$kept") of 3000 lines"
grep -q '^line 3000$' "$kept" && grep -q '^a line to stderr$' "$kept" && grep -q '^== first (t=' "$kept" &&
  grep -q '^== last (t=' "$kept" || fail "output.txt lacks a line: $(head -3 "$kept"; tail -3 "$kept")"
[ "$(tail -n 1 "$kept" | cut -c1-6)" = "== end" ] || fail "output.txt does not end with the end stamp: $(tail -n 1 "$kept")"
grep -q "after the pack" "$kept" && fail "output.txt holds what was printed after the pack"
# the console saw all of it too, and the pack's line after
[ "$(grep -c '^line ' "$WORK/console.txt")" -eq 3000 ] && grep -q '^after the pack$' "$WORK/console.txt" ||
  fail "console output incomplete: $(tail -3 "$WORK/console.txt")"
[ -z "$(ls -A "$WORK/tmp")" ] || fail "temporary copy left behind: $(ls "$WORK/tmp")" # pack_call removes it

# lab_step hands fp8_lab the shape and the caller's environment, mode 0 unless the caller gives one,
# and appends each run under a header (a stand-in fp8_lab prints what it was given)
root="$WORK/root"
mkdir -p "$root/build-device/bin" "$WORK/out2" && ln -s "$SRC/tools" "$root/tools"
printf '#!/bin/sh\necho "tma shape=$FP8_LAB_SHAPE mode=$FP8_LAB_MODE variants=${FP8_LAB_VARIANT-unset}"\n' >"$root/build-device/bin/fp8_lab"
chmod +x "$root/build-device/bin/fp8_lab"
(cd "$root" && OUT="$WORK/out2" TMPDIR="$WORK/tmp" CALL_SECONDS=100 bash -c '. tools/device-call.sh
  lab_step a.txt "7x1 160->192 @17 b32" FP8_LAB_MODE=4 FP8_LAB_VARIANT=48,73
  lab_step a.txt "1x7"') >"$WORK/lab.txt" 2>&1 || fail "lab_step failed: $(cat "$WORK/lab.txt")"
want='### 7x1 160->192 @17 b32 FP8_LAB_MODE=4 FP8_LAB_VARIANT=48,73
tma shape=7x1 160->192 @17 b32 mode=4 variants=48,73
exit 0
### 1x7 
tma shape=1x7 mode=0 variants=unset
exit 0'
[ "$(cat "$WORK/out2/a.txt")" = "$want" ] || fail "lab_step's file: $(cat "$WORK/out2/a.txt")"
grep -q 'mode=4 variants=48,73' "$WORK/lab.txt" || fail "lab_step printed no kernel line: $(cat "$WORK/lab.txt")"
# stage_lab_step hands stage_lab the caller's environment and appends each run, with its exit
# status, under a header to stage-lab.txt, and prints it too
printf '#!/bin/sh\necho "stages=${STAGE_LAB_STAGES-unset} code=${STAGE_LAB_CODE-unset} kb=${STAGE_LAB_CODE_KB-unset}"\nexit ${STAGE_LAB_EXIT:-0}\n' \
  >"$root/build-device/bin/stage_lab"
chmod +x "$root/build-device/bin/stage_lab"
(cd "$root" && OUT="$WORK/out2" TMPDIR="$WORK/tmp" CALL_SECONDS=100 bash -c '. tools/device-call.sh
  stage_lab_step STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=64
  stage_lab_step STAGE_LAB_EXIT=3') >"$WORK/stage.txt" 2>&1 || fail "stage_lab_step failed: $(cat "$WORK/stage.txt")"
want='### STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=64
stages=unset code=2 kb=64
exit 0
### STAGE_LAB_EXIT=3
stages=unset code=unset kb=unset
exit 3'
[ "$(cat "$WORK/out2/stage-lab.txt")" = "$want" ] || fail "stage_lab_step's file: $(cat "$WORK/out2/stage-lab.txt")"
grep -q '^== stage_lab STAGE_LAB_CODE=2 STAGE_LAB_CODE_KB=64 (t=' "$WORK/stage.txt" && grep -q 'code=2 kb=64' "$WORK/stage.txt" ||
  fail "stage_lab_step printed: $(cat "$WORK/stage.txt")"
# peers_step runs bench_peers on one model and batch when the time it needs is left (a stand-in
# gpu-check prints what it was given), and says so when it is not
printf '#!/bin/sh\necho "$1 arches=$BENCH_ARCHES batches=$BENCH_BATCHES"\n' >"$WORK/gpu-check"
chmod +x "$WORK/gpu-check"
(cd "$root" && GPU_CHECK="$WORK/gpu-check" OUT="$WORK/out2" CALL_SECONDS=100 bash -c '. tools/device-call.sh
  peers_step inception_v4 32 60
  peers_step inception_v3 1 150') >"$WORK/peers.txt" 2>&1 || fail "peers_step failed: $(cat "$WORK/peers.txt")"
grep -q '^bench_peers arches=inception_v4 batches=32$' "$WORK/peers.txt" || fail "peers_step did not run bench_peers: $(cat "$WORK/peers.txt")"
grep -q '^peers inception_v3 b1 skipped: ' "$WORK/peers.txt" && ! grep -q 'arches=inception_v3' "$WORK/peers.txt" ||
  fail "peers_step ran without the time it needs: $(cat "$WORK/peers.txt")"
# row_step runs the bench and then the torch.compile peer on the same model and batch, and skips
# the peer when the time it needs is not left (the stand-in gpu-check prints what it was given)
printf '#!/bin/sh\necho "$1 arches=${BENCH_ARCHES:-$INFER8_FP8_BENCH_ARCHES} batches=${BENCH_BATCHES:-$INFER8_FP8_BENCH_BATCHES} into=${FP8_BENCH_INTO-} modes=${PEER_MODES-unset}"\n' \
  >"$WORK/gpu-check-row"
chmod +x "$WORK/gpu-check-row"
(cd "$root" && GPU_CHECK="$WORK/gpu-check-row" OUT="$WORK/out2" CALL_SECONDS=100 bash -c '. tools/device-call.sh
  row_step irv2-b32 inception_resnet_v2 32 20 30
  row_step v3-b1 inception_v3 1 20 150') >"$WORK/row.txt" 2>&1 || fail "row_step failed: $(cat "$WORK/row.txt")"
grep -q '^fp8_bench arches=inception_resnet_v2 batches=32 into=irv2-b32 modes=unset$' "$WORK/row.txt" &&
  grep -q '^bench_peers arches=inception_resnet_v2 batches=32 into= modes=compile$' "$WORK/row.txt" &&
  grep -q '^fp8_bench arches=inception_v3 batches=1 into=v3-b1 modes=unset$' "$WORK/row.txt" &&
  grep -q '^peers inception_v3 b1 skipped: ' "$WORK/row.txt" && ! grep -q 'bench_peers arches=inception_v3' "$WORK/row.txt" ||
  fail "row_step: $(cat "$WORK/row.txt")"
# ncu_step skips a profile it has no time for (session 61's next-call1.sh ends with two)
(cd "$root" && OUT="$WORK/out2" CALL_SECONDS=20 bash -c '. tools/device-call.sh
  ncu_step ncu-late "320->32 @35 b1" 0 48') >"$WORK/ncu.txt" 2>&1 || fail "ncu_step failed: $(cat "$WORK/ncu.txt")"
grep -q '^ncu-late skipped: [0-9]* s left$' "$WORK/ncu.txt" || fail "ncu_step ran without the time it needs: $(cat "$WORK/ncu.txt")"
# ncu_step hands ncu the lab's shape, mode and variant, NCU_SKIP and the caller's NCU_FLAGS (a
# stand-in ncu on PATH records its arguments and environment)
mkdir -p "$WORK/ncu-bin"
printf '#!/bin/sh\ncase " $* " in *" -i "*) echo "    Duration us 4.00";; *) echo "$* | mode=$FP8_LAB_MODE shape=$FP8_LAB_SHAPE variant=$FP8_LAB_VARIANT timing=$FP8_LAB_TIMING" >>"$NCU_ARGS";; esac\n' \
  >"$WORK/ncu-bin/ncu"
chmod +x "$WORK/ncu-bin/ncu"
(cd "$root" && PATH="$WORK/ncu-bin:$PATH" NCU_ARGS="$WORK/ncu-args.txt" OUT="$WORK/out2" CALL_SECONDS=100 bash -c '. tools/device-call.sh
  NCU_SKIP=20 NCU_FLAGS="--cache-control none --warp-sampling-interval 0" ncu_step ncu-warm "320->32 @35 b1" 6 48') \
  >"$WORK/ncu-warm.txt" 2>&1 || fail "ncu_step failed: $(cat "$WORK/ncu-warm.txt")"
grep -q -- '--launch-skip 20 --cache-control none --warp-sampling-interval 0 --launch-count 1 -o /tmp/ncu-warm ' "$WORK/ncu-args.txt" &&
  grep -q 'mode=6 shape=320->32 @35 b1 variant=48 timing=launch$' "$WORK/ncu-args.txt" ||
  fail "ncu_step's ncu call: $(cat "$WORK/ncu-args.txt")"
grep -q 'Duration us 4.00' "$WORK/ncu-warm.txt" || fail "ncu_step printed no duration: $(cat "$WORK/ncu-warm.txt")"
# a peer that outlives its cap says so (it printed nothing before: session 56's call 2); the call
# has 10 s, so that a second ticking over before the check cannot leave it "1 s left" and skip the
# step (a fresh clone's make test did, on 2 loaded cores, with 2 s)
printf '#!/bin/sh\nsleep 5\necho "$1 done"\n' >"$WORK/gpu-check-slow"
chmod +x "$WORK/gpu-check-slow"
(cd "$root" && GPU_CHECK="$WORK/gpu-check-slow" OUT="$WORK/out2" CALL_SECONDS=10 bash -c '. tools/device-call.sh
  peers_step inception_resnet_v2 1 1') >"$WORK/peers-slow.txt" 2>&1 || fail "peers_step (slow) failed: $(cat "$WORK/peers-slow.txt")"
grep -q '^peers inception_resnet_v2 b1: exit 124 after [0-9]* s (the 1 s cap)$' "$WORK/peers-slow.txt" && ! grep -q 'bench_peers done' "$WORK/peers-slow.txt" ||
  fail "peers_step past its cap: $(cat "$WORK/peers-slow.txt")"
# suites_parts with CUDA_CAP 0 runs the test_cuda_fp8 parts side by side (a stand-in test binary
# prints its filter and threads) and no cuda_tests (the stand-in gpu-check would print its step)
mkdir -p "$root/build-device/tests"
printf '#!/bin/sh
echo "[  PASSED  ] filter=$INFER8_TEST_FILTER threads=$OMP_NUM_THREADS"
' >"$root/build-device/tests/test_cuda_fp8"
chmod +x "$root/build-device/tests/test_cuda_fp8"
(cd "$root" && GPU_CHECK="$WORK/gpu-check" OUT="$WORK/out2" CALL_SECONDS=100 bash -c '. tools/device-call.sh
  suites_parts 0 8 "pa 50 test_a*" "pb 50 test_b*"') >"$WORK/parts.txt" 2>&1 || fail "suites_parts failed: $(cat "$WORK/parts.txt")"
grep -q '^\[  PASSED  \] filter=test_a\* threads=8$' "$WORK/parts.txt" && grep -q '^\[  PASSED  \] filter=test_b\* threads=8$' "$WORK/parts.txt" &&
  grep -q '^pa: test_cuda_fp8 exit 0$' "$WORK/parts.txt" && ! grep -q 'cuda_tests' "$WORK/parts.txt" ||
  fail "suites_parts 0: $(cat "$WORK/parts.txt")"
# fp8_tests_step stopped by its cap names the test it was in and how many finished (session 57's
# call 2 said only "exit 124"); a run within its cap says no such thing
printf '#!/bin/sh
echo "[==========] Running 3 test(s)."
echo "[ RUN      ] test_fp8_a"
echo "[       OK ] test_fp8_a"
echo "[ RUN      ] test_fp8_b"
[ -n "$SLOW" ] && sleep 5
echo "[       OK ] test_fp8_b"
echo "[ RUN      ] test_fp8_c"
echo "[       OK ] test_fp8_c"
echo "[  PASSED  ] 3 test(s)."
' >"$root/build-device/tests/test_cuda_fp8"
(cd "$root" && SLOW=1 OUT="$WORK/out2" CALL_SECONDS=2 bash -c '. tools/device-call.sh
  fp8_tests_step capped 60') >"$WORK/capped.txt" 2>&1 || fail "fp8_tests_step (capped) failed: $(cat "$WORK/capped.txt")"
grep -q '^capped: test_cuda_fp8 exit 124$' "$WORK/capped.txt" &&
  grep -q '^capped: stopped by its [12] s cap in test_fp8_b; 1 of 3 tests finished, the rest did not run$' "$WORK/capped.txt" ||
  fail "fp8_tests_step past its cap: $(cat "$WORK/capped.txt")"
(cd "$root" && OUT="$WORK/out2" CALL_SECONDS=100 bash -c '. tools/device-call.sh
  fp8_tests_step whole 60') >"$WORK/whole.txt" 2>&1 || fail "fp8_tests_step failed: $(cat "$WORK/whole.txt")"
grep -q '^whole: test_cuda_fp8 exit 0$' "$WORK/whole.txt" && grep -q '^\[  PASSED  \] 3 test(s)\.$' "$WORK/whole.txt" &&
  ! grep -q 'stopped by' "$WORK/whole.txt" || fail "fp8_tests_step: $(cat "$WORK/whole.txt")"
# issue5_rows runs the rows named in the table's order (IRv2 batch 32 first, whatever order they are
# named in) and no others; without names, all six
(cd "$root" && GPU_CHECK="$WORK/gpu-check-row" OUT="$WORK/out2" CALL_SECONDS=1000 bash -c '. tools/device-call.sh
  issue5_rows v3-b1 irv2-b32') >"$WORK/rows.txt" 2>&1 || fail "issue5_rows failed: $(cat "$WORK/rows.txt")"
[ "$(grep -E '^(fp8_bench|bench_peers) ' "$WORK/rows.txt" | cut -d' ' -f1-3)" = "fp8_bench arches=inception_resnet_v2 batches=32
bench_peers arches=inception_resnet_v2 batches=32
fp8_bench arches=inception_v3 batches=1
bench_peers arches=inception_v3 batches=1" ] || fail "issue5_rows v3-b1 irv2-b32: $(cat "$WORK/rows.txt")"
(cd "$root" && GPU_CHECK="$WORK/gpu-check-row" OUT="$WORK/out2" CALL_SECONDS=1000 bash -c '. tools/device-call.sh
  issue5_rows') >"$WORK/rows-all.txt" 2>&1 || fail "issue5_rows (all) failed: $(cat "$WORK/rows-all.txt")"
[ "$(grep '^fp8_bench ' "$WORK/rows-all.txt" | sed 's/.*into=\([^ ]*\).*/\1/' | tr '\n' ' ')" = "irv2-b32 irv2-b1 v3-b32 v3-b1 v4-b32 v4-b1 " ] &&
  [ "$(grep -c '^bench_peers .* modes=compile$' "$WORK/rows-all.txt")" -eq 6 ] || fail "issue5_rows (all): $(cat "$WORK/rows-all.txt")"
# sink_ab_step: the bench without the pool pass (INFER8_SINK_AVGPOOL=0 reaches it), then with it
printf '#!/bin/sh\necho "$1 into=${FP8_BENCH_INTO-} sink=${INFER8_SINK_AVGPOOL-unset}"\n' >"$WORK/gpu-check-sink"
chmod +x "$WORK/gpu-check-sink"
(cd "$root" && GPU_CHECK="$WORK/gpu-check-sink" OUT="$WORK/out2" CALL_SECONDS=1000 bash -c '. tools/device-call.sh
  sink_ab_step v4-b1-a inception_v4 1 50') >"$WORK/sink-ab.txt" 2>&1 || fail "sink_ab_step failed: $(cat "$WORK/sink-ab.txt")"
[ "$(grep '^fp8_bench ' "$WORK/sink-ab.txt")" = "fp8_bench into=v4-b1-a-nosink sink=0
fp8_bench into=v4-b1-a sink=unset" ] || fail "sink_ab_step: $(cat "$WORK/sink-ab.txt")"
# a row name it does not know stops it before any row runs
(cd "$root" && GPU_CHECK="$WORK/gpu-check-row" OUT="$WORK/out2" CALL_SECONDS=1000 bash -c '. tools/device-call.sh
  issue5_rows irv2-b32 v4-b23') >"$WORK/rows-bad.txt" 2>&1 && fail "issue5_rows accepted an unknown row: $(cat "$WORK/rows-bad.txt")"
grep -q "^issue5_rows: no row 'v4-b23' (rows: irv2-b32 irv2-b1 v3-b32 v3-b1 v4-b32 v4-b1 )$" "$WORK/rows-bad.txt" &&
  ! grep -q '^fp8_bench ' "$WORK/rows-bad.txt" || fail "issue5_rows with an unknown row: $(cat "$WORK/rows-bad.txt")"
(cd "$root" && GPU_CHECK="$WORK/gpu-check-row" OUT="$WORK/out2" TMPDIR="$WORK/tmp" CALL_SECONDS=1000 bash -c '. tools/device-call.sh
  issue5_check_call checkbad v3b1') >"$WORK/check-bad.txt" 2>&1 && fail "issue5_check_call accepted an unknown row: $(cat "$WORK/check-bad.txt")"
grep -q "^issue5_rows: no row 'v3b1' " "$WORK/check-bad.txt" && ! grep -qE 'PASSED|^fp8_bench ' "$WORK/check-bad.txt" ||
  fail "issue5_check_call ran with an unknown row: $(cat "$WORK/check-bad.txt")"
# issue5_check_call: the two test parts beside cuda_tests, then the rows, all in one archive
rm -rf "$WORK/out3" && mkdir -p "$WORK/out3"
(cd "$root" && GPU_CHECK="$WORK/gpu-check-row" OUT="$WORK/out3" TMPDIR="$WORK/tmp" CALL_SECONDS=1000 bash -c '. tools/device-call.sh
  issue5_check_call checkx v4-b1') >"$WORK/check-call.txt" 2>&1 || fail "issue5_check_call failed: $(cat "$WORK/check-call.txt")"
mkdir -p "$WORK/y" && tar -xzf "$WORK/out3/checkx.tgz" -C "$WORK/y" || fail "issue5_check_call made no archive: $(ls "$WORK/out3")"
grep -q '^fp8_all: test_cuda_fp8 exit 0$' "$WORK/y/fp8_all.summary" && grep -q '^fp8_v3: test_cuda_fp8 exit 0$' "$WORK/y/fp8_v3.summary" ||
  fail "issue5_check_call's test parts: $(cat "$WORK/y"/*.summary)"
grep -q '^== cuda_tests ' "$WORK/y/output.txt" || fail "issue5_check_call ran no cuda_tests: $(cat "$WORK/y/output.txt")"
[ "$(grep -E '^(== suites done|fp8_bench|bench_peers)' "$WORK/y/output.txt" | cut -d' ' -f1-3)" = "== suites done
fp8_bench arches=inception_v4 batches=1
bench_peers arches=inception_v4 batches=1" ] || fail "issue5_check_call's output: $(cat "$WORK/y/output.txt")"
echo "ok: a device call's printed output is kept in its archive (3000 lines, stderr, the end stamp); lab_step passes shape, mode, variants; stage_lab_step its environment and exit status; peers_step runs, skips and names its cap; row_step runs a bench and its torch.compile peer; issue5_rows runs the rows named in the table's order; sink_ab_step runs the bench without the pool pass, then with it; issue5_check_call runs the tests (cuda_tests beside the FP8 parts) then the rows in one archive; ncu_step skips without time and passes NCU_SKIP / NCU_FLAGS; suites_parts runs parts alone; fp8_tests_step names where its cap stopped it"
