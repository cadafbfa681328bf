#!/usr/bin/env bash
# Runs each libFuzzer target built by fuzz/build.sh for FUZZ_SECONDS (default 60), one after
# another at low priority, on a working corpus seeded by fuzz/make-seeds.sh. A crash stops
# the run with the target's output; the reproducer is left in FUZZ_DIR/artifacts/<target>/
# (add it to fuzz/regressions/<target>/ once fixed). Usage: fuzz/run.sh FUZZ_DIR SEED_DIR [TARGET...]
set -euo pipefail
DIR=${1:?fuzz build dir}
SEEDS=${2:?seed dir}
shift 2
SECONDS_PER=${FUZZ_SECONDS:-60}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$DIR"/fuzz_*; do   # the executables, not the logs next to them
    case "$f" in *.*) continue ;; esac
    [ -x "$f" ] && targets+=("$(basename "$f" | sed 's/^fuzz_//')")
  done
fi
for t in "${targets[@]}"; do
  corpus="$DIR/corpus/$t"
  mkdir -p "$corpus" "$DIR/artifacts/$t"
  [ -d "$SEEDS/$t" ] && cp -n "$SEEDS/$t"/* "$corpus/" 2>/dev/null || true
  echo "== fuzz_$t: ${SECONDS_PER}s, corpus $(ls "$corpus" | wc -l) files"
  start=$(date +%s)
  # -rss_limit_mb: the reader limits must keep memory small; -timeout: a hang is a bug too
  nice -n 19 "$DIR/fuzz_$t" "$corpus" -max_total_time="$SECONDS_PER" -timeout=20 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$DIR/artifacts/$t/" 2>"$DIR/fuzz_$t.log" ||
    { tail -60 "$DIR/fuzz_$t.log"; echo "fuzz_$t FAILED (see $DIR/artifacts/$t/)"; exit 1; }
  echo "   done in $(( $(date +%s) - start ))s: $(grep -E '^stat::number_of_executed_units' "$DIR/fuzz_$t.log" | awk '{print $2}') runs, corpus $(ls "$corpus" | wc -l) files"
  echo "$t $(( $(date +%s) - start ))" >> "$DIR/fuzz-times.txt"
done
