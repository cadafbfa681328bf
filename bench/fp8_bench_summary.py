#!/usr/bin/env python3
"""What a session's device calls measured, read back from their unpacked logs: the README's and
docs/performance.md's figures, from the files the calls wrote (standard library only).

Usage: bench/fp8_bench_summary.py CALL_DIR [CALL_DIR ...]
  e.g. bench/fp8_bench_summary.py bench/results/fp8-layers-session41/call{1,2,3,4}

Reads, under each CALL_DIR:
  */fp8_bench.md    issue 5's rows (recipe `default` against infer8 fp16) and the isolated-node
                    profiles per layer type (tools/gpu-check fp8_bench)
  */fp8_bench.log   how long each graph's tuning took and whether it spent its cuDNN budget
  peers-*.json      peers_torch.py's results (torch.compile, eager kernels in a CUDA graph)
  *.times           each GPU test's start and end (tools/device-call.sh's test_times)
Prints markdown: the rows with the torch.compile of the same model and batch (from whichever
CALL_DIR has it, named), the profiles, the tuning times and the slowest tests.
"""
import glob
import json
import os
import re
import sys

ROW = re.compile(r"\| (\w+) \| default \| (\d+) \| ([\d.]+) \(([\d.]+)-([\d.]+)\) \| ([\d.]+) \(([\d.]+)-([\d.]+)\) \| ([\d.]+) \|")
PROFILE = re.compile(r"\s+profile (fp16|fp8) b(\d+) \(isolated nodes, sum ([\d.]+) ms\): (.*)")
TUNED = re.compile(r"batch (\d+): (\d+) conv problems tuned in ([\d.]+) s; cuDNN budget ([\d.]+) s (spent|not spent)")


def fmt(t):
    return f"{t[0]:.3f} [{t[1]:.3f}, {t[2]:.3f}]"


def main(dirs):
    rows, peers, profiles, tuning, tests, suites = [], {}, [], [], [], []
    for d in dirs:
        call = os.path.basename(os.path.normpath(d))
        for md in sorted(glob.glob(os.path.join(d, "*", "fp8_bench.md"))):
            step = os.path.basename(os.path.dirname(md))
            for line in open(md):
                m = ROW.match(line)
                if m:
                    g = m.groups()
                    rows.append((call, g[0], int(g[1]), tuple(map(float, g[2:5])), tuple(map(float, g[5:8])), float(g[8])))
                m = PROFILE.match(line)
                if m:
                    fields = m.group(4).split()
                    profiles.append((call, step, m.group(1), int(m.group(2)), float(m.group(3)),
                                     dict(zip(fields[0::2], map(float, fields[1::2])))))
            log = os.path.join(os.path.dirname(md), "fp8_bench.log")
            if os.path.exists(log):
                for line in open(log):
                    m = TUNED.search(line)
                    if m:
                        tuning.append((call, step, int(m.group(1)), int(m.group(2)), float(m.group(3)),
                                       float(m.group(4)), m.group(5)))
        for pj in sorted(glob.glob(os.path.join(d, "peers-*.json"))):
            try:
                data = json.load(open(pj))
                for r in data if isinstance(data, list) else data["results"]:
                    peers[(r["model"], r["batch"], r["mode"])] = (call, (r["median_ms"], r["min_ms"], r["max_ms"]))
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
    print("| call | model | batch | fp16 | FP8 `default` | x | torch.compile (call) | fp16 vs compile "
          "| fp16 max / compile min | FP8 vs compile | CUDA graph |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for call, model, batch, f16, f8, x in rows:
        comp, graph = peers.get((model, batch, "compile")), peers.get((model, batch, "graph"))
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


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
