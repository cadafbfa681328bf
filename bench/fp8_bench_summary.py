#!/usr/bin/env python3
"""What a session's device calls measured, read back from their unpacked logs: the README's and
docs/performance.md's figures, from the files the calls wrote (standard library only).

Usage: bench/fp8_bench_summary.py [--shapes] [--labs] CALL_DIR [CALL_DIR ...]
  e.g. bench/fp8_bench_summary.py bench/results/fp8-layers-session41/call{1,2,3,4}
  --shapes: also each per-conv table's FP8 convs grouped by shape (filter, stride, map, channels,
            residual), slowest first: convs, fp16 and FP8 ms in sum, x, FP8 us per conv [min,
            max] and the FP8 kernels that ran them
  --labs:   only the kernel labs' runs (lab-*.txt: tools/device-call.sh's lab_step, fp8_lab), one
            row per timed kernel: the run's settings (its ### line), mode, kernel, us per launch,
            the lab's check; a CALL_DIR without issue-5 rows is fine then

Reads, under each CALL_DIR:
  */fp8_bench.md    issue 5's rows (recipe `default` against infer8 fp16), the isolated-node
                    profiles per node kind and the convs per layer type (tools/gpu-check fp8_bench)
  */fp8-layers-*.tsv  the per-conv times (--shapes)
  */fp8_bench.log   how long each graph's tuning took and whether it spent its cuDNN budget
                    (or fp8_bench.log.xz, as tools/pack-logs leaves older sessions')
  peers-*.json      peers_torch.py's results (torch.compile, eager kernels in a CUDA graph)
  *.times           each GPU test's start and end (tools/device-call.sh's test_times)
  lab-*.txt         (--labs) fp8_lab's runs, each after a '### SHAPE SETTINGS' line
Prints markdown: the rows (each named CALL/STEP, so an A/B's runs of one model tell apart) with
the torch.compile of the same model and batch (the row's own call's, else the last CALL_DIR's
that has one, named), the
profiles, the convs per layer type, the tuning times and the slowest tests.
"""
import glob
import json
import lzma
import os
import re
import sys

ROW = re.compile(r"\| (\w+) \| default \| (\d+) \| ([\d.]+) \(([\d.]+)-([\d.]+)\) \| ([\d.]+) \(([\d.]+)-([\d.]+)\) \| ([\d.]+) \|")
PROFILE = re.compile(r"\s+profile (fp16|fp8) b(\d+) \(isolated nodes, sum ([\d.]+) ms\): (.*)")
PER_LAYER = re.compile(r"\s+per layer b(\d+): (.+?)\s+(\d+) convs \(\s*(\d+) FP8\): fp16 ([\d.]+) ms, "
                       r"fp8 graph ([\d.]+) ms, x ([\d.]+)")
TSV_COLUMNS = ("name", "kh", "kw", "stride", "c_in", "c_out", "h", "w", "residual", "precision", "fp16_ms", "fp8_ms",
               "fp8_tactic", "fp8_variant")
TUNED = re.compile(r"batch (\d+): (\d+) conv problems tuned in ([\d.]+) s; cuDNN budget ([\d.]+) s (spent|not spent)")


def fmt(t):
    return f"{t[0]:.3f} [{t[1]:.3f}, {t[2]:.3f}]"


def shape_groups(tsv):
    """{shape: ([(fp16 ms, FP8 ms) per conv], {kernel: convs})} of the FP8 convs of one per-conv TSV
    (fp8_bench's fp8-layers-*.tsv)"""
    groups = {}
    with open(tsv) as f:
        head = f.readline().rstrip("\n").split("\t")
        missing = [c for c in TSV_COLUMNS if c not in head]
        if missing:
            sys.exit(f"{tsv}: not a per-conv table (no column {', '.join(missing)})")
        col = {c: head.index(c) for c in TSV_COLUMNS}
        for n, line in enumerate(f, 2):
            v = line.rstrip("\n").split("\t")
            try:
                if v[col["precision"]] != "fp8":
                    continue
                kh, kw, s, h, w, ci, co = (int(v[col[c]]) for c in ("kh", "kw", "stride", "h", "w", "c_in", "c_out"))
                f16, f8 = float(v[col["fp16_ms"]]), float(v[col["fp8_ms"]])
            except (IndexError, ValueError) as e:
                sys.exit(f"{tsv}:{n}: malformed row ({type(e).__name__}: {e})")
            key = f"{kh}x{kw} s{s} @{h}x{w} {ci}->{co}" + (" +res" if v[col["residual"]] == "1" else "")
            times, kernels = groups.setdefault(key, ([], {}))
            kernel = f"{v[col['fp8_tactic']]} {v[col['fp8_variant']]}"
            times.append((f16, f8))
            kernels[kernel] = kernels.get(kernel, 0) + 1
    return groups


