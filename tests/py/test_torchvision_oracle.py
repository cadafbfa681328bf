#!/usr/bin/env python3
"""Second, CPU-side logits oracle for the three families: Debian's PyTorch 1.13 (torchvision's
inception_v3, which has timm's state_dict names; inception_v4 and inception_resnet_v2 as the
plain PyTorch modules of bench/torch_inception.py, timm's keys) loads an `infer8 synth`
snapshot with load_state_dict(strict=True) and classifies tensors that `infer8 preprocess`
wrote; infer8's CPU reference and oneDNN executors must agree: max |diff| / max |ref| <= 1e-4
and the same top-5. PyTorch's own convolution, batch norm and pooling arithmetic, independent
of infer8's graph, folding and kernels. Runs in CI (scripts/install-deps.sh installs
python3-torchvision); INFER8_TEST_QUICK=1 (make test-asan) checks inception_v3 only.
Env: INFER8 (CLI), WORK (scratch), SRC (source root)."""
import json, os, subprocess, sys

import numpy as np
import torch

INFER8, WORK = os.environ["INFER8"], os.environ["WORK"]
os.makedirs(WORK, exist_ok=True)
TOL = 1e-4


def run(*args):
    return subprocess.run([INFER8, *args], check=True, capture_output=True, text=True).stdout


sys.path.insert(0, os.path.join(os.environ.get("SRC", os.path.join(os.path.dirname(__file__), "..", "..")), "bench"))
from cpu_peer import torch_model  # noqa: E402  the peer benchmark's strict loader, one copy

torch.set_num_threads(2)
run("gen-images", "--count", "3", "--seed", "4242", "-o", os.path.join(WORK, "img"))
images = sorted(os.path.join(WORK, "img", f) for f in os.listdir(os.path.join(WORK, "img")))
arches = ["inception_v3"]
if os.environ.get("INFER8_TEST_QUICK") != "1":
    arches += ["inception_v4", "inception_resnet_v2"]
for arch in arches:
    snap = os.path.join(WORK, arch)
    run("synth", "--arch", arch, "--seed", "3", "--calib-images", "8", "-o", snap)
    model = torch_model(arch, snap)  # load_state_dict(strict=True), eval mode

    ours = {dev: [json.loads(l) for l in run("classify", snap, "--json", "--device", dev, *images).splitlines()]
            for dev in ("ref", "cpu")}
    worst = 0.0
    for i, img in enumerate(images):
        npy = os.path.join(WORK, f"{arch}-x{i}.npy")
        run("preprocess", snap, "--image", img, "-o", npy)
        with torch.no_grad():
            ref = model(torch.from_numpy(np.load(npy)))[0].double().numpy()
        top5 = list(np.argsort(-ref, kind="stable")[:5])
        for dev, rows in ours.items():
            mine = np.array(rows[i]["logits"], dtype=np.float64)
            err = float(np.abs(mine - ref).max() / np.abs(ref).max())
            worst = max(worst, err)
            mine_top5 = list(np.argsort(-mine, kind="stable")[:5])
            if err > TOL or mine_top5 != top5:
                sys.exit(f"FAIL {arch} {os.path.basename(img)} on {dev}: max|diff|/max|ref| {err:.3g}, "
                         f"top-5 {mine_top5} vs {top5}")
    print(f"ok: torch {torch.__version__} {arch} agrees with infer8 (ref and oneDNN) on {len(images)} images: "
          f"worst max|diff|/max|ref| = {worst:.3g}, top-5 identical")
