#!/usr/bin/env python3
"""CUDA fp16 parity (issue 4, item 6): infer8's GPU fp16 logits against the CPU fp32 reference
and against timm, on the same synth snapshot and generated images, at batch 1 and batch 32.

Runs on the GPU machine (tools/gpu-check parity). timm runs in fp32 on the CPU (plain fp32, no
TF32), through its own eval transform over the PNG files: the oracle shares no code with infer8.
Checks, per family and batch: top-1 agreement 100%, max relative logit error
max|a-b| / max|a| <= 1e-2 per image, mean KL(fp32 || fp16) <= 1e-4. Writes every figure to --out.
For scale, not as a check: timm itself in fp16 on the GPU (model.half(), cuDNN) against timm fp32,
what the framework loses on the same weights by storing activations in binary16.

    python3 tests/oracle/cuda_parity.py --arch inception_v3 --snapshot DIR --images IMG_DIR \
        --infer8 build-device/bin/infer8 --out parity-inception_v3.json
"""
import argparse, glob, json, os, subprocess, sys, time

import numpy as np
import torch
import timm
from PIL import Image

import logit_parity  # tests/oracle/, next to this script

MAX_REL, MAX_KL = 1e-2, 1e-4


def infer8_logits(cli, snapshot, images, device, batch, extra=()):
    cmd = [cli, "classify", snapshot, "--device", device, "--json", "--topk", "1", *extra]
    if batch:
        cmd += ["--batch", str(batch), "--max-batch", str(max(batch, 1))]
    t0 = time.time()
    out = subprocess.run(cmd + images, check=True, capture_output=True, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    if len(rows) != len(images):
        sys.exit(f"{' '.join(cmd[:6])}: {len(rows)} rows for {len(images)} images")
    return np.array([r["logits"] for r in rows], dtype=np.float64), time.time() - t0


def compare(ref, test):
    r = logit_parity.compare(ref, test)
    r["pass"] = bool(r["top1_agreement"] == 1.0 and r["max_rel_error"] <= MAX_REL and r["mean_kl"] <= MAX_KL)
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", required=True)
    ap.add_argument("--snapshot", required=True)
    ap.add_argument("--images", required=True)
    ap.add_argument("--infer8", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cuda-args", default="", help="more infer8 classify options for the GPU runs, e.g. "
                    "'--split-weights stem' (recorded in --out)")
    args = ap.parse_args()
    torch.set_grad_enabled(False)
    torch.backends.cudnn.enabled = False

    images = sorted(glob.glob(os.path.join(args.images, "*.png")))
    if len(images) < 64:
        sys.exit(f"{args.images}: {len(images)} images, need at least 64")
    with open(os.path.join(args.snapshot, "config.json")) as f:
        config = json.load(f)
    from safetensors.torch import load_file
    model = timm.create_model(args.arch, pretrained=False, num_classes=config["num_classes"])
    model.load_state_dict(load_file(os.path.join(args.snapshot, "model.safetensors")), strict=True)
    model = model.eval().float()
    data_config = timm.data.resolve_data_config({}, model=model, pretrained_cfg=config["pretrained_cfg"])
    transform = timm.data.create_transform(**data_config, is_training=False)
    x = torch.stack([transform(Image.open(p).convert("RGB")) for p in images])
    timm_logits = torch.cat([model(x[i:i + 16]) for i in range(0, len(images), 16)]).double().numpy()

    torch.backends.cudnn.enabled = True
    half = model.cuda().half()
    torch_fp16 = torch.cat([half(x[i:i + 16].cuda().half()).float().cpu() for i in range(0, len(images), 16)])
    torch_fp16 = torch_fp16.double().numpy()
    model.cpu().float()

    ref, t_ref = infer8_logits(args.infer8, args.snapshot, images, "ref", 0)
    result = {"arch": args.arch, "images": len(images), "timm": timm.__version__, "torch": torch.__version__,
              "thresholds": {"top1_agreement": 1.0, "max_rel_error": MAX_REL, "mean_kl": MAX_KL},
              "cpu_reference_vs_timm": compare(timm_logits, ref), "torch_fp16_vs_timm": compare(timm_logits, torch_fp16),
              "cuda_args": args.cuda_args, "cuda_fp16": {}}
    ok = True
    for batch in (1, 32):
        cuda, t = infer8_logits(args.infer8, args.snapshot, images, "cuda", batch, args.cuda_args.split())
        row = {"vs_cpu_reference": compare(ref, cuda), "vs_timm": compare(timm_logits, cuda), "seconds": round(t, 1)}
        result["cuda_fp16"][f"batch{batch}"] = row
        ok = ok and row["vs_cpu_reference"]["pass"] and row["vs_timm"]["pass"]
        for k in ("vs_cpu_reference", "vs_timm"):
            r = row[k]
            print(f"{args.arch} batch {batch} fp16 {k}: top-1 {r['top1_agreement']:.3f}, max rel {r['max_rel_error']:.2e}, "
                  f"mean KL {r['mean_kl']:.2e} (max {r['max_kl']:.2e}) {'ok' if r['pass'] else 'FAIL'}")
    r = result["torch_fp16_vs_timm"]
    print(f"{args.arch} timm fp16 (GPU, for scale) vs timm fp32: top-1 {r['top1_agreement']:.3f}, max rel "
          f"{r['max_rel_error']:.2e}, mean KL {r['mean_kl']:.2e}")
    r = result["cpu_reference_vs_timm"]
    print(f"{args.arch} CPU reference vs timm: max rel {r['max_rel_error']:.2e}, top-1 {r['top1_agreement']:.3f}")
    ok = ok and r["max_rel_error"] <= 1e-4 and r["top1_agreement"] == 1.0
    result["pass"] = ok
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