def print_shapes(dirs):
    for d in dirs:
        for tsv in sorted(glob.glob(os.path.join(d, "*", "fp8-layers-*.tsv"))):
            print(f"\nFP8 convs by shape, {os.path.relpath(tsv, os.path.dirname(os.path.normpath(d)))} (ms in sum):\n")
            print("| shape | convs | fp16 | FP8 | x | FP8 us per conv | FP8 kernels |")
            print("|---|---|---|---|---|---|---|")
            groups = shape_groups(tsv)
            fp8_sum = {key: sum(t[1] for t in times) for key, (times, _) in groups.items()}
            for key in sorted(groups, key=lambda k: -fp8_sum[k]):
                times, kernels = groups[key]
                f16, f8, each = sum(t[0] for t in times), fp8_sum[key], [t[1] for t in times]
                ks = ", ".join(f"{k} x{c}" for k, c in sorted(kernels.items()))
                print(f"| {key} | {len(times)} | {f16:.3f} | {f8:.3f} | {f16 / f8:.2f} | {1000 * min(each):.1f}-{1000 * max(each):.1f} | {ks} |")


LAB_RUN = re.compile(r"\s+(\S+)\s+(\S+)\s+k(\d+)\s+([\d.]+) us\b.*\s(\S+)\s*$")


def print_labs(dirs):
    """fp8_lab's timed kernels, one row each, in the order the calls ran them; exit status 1
    when no CALL_DIR holds a lab run"""
    rows = []
    for d in dirs:
        call = os.path.basename(os.path.normpath(d))
        for lab in sorted(glob.glob(os.path.join(d, "lab-*.txt"))):
            run = None
            for line in open(lab, errors="replace"):
                if line.startswith("### "):
                    run = line[4:].strip()
                    continue
                m = LAB_RUN.match(line)
                if m and run is not None:
                    mode, kernel, splits, us, check = m.groups()
                    rows.append((f"{call}/{os.path.basename(lab)[:-4]}", run, mode, kernel, int(splits), float(us), check))
    if not rows:
        sys.exit("no kernel-lab runs (lab-*.txt) under " + " ".join(dirs))
    print("| call/lab | run | mode | kernel | split-K | us | check |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %s | %s | %d | %.2f | %s |" % r)


