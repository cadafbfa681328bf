#!/usr/bin/env python3
"""Roofline bound of FP8 over fp16 for a model's convolutions, from fp8_bench's per-conv TSVs.

tools/gpu-check fp8_bench writes fp8-layers-ARCH-bN.tsv (one row per conv: shape, precision in
the FP8 graph, measured fp16 and FP8 times). For every conv this script takes the least time a
GPU could need in each graph: max(FLOPs / tensor-core peak, bytes / memory bandwidth), with

  fp16 graph: input, weights and output in fp16 (2 bytes), a fused residual read in fp16;
  FP8 graph:  FP8 convs read e4m3 input and weights (1 byte) and write the e4m3 copy (1 byte);
              a residual conv also reads the fp16 residual and writes the fp16 output beside its
              e4m3 copy (the exact residual stream, docs/fp8.md); convs kept in fp16 as above.
              The TSV does not say which recipe ran: residual-FP8 recipes are modelled as the
              default one here; fp8_bench prints each recipe's own bound (src/eval/roofline.c).

The ratio of the sums is the most FP8 can gain on these convs if both graphs ran every conv at
its roofline (pools, concat, input and classifier are identical in both graphs, so they only
lower it). Measured efficiency = roofline time / measured time of the same convs. The measured
times (fp16_ms, fp8_ms) are the isolated profile's (before session 37 they included each
launch's host cost; since, they are graph replays of the node alone); TSVs written since session 36
also have the tuner's graph-replay times of the chosen tactics
(fp16_tuned_ms, fp8_tuned_ms), and where every row has both (> 0) they give the "tuned" columns,
the kernels' own efficiency.

The latency model (batch 1): there every conv is mostly latency (launch, pipeline fill, one wave),
which FP8 does not shorten. Take the fastest conv measured in either graph as a floor every conv
pays, and let FP8 shrink each FP8 conv's time above it by that conv's roofline ratio (convs kept in
fp16 unchanged): sum of fp16 times / sum of (floor + (fp16 time - floor) * FP8 roofline / fp16
roofline), profile times. That is what FP8 gains with the same number of conv kernels in both
graphs when its kernels run their work as efficiently as the fp16 ones; more needs fewer kernels
or FP8 kernels more efficient than fp16's. At batch 32 the fastest conv is not mostly latency, so
the table prints the model for batch 1 only (the JSON has it for every TSV).

--detail also prints, per layer type (fp8_bench's classes; convs kept in fp16 apart), the tuned
times and each graph's efficiency, and the x FP8 would reach on the convs if its convs of each type
ran at the efficiency the fp16 convs of that type reach (where they already do better, as measured):
the target that says which FP8 kernels fall short of what fp16's reach on the same shapes.

Usage: bench/fp8_roofline.py [--bw BYTES_PER_S] [--fp16 FLOPS] [--fp8 FLOPS] [--json | --detail] TSV [TSV ...]
Defaults are the H200's datasheet figures: HBM3e 4.8 TB/s, dense fp16 989.4 TFLOPS, dense FP8
1978.9 TFLOPS. Standard library only.
"""
import argparse
import csv
import os
import re
import sys


def conv_bytes_flops(row, batch):
    kh, kw, s = int(row["kh"]), int(row["kw"]), int(row["stride"])
    ci, co, h, w = int(row["c_in"]), int(row["c_out"]), int(row["h"]), int(row["w"])
    res = row["residual"] == "1"
    out_px = batch * h * w
    in_h = h if s == 1 else (h - 1) * s + kh  # valid padding for the strided reductions
    in_w = w if s == 1 else (w - 1) * s + kw
    in_px = batch * in_h * in_w
    k = kh * kw * ci
    flops = 2.0 * out_px * k * co
    b16 = 2.0 * (in_px * ci + co * k + out_px * co + (out_px * co if res else 0))
    if row["precision"] == "fp8":
        b8 = in_px * ci + co * k + out_px * co + (out_px * co * 4.0 if res else 0.0)  # + fp16 read and write
    else:
        b8 = None
    return flops, b16, b8


