#!/usr/bin/env python3
"""Logits of two runs compared image by image, with the figures of the parity checks: top-1
agreement, max relative logit error max|a-b| / max|a| (per image, then the largest), mean and
max KL(softmax a || softmax b). Used by tests/oracle/cuda_parity.py (compare), by
tools/gpu-check's fp8_parity and by tools/fp16-floor.

    logit_parity.py REF.jsonl TEST.jsonl --label TEXT [--count N] [--max-rel X] [--max-kl X] [--min-agree P]
                    [--floor A.jsonl B.jsonl]

REF and TEST are `infer8 classify --json` outputs (one object with "logits" per line, same
images in the same order; --count: exactly N of them). Prints one line; exits 1 when a given
threshold is missed. --floor: two runs of one engine that differ only in rounding (the FP8
emulation accumulating in float and in double, tools/fp8-floor); where they drift apart further
than the thresholds allow, TEST may drift from REF up to twice as far (max rel, mean KL) and flip
twice as many top-1s plus one image.
"""
import argparse, json, sys

import numpy as np


def compare(ref, test):
    def log_softmax(x):
        m = x.max(1, keepdims=True)
        return x - m - np.log(np.exp(x - m).sum(1, keepdims=True))
    lp, lq = log_softmax(ref), log_softmax(test)
    kl = (np.exp(lp) * (lp - lq)).sum(1)
    rel = np.abs(ref - test).max(1) / np.abs(ref).max(1)
    return {"images": int(ref.shape[0]), "top1_agreement": float((ref.argmax(1) == test.argmax(1)).mean()),
            "max_rel_error": float(rel.max()), "median_rel_error": float(np.median(rel)),
            "mean_kl": float(kl.mean()), "max_kl": float(kl.max())}


def load(path):
    rows = [json.loads(line)["logits"] for line in open(path) if line.strip()]
    return np.array(rows, dtype=np.float64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ref")
    ap.add_argument("test")
    ap.add_argument("--label", default="")
    ap.add_argument("--count", type=int)
    ap.add_argument("--max-rel", type=float)
    ap.add_argument("--max-kl", type=float)
    ap.add_argument("--min-agree", type=float)
    ap.add_argument("--floor", nargs=2, metavar=("A", "B"))
    a = ap.parse_args()
    ref, test = load(a.ref), load(a.test)
    if ref.shape != test.shape or ref.size == 0 or (a.count is not None and ref.shape[0] != a.count):
        sys.exit(f"{a.label}: {a.ref} has {ref.shape[0]} results, {a.test} has {test.shape[0]}"
                 + (f", {a.count} expected" if a.count is not None else ""))
    r = compare(ref, test)
    if a.floor:
        fa, fb = load(a.floor[0]), load(a.floor[1])
        if fa.shape != ref.shape or fb.shape != ref.shape:
            sys.exit(f"{a.label}: --floor files {a.floor[0]} and {a.floor[1]} do not match {a.ref}'s {ref.shape[0]} results")
        f = compare(fa, fb)
        print(f"{a.label} floor ({a.floor[0]} vs {a.floor[1]}): top-1 {f['top1_agreement']:.3f}, "
              f"max rel {f['max_rel_error']:.2e}, mean KL {f['mean_kl']:.2e}")
        n = ref.shape[0]
        if a.max_rel is not None:
            a.max_rel = max(a.max_rel, 2 * f["max_rel_error"])
        if a.max_kl is not None:
            a.max_kl = max(a.max_kl, 2 * f["mean_kl"])
        if a.min_agree is not None and f["top1_agreement"] < 1:
            a.min_agree = min(a.min_agree, 1 - 2 * (1 - f["top1_agreement"]) - 1 / n)
        print(f"{a.label} bounds: max rel {a.max_rel}, mean KL {a.max_kl}, top-1 {a.min_agree}")
    ok = ((a.max_rel is None or r["max_rel_error"] <= a.max_rel) and (a.max_kl is None or r["mean_kl"] <= a.max_kl)
          and (a.min_agree is None or r["top1_agreement"] >= a.min_agree))
    checked = a.max_rel is not None or a.max_kl is not None or a.min_agree is not None
    print(f"{a.label} over {r['images']} images: top-1 {r['top1_agreement']:.3f}, max rel {r['max_rel_error']:.2e}, "
          f"mean KL {r['mean_kl']:.2e} (max {r['max_kl']:.2e})" + (" ok" if ok else " FAIL") * checked)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