def main(dirs, shapes=False):
    rows, peers, profiles, layers, tuning, tests, suites = [], {}, [], [], [], [], []
    for d in dirs:
        call = os.path.basename(os.path.normpath(d))
        for md in sorted(glob.glob(os.path.join(d, "*", "fp8_bench.md"))):
            step = os.path.basename(os.path.dirname(md))
            for line in open(md):
                m = ROW.match(line)
                if m:
                    g = m.groups()
                    rows.append((f"{call}/{step}", g[0], int(g[1]), tuple(map(float, g[2:5])), tuple(map(float, g[5:8])),
                                 float(g[8])))
                m = PROFILE.match(line)
                if m:
                    fields = m.group(4).split()
                    profiles.append((call, step, m.group(1), int(m.group(2)), float(m.group(3)),
                                     dict(zip(fields[0::2], map(float, fields[1::2])))))
                m = PER_LAYER.match(line)
                if m:
                    layers.append((call, step, int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4)),
                                   float(m.group(5)), float(m.group(6)), float(m.group(7))))
            log = os.path.join(os.path.dirname(md), "fp8_bench.log")
            if not os.path.exists(log) and os.path.exists(log + ".xz"):
                log += ".xz"  # tools/pack-logs packs older sessions' logs
            if os.path.exists(log):
                try:
                    with (lzma.open(log, "rt") if log.endswith(".xz") else open(log)) as f:
                        for line in f:
                            m = TUNED.search(line)
                            if m:
                                tuning.append((call, step, int(m.group(1)), int(m.group(2)), float(m.group(3)),
                                               float(m.group(4)), m.group(5)))
                except (lzma.LZMAError, EOFError, UnicodeDecodeError) as e:
                    sys.exit(f"{log}: unreadable ({type(e).__name__}: {e})")
        for pj in sorted(glob.glob(os.path.join(d, "peers-*.json"))):
            try:
                data = json.load(open(pj))
                for r in data if isinstance(data, list) else data["results"]:
                    # per call: a row takes its own call's peer, else the last call's that has one
                    peers.setdefault((r["model"], r["batch"], r["mode"]), {})[call] = (r["median_ms"], r["min_ms"], r["max_ms"])
            except (ValueError, KeyError, TypeError) as e:
                sys.exit(f"{pj}: not peers_torch.py's results ({type(e).__name__}: {e})")
        for tf in sorted(glob.glob(os.path.join(d, "*.times"))):
            start, last = {}, 0
            for n, line in enumerate(open(tf), 1):
                sec, _, rest = line.partition(" ")
                if not sec.isdigit() or not rest.strip():
                    sys.exit(f"{tf}:{n}: not 'SECONDS cmocka-line'")
                last = max(last, int(sec))
                name = rest.split()[-1]
                if "RUN" in rest:
                    start[name] = int(sec)
                elif name in start:
                    tests.append((int(sec) - start[name], call, os.path.basename(tf)[:-6], name))
            suites.append((call, os.path.basename(tf)[:-6], last))

    if not rows:
        sys.exit("no issue-5 rows (*/fp8_bench.md) under " + " ".join(dirs))
    print("| call/step | model | batch | fp16 | FP8 `default` | x | torch.compile (call) | fp16 vs compile "
          "| fp16 max / compile min | FP8 vs compile | CUDA graph |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    def peer_of(row_call, model, batch, mode):
        by_call = peers.get((model, batch, mode), {})
        own = row_call.split("/")[0]
        if own in by_call:
            return own, by_call[own]
        return next(reversed(by_call.items()), None)

    for call, model, batch, f16, f8, x in rows:
        comp, graph = peer_of(call, model, batch, "compile"), peer_of(call, model, batch, "graph")
        if comp:
            c = comp[1]
            ratios = f"{c[0] / f16[0]:.2f} | {c[1] / f16[2]:.2f} | {c[0] / f8[0]:.2f}"
            peer = f"{fmt(c)} ({comp[0]})"
        else:
            ratios, peer = "- | - | -", "not measured"
        gtext = f"{graph[1][0]:.3f} ({graph[0]})" if graph else "-"
        print(f"| {call} | {model} | {batch} | {fmt(f16)} | {fmt(f8)} | {x:.3f} | {peer} | {ratios} | {gtext} |")

    print("\nIsolated-node profiles (ms per forward):\n")
    for call, step, prec, batch, total, kinds in profiles:
        print(f"- {call}/{step} {prec} b{batch}: sum {total:.3f}; " + ", ".join(f"{k} {v:.3f}" for k, v in kinds.items()))

    if layers:
        print("\nConvs per layer type (isolated nodes, ms in sum; fp8_bench's classes, the fp16-kept convs of a"
              " class included):\n")
        for call, step, batch, kind, n, n8, f16, f8, x in layers:
            print(f"- {call}/{step} b{batch} {kind}: {n} convs ({n8} FP8), fp16 {f16:.3f} / FP8 graph {f8:.3f}, x {x:.2f}")

    print("\nTuning (fp8_bench tunes each run's fp16 graph, then its FP8 graph):\n")
    seen = {}
    for call, step, batch, problems, secs, budget, spent in tuning:
        k = seen[(call, step, batch)] = seen.get((call, step, batch), -1) + 1
        graph = ("fp16", "FP8")[k] if k < 2 else f"graph {k + 1}"
        print(f"- {call}/{step} batch {batch} {graph}: {problems} problems in {secs:.1f} s, cuDNN budget {budget:.0f} s {spent}")

    if suites:
        print("\ntest_cuda_fp8 processes (seconds from their start to their last test's end):\n")
        for call, step, last in suites:
            print(f"- {call}/{step}: {last}")
    if tests:
        print("\nSlowest GPU tests (seconds):\n")
        for secs, call, step, name in sorted(tests, reverse=True)[:12]:
            print(f"- {secs} {name} ({call}/{step})")
    if shapes:
        print_shapes(dirs)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a not in ("--shapes", "--labs")]
    if not args:
        sys.exit(__doc__)
    if "--labs" in sys.argv[1:]:
        print_labs(args)
    else:
        main(args, shapes="--shapes" in sys.argv[1:])