def conv_class(row):
    """fp8_bench's layer type of a conv; convs the FP8 graph keeps in fp16 form a class of their own"""
    if row["precision"] != "fp8":
        return "kept in fp16"
    kh, kw = int(row["kh"]), int(row["kw"])
    if kh == kw == 1:
        return "1x1 + residual" if row["residual"] == "1" else "1x1"
    if kh != kw:
        return "1xk / kx1"
    return "3x3 stride 2" if int(row["stride"]) == 2 else "3x3 / 5x5"


def efficiency_target(classes):
    """x over fp16 on the convs if each class's FP8 convs ran at the fp16 convs' efficiency of that
    class (their roofline time / that efficiency), or as measured where they already do better"""
    f16 = sum(c["tuned_ms"][0] for c in classes.values())
    f8 = 0.0
    for c in classes.values():
        eff16 = c["roofline_ms"][0] / c["tuned_ms"][0] if c["tuned_ms"][0] > 0 else 0.0
        f8 += min(c["tuned_ms"][1], c["roofline_ms"][1] / eff16) if eff16 > 0 else c["tuned_ms"][1]
    return f16 / f8 if f8 > 0 else None


def analyse(path, bw, p16, p8):
    name = os.path.basename(path)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    m = re.search(r"-b(\d+)(?:[-.]|$)", name)  # fp8-layers-ARCH-bN[-suffix].tsv
    if not m:
        raise ValueError(f"cannot read the batch from the name {name!r} (want fp8-layers-ARCH-bN.tsv)")
    batch = int(m.group(1))
    if not rows or "fp16_ms" not in rows[0]:
        raise ValueError(f"{path}: not an fp8_bench per-conv TSV (no fp16_ms column)")
    ideal16 = ideal8 = meas16 = meas8 = 0.0
    q16 = q8 = qm16 = qm8 = 0.0  # FP8 convs only
    tuned16 = tuned8 = 0.0
    tuned = "fp16_tuned_ms" in rows[0] and "fp8_tuned_ms" in rows[0]  # 0 for a tactic restored from a bundle
    # --detail (tuned times only): FP8 convs slower / faster than their fp16 selves, the convs the
    # FP8 graph keeps in fp16 against their roofline, the profile's times over the tuner's
    lost = gained = kept16 = kept8 = kept_roof = 0.0
    slower = faster = kept = 0
    ratio16, ratio8, each16, each8 = [], [], [], []
    floor = min(min(float(r["fp16_ms"]), float(r["fp8_ms"])) for r in rows) * 1e-3
    latency8 = 0.0  # the FP8 graph's convs in the latency model
    classes = {}  # layer type: convs, tuned and roofline ms of both graphs (--detail)
    for r in rows:
        flops, b16, b8 = conv_bytes_flops(r, batch)
        t16 = max(flops / p16, b16 / bw)
        t8 = max(flops / p8, b8 / bw) if b8 is not None else t16
        ideal16 += t16
        ideal8 += t8
        meas16 += float(r["fp16_ms"]) * 1e-3
        meas8 += float(r["fp8_ms"]) * 1e-3
        above = max(float(r["fp16_ms"]) * 1e-3 - floor, 0.0)
        latency8 += floor + above * (t8 / t16) if b8 is not None else float(r["fp16_ms"]) * 1e-3
        if tuned:
            a, b = float(r["fp16_tuned_ms"]), float(r["fp8_tuned_ms"])
            tuned = a > 0 and b > 0
            tuned16 += a * 1e-3
            tuned8 += b * 1e-3
            c = classes.setdefault(conv_class(r), {"convs": 0, "tuned_ms": [0.0, 0.0], "roofline_ms": [0.0, 0.0]})
            c["convs"] += 1
            c["tuned_ms"][0] += a
            c["tuned_ms"][1] += b
            c["roofline_ms"][0] += t16 * 1e3
            c["roofline_ms"][1] += t8 * 1e3
            ratio16.append(float(r["fp16_ms"]) / a if a > 0 else 0.0)
            ratio8.append(float(r["fp8_ms"]) / b if b > 0 else 0.0)
            each16.append(a)
            each8.append(b)
            if b8 is not None:
                slower += b > a
                faster += b < a
                lost += max(b - a, 0.0)
                gained += max(a - b, 0.0)
            else:
                kept += 1
                kept16 += a
                kept8 += b
                kept_roof += t16 * 1e3
        if b8 is not None:
            q16 += t16
            q8 += t8
            qm16 += float(r["fp16_ms"]) * 1e-3
            qm8 += float(r["fp8_ms"]) * 1e-3
    return {
        "file": name, "batch": batch, "convs": len(rows),
        "roofline_fp16_ms": ideal16 * 1e3, "roofline_fp8_ms": ideal8 * 1e3, "bound_x": ideal16 / ideal8,
        "fp8_convs_bound_x": q16 / q8 if q8 else None,
        "measured_fp16_ms": meas16 * 1e3, "measured_fp8_ms": meas8 * 1e3, "measured_x": meas16 / meas8,
        "efficiency_fp16": ideal16 / meas16, "efficiency_fp8": ideal8 / meas8,
        "latency_floor_us": floor * 1e6, "latency_model_x": meas16 / latency8,
        "fp8_convs_efficiency_fp16": q16 / qm16 if qm16 else None, "fp8_convs_efficiency_fp8": q8 / qm8 if qm8 else None,
        "tuned_fp16_ms": tuned16 * 1e3 if tuned else None, "tuned_fp8_ms": tuned8 * 1e3 if tuned else None,
        "tuned_x": tuned16 / tuned8 if tuned else None,
        "tuned_efficiency_fp16": ideal16 / tuned16 if tuned else None,
        "tuned_efficiency_fp8": ideal8 / tuned8 if tuned else None,
        "detail": {
            "fp8_convs": sum(1 for r in rows if r["precision"] == "fp8"),
            "fp8_convs_slower": slower, "fp8_convs_faster": faster, "fp8_lost_ms": lost, "fp8_gained_ms": gained,
            "conv_tuned_ms_fp16": spread(each16), "conv_tuned_ms_fp8": spread(each8),
            "fp16_kept_convs": kept, "fp16_kept_tuned_ms": [kept16, kept8], "fp16_kept_roofline_ms": kept_roof,
            "profile_over_tuned_fp16": spread(ratio16), "profile_over_tuned_fp8": spread(ratio8),
            "classes": classes, "fp8_at_fp16_efficiency_x": efficiency_target(classes),
        } if tuned else None,
    }


