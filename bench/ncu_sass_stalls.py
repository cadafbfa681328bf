#!/usr/bin/env python3
"""Where a kernel's warps stall, per SASS instruction, from Nsight Compute's source page:
    ncu -i REPORT.ncu-rep --page source --print-source sass --csv | gzip > K-sass.csv.gz
    python3 bench/ncu_sass_stalls.py K-sass.csv.gz [--top 15]
Prints the sampled stall reasons over the whole kernel, then the instructions with the most
samples, each with its two main reasons; a branch that closes an mbarrier wait loop
(SYNCS.PHASECHK ... TRYWAIT just before it) is shown with the barrier it waits on, which is how
session 30 told the producer's residual-buffer wait from the consumers' full-stage wait.
--opcodes A:B counts the executed warp instructions per opcode over listing indices A .. B - 1
(a region such as an epilogue), and --per I divides them by the executions of instruction I (one
per warp and tile, say): how session 31 counted 898 epilogue instructions per warp and tile,
64 of them relu's FMNMX, and about 130 descriptor instructions per K slice.
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


def opcode(source):
    """the opcode of a SASS line, predicate dropped: '@!P0 FMNMX R1, ...' -> 'FMNMX'"""
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else "?"


def opcodes(rows, spec, per, samples_key):
    try:
        a, b = (int(x) for x in spec.split(":"))
    except ValueError:
        sys.exit(f"--opcodes {spec!r}: expected A:B, two instruction indices")
    if not 0 <= a < b <= len(rows):
        sys.exit(f"--opcodes {spec!r}: indices outside 0..{len(rows)}")
    div = 1.0
    if per is not None:
        if not 0 <= per < len(rows) or count(rows[per], "Instructions Executed") == 0:
            sys.exit(f"--per {per}: not an executed instruction of the listing")
        div = float(count(rows[per], "Instructions Executed"))
    executed, samples = {}, {}
    for r in rows[a:b]:
        n = count(r, "Instructions Executed")
        if n:
            op = opcode(r.get("Source", ""))
            executed[op] = executed.get(op, 0) + n
            samples[op] = samples.get(op, 0) + count(r, samples_key)
    total = sum(executed.values())
    unit = f" per execution of instruction {per}" if per is not None else ""
    print(f"instructions {a}..{b - 1}: {total / div:.1f} executed warp instructions{unit}, {sum(samples.values())} stall samples")
    for op in sorted(executed, key=lambda o: (-executed[o], o)):
        print(f"  {op:<44} {executed[op] / div:>10.1f} {samples[op]:>7}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", help="ncu source-page CSV export (.csv or .csv.gz)")
    ap.add_argument("--top", type=int, default=15, help="instructions to list (default 15)")
    ap.add_argument("--opcodes", metavar="A:B", help="executed warp instructions per opcode over listing indices A..B-1")
    ap.add_argument("--per", type=int, metavar="I", help="with --opcodes: per execution of instruction I")
    args = ap.parse_args()
    rows = read_rows(args.csv)
    samples_key = "Warp Stall Sampling (All Samples)"
    if not rows or samples_key not in rows[0]:
        sys.exit(f"{args.csv}: no '{samples_key}' column (profile with --section SourceCounters)")
    if args.per is not None and not args.opcodes:
        sys.exit("--per needs --opcodes")
    if args.opcodes:
        opcodes(rows, args.opcodes, args.per, samples_key)
        return
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
