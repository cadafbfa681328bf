#!/usr/bin/env python3
"""Logits of two runs compared image by image, with the figures of the parity checks: top-1
agreement, max relative logit error max|a-b| / max|a| (per image, then the largest), mean and
max KL(softmax a || softmax b). Used by tests/oracle/cuda_parity.py (compare), by
tools/gpu-check's fp8_parity and by tools/fp16-floor.

    logit_parity.py REF.jsonl TEST.jsonl --label TEXT [--count N] [--max-rel X] [--max-kl X] [--min-agree P]

REF and TEST are `infer8 classify --json` outputs (one object with "logits" per line, same
images in the same order; --count: exactly N of them). Prints one line; exits 1 when a given
threshold is missed.
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
    a = ap.parse_args()
    ref, test = load(a.ref), load(a.test)
    if ref.shape != test.shape or ref.size == 0 or (a.count is not None and ref.shape[0] != a.count):
        sys.exit(f"{a.label}: {a.ref} has {ref.shape[0]} results, {a.test} has {test.shape[0]}"
                 + (f", {a.count} expected" if a.count is not None else ""))
    r = compare(ref, test)
    ok = ((a.max_rel is None or r["max_rel_error"] <= a.max_rel) and (a.max_kl is None or r["mean_kl"] <= a.max_kl)
          and (a.min_agree is None or r["top1_agreement"] >= a.min_agree))
    checked = a.max_rel is not None or a.max_kl is not None or a.min_agree is not None
    print(f"{a.label} over {r['images']} images: top-1 {r['top1_agreement']:.3f}, max rel {r['max_rel_error']:.2e}, "
          f"mean KL {r['mean_kl']:.2e} (max {r['max_kl']:.2e})" + (" ok" if ok else " FAIL") * checked)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