def spread(values):
    """[median, min, max] of values (None when empty)"""
    if not values:
        return None
    v = sorted(values)
    mid = len(v) // 2
    return [v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2, v[0], v[-1]]


def print_spreads(name, detail, key, label, scale, digits, unit):
    """one line per graph of a [median, min, max] in detail (key + "fp16" / "fp8"), times scale"""
    for prec in ("fp16", "fp8"):
        m = [scale * v for v in detail[key + prec]]
        print(f"{name}: {label}, {prec} graph: median {m[0]:.{digits}f}{unit} ({m[1]:.{digits}f}-{m[2]:.{digits}f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bw", type=float, default=4.8e12, help="memory bandwidth, bytes/s (default H200 4.8e12)")
    ap.add_argument("--fp16", type=float, default=989.4e12, help="dense fp16 tensor FLOP/s (default 989.4e12)")
    ap.add_argument("--fp8", type=float, default=1978.9e12, help="dense FP8 tensor FLOP/s (default 1978.9e12)")
    ap.add_argument("--json", action="store_true", help="one JSON object per TSV instead of the table")
    ap.add_argument("--detail", action="store_true",
                    help="after the table, per TSV with the tuner's times: the FP8 convs slower than their fp16 selves, "
                         "the convs kept in fp16 against their roofline, the profile's times over the tuner's")
    ap.add_argument("tsv", nargs="+")
    a = ap.parse_args()
    results = []
    for path in a.tsv:
        try:
            results.append(analyse(path, a.bw, a.fp16, a.fp8))
        except (OSError, ValueError, KeyError, IndexError) as e:
            print(f"fp8_roofline: {path}: {e}", file=sys.stderr)
            return 1
    if a.json:
        import json
        for r in results:
            print(json.dumps(r))
        return 0
    print("| per-conv TSV | convs | roofline fp16 / FP8 ms | bound x (all convs) | bound x (FP8 convs) "
          "| measured fp16 / FP8 ms | measured x | efficiency fp16 / FP8 | tuned fp16 / FP8 ms | tuned x "
          "| tuned efficiency fp16 / FP8 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        tuned = ("n/a | n/a | n/a" if r["tuned_x"] is None else
                 f"{r['tuned_fp16_ms']:.3f} / {r['tuned_fp8_ms']:.3f} | {r['tuned_x']:.2f} | "
                 f"{100 * r['tuned_efficiency_fp16']:.0f}% / {100 * r['tuned_efficiency_fp8']:.0f}%")
        print(f"| {r['file']} | {r['convs']} | {r['roofline_fp16_ms']:.3f} / {r['roofline_fp8_ms']:.3f} "
              f"| {r['bound_x']:.2f} | {r['fp8_convs_bound_x']:.2f} | {r['measured_fp16_ms']:.3f} / "
              f"{r['measured_fp8_ms']:.3f} | {r['measured_x']:.2f} | {100 * r['efficiency_fp16']:.0f}% / "
              f"{100 * r['efficiency_fp8']:.0f}% | {tuned} |")
    for r in results:
        if r["batch"] == 1:
            print(f"{r['file']}: latency model x {r['latency_model_x']:.2f} (each of {r['convs']} convs pays "
                  f"{r['latency_floor_us']:.2f} us, the fastest conv measured, and FP8 shrinks the rest by its roofline ratio)")
    for r in results if a.detail else []:
        d = r["detail"]
        if d is None:
            print(f"{r['file']}: no tuner's times (a TSV before session 36, or tactics restored from a bundle)")
            continue
        print(f"{r['file']}: of {d['fp8_convs']} FP8 convs {d['fp8_convs_faster']} faster and {d['fp8_convs_slower']} "
              f"slower than their fp16 selves, {1e3 * d['fp8_lost_ms']:.1f} us lost against "
              f"{1e3 * d['fp8_gained_ms']:.1f} us gained (tuned)")
        print_spreads(r["file"], d, "conv_tuned_ms_", "one conv, tuned", 1e3, 2, " us")
        print(f"{r['file']}: {d['fp16_kept_convs']} convs kept in fp16: tuned {1e3 * d['fp16_kept_tuned_ms'][0]:.1f} us "
              f"(fp16 graph) / {1e3 * d['fp16_kept_tuned_ms'][1]:.1f} us (FP8 graph), roofline "
              f"{1e3 * d['fp16_kept_roofline_ms']:.1f} us")
        print_spreads(r["file"], d, "profile_over_tuned_", "profile / tuned", 1, 3, "")
        for name, c in sorted(d["classes"].items(), key=lambda kv: -kv[1]["tuned_ms"][1]):
            e16, e8 = (c["roofline_ms"][i] / c["tuned_ms"][i] if c["tuned_ms"][i] > 0 else 0.0 for i in (0, 1))
            print(f"{r['file']}: {name}: {c['convs']} convs, tuned {1e3 * c['tuned_ms'][0]:.1f} / "
                  f"{1e3 * c['tuned_ms'][1]:.1f} us, efficiency fp16 {100 * e16:.0f}% / FP8 {100 * e8:.0f}%")
        x = d["fp8_at_fp16_efficiency_x"]
        print(f"{r['file']}: FP8 convs at the fp16 convs' efficiency, class by class: x {x:.2f} on the convs"
              if x else f"{r['file']}: no efficiency target (no tuned time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
