#!/usr/bin/env python3
"""Where a kernel's warps stall, per SASS instruction, from Nsight Compute's source page:
    ncu -i REPORT.ncu-rep --page source --print-source sass --csv | gzip > K-sass.csv.gz
    python3 bench/ncu_sass_stalls.py K-sass.csv.gz [--top 15]
Prints the sampled stall reasons over the whole kernel, then the instructions with the most
samples, each with its two main reasons; a branch that closes an mbarrier wait loop
(SYNCS.PHASECHK ... TRYWAIT just before it) is shown with the barrier it waits on, which is how
session 30 told the producer's residual-buffer wait from the consumers' full-stage wait.
Standard library only (runs here and on the device machine)."""
import argparse
import csv
import gzip
import io
import sys


def read_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        text = f.read()
    lines = text.splitlines()
    # the first line names the kernel; the header follows
    start = next((i for i, l in enumerate(lines) if l.startswith('"Address"')), None)
    if start is None:
        sys.exit(f"{path}: no \"Address\" header line: not an ncu --page source --csv export")
    return list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))


def count(row, key):
    v = (row.get(key) or "0").replace(",", "")
    try:
        return int(float(v))
    except ValueError:
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", help="ncu source-page CSV export (.csv or .csv.gz)")
    ap.add_argument("--top", type=int, default=15, help="instructions to list (default 15)")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    samples_key = "Warp Stall Sampling (All Samples)"
    if not rows or samples_key not in rows[0]:
        sys.exit(f"{args.csv}: no '{samples_key}' column (profile with --section SourceCounters)")
    reasons = [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]
    total = sum(count(r, samples_key) for r in rows)
    print(f"{len(rows)} instructions, {total} stall samples")
    sums = sorted(((sum(count(r, k) for r in rows), k) for k in reasons), reverse=True)
    for n, k in sums:
        if n:
            print(f"  {k[6:]:<20} {n:>7}  {100.0 * n / max(total, 1):5.1f}%")
    print(f"top {args.top} instructions (index: samples, executed, source, main reasons):")
    order = sorted(range(len(rows)), key=lambda i: -count(rows[i], samples_key))
    for i in order[: args.top]:
        r = rows[i]
        main_reasons = sorted(((count(r, k), k[6:]) for k in reasons), reverse=True)[:2]
        src = r.get("Source", "").strip()
        prev = rows[i - 1].get("Source", "").strip() if i > 0 else ""
        wait = f"  [waits: {prev}]" if "BRA" in src and "TRYWAIT" in prev else ""
        why = ", ".join(f"{k} {n}" for n, k in main_reasons if n)
        print(f"  {i:>5}: {count(r, samples_key):>6} {count(r, 'Instructions Executed'):>8}  {src[:60]:<60} {why}{wait}")


if __name__ == "__main__":
    main()
