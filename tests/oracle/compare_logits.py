#!/usr/bin/env python3
"""Compares `infer8 classify --json` output with a timm oracle fixture (tests/oracle/timm_logits.py).
usage: compare_logits.py FIXTURE.json SNAPSHOT_DIR IMAGE_DIR OURS.jsonl
Checks: snapshot and image SHA-256 equal the fixture's (determinism of synth / gen-images);
for each image max |ours - timm| / max |timm| <= 1e-4 against both timm logit sets, and the
same top-5 order. Exit 1 with the first failure."""
import hashlib, json, os, sys

TOL = 1e-4


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    fixture_path, snap, image_dir, ours_path = sys.argv[1:5]
    fx = json.load(open(fixture_path))
    arch = fx["arch"]
    for name, digest in fx["snapshot_sha256"].items():
        got = sha256(os.path.join(snap, name))
        if got != digest:
            sys.exit(f"FAIL {arch}: {name} SHA-256 {got} differs from the fixture's {digest}: "
                     "infer8 synth is not reproducing the oracle's snapshot")
    ours = {}
    for line in open(ours_path):
        row = json.loads(line)
        ours[os.path.basename(row["image"])] = row
    worst = 0.0
    for ref in fx["images"]:
        img = ref["image"]
        if sha256(os.path.join(image_dir, img)) != ref["image_sha256"]:
            sys.exit(f"FAIL {arch}: {img} differs from the oracle's image (gen-images not deterministic)")
        if img not in ours:
            sys.exit(f"FAIL {arch}: no output for {img}")
        mine = ours[img]["logits"]
        for key in ("logits_timm_transform", "logits_infer8_input"):
            theirs = ref[key]
            scale = max(abs(v) for v in theirs)
            err = max(abs(a - b) for a, b in zip(mine, theirs)) / scale
            worst = max(worst, err)
            if err > TOL:
                sys.exit(f"FAIL {arch} {img} vs {key}: max|diff|/max|ref| = {err:.3g} > {TOL}")
        top5 = sorted(range(len(mine)), key=lambda i: -mine[i])[:5]
        if top5 != ref["top5"]:
            sys.exit(f"FAIL {arch} {img}: top-5 {top5} != timm's {ref['top5']}")
    print(f"ok {arch}: {len(fx['images'])} images, worst max|diff|/max|ref| = {worst:.3g} (tolerance {TOL}), "
          f"top-5 identical, snapshot SHA-256 identical")


if __name__ == "__main__":
    main()
