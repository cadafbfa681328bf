#!/usr/bin/env python3
"""timm oracle: fp32 logits of an `infer8 synth` snapshot computed by timm itself.

Runs where PyTorch and timm are installed (the GPU machine of the device tool; CPU is used so
the reference is plain fp32). Writes the fixture that tests/cli/test_timm_parity.sh compares
the CPU engine with. Two sets of logits per image:
  timm_transform: the PNG file through timm's own eval transform (resolve_data_config +
                  create_transform over PIL) and the model -- fully independent of infer8;
  infer8_input:   the tensor `infer8 preprocess` wrote, through timm's model -- isolates the
                  network from preprocessing.
It also records SHA-256 of the snapshot's files and of the images, so CI can check that
`infer8 synth` and `infer8 gen-images` reproduce the same bytes, and the largest difference
between infer8's preprocessed tensors and timm's.

    python3 tests/oracle/timm_logits.py --arch inception_v3 --seed 0 --snapshot DIR \
        --images IMG_DIR --inputs NPY_DIR --out oracle-inception_v3.json
"""
import argparse, glob, hashlib, json, os, sys

import numpy as np
import torch
import timm
from PIL import Image


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_safetensors(path):
    from safetensors.torch import load_file
    return load_file(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--snapshot", required=True)
    ap.add_argument("--images", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch.set_grad_enabled(False)
    torch.backends.cudnn.enabled = False

    with open(os.path.join(args.snapshot, "config.json")) as f:
        config = json.load(f)
    model = timm.create_model(args.arch, pretrained=False, num_classes=config["num_classes"])
    state = load_safetensors(os.path.join(args.snapshot, "model.safetensors"))
    model.load_state_dict(state, strict=True)  # every key, every shape: the family mapping check
    model = model.eval().float()

    data_config = timm.data.resolve_data_config({}, model=model, pretrained_cfg=config["pretrained_cfg"])
    transform = timm.data.create_transform(**data_config, is_training=False)

    images = sorted(glob.glob(os.path.join(args.images, "*.png")))
    if not images:
        sys.exit("no images")
    rows = []
    max_input_diff = 0.0
    for path in images:
        name = os.path.splitext(os.path.basename(path))[0]
        x_timm = transform(Image.open(path).convert("RGB")).unsqueeze(0)
        x_ours = torch.from_numpy(np.load(os.path.join(args.inputs, name + ".npy")))
        max_input_diff = max(max_input_diff, float((x_timm - x_ours).abs().max()))
        logits_timm = model(x_timm)[0]
        logits_ours = model(x_ours)[0]
        probs = torch.softmax(logits_timm.double(), 0)
        rows.append({
            "image": os.path.basename(path),
            "image_sha256": sha256(path),
            "top5": logits_timm.topk(5).indices.tolist(),
            "top1_probability": float(probs.max()),
            "logits_timm_transform": [float(v) for v in logits_timm],
            "logits_infer8_input": [float(v) for v in logits_ours],
        })
    result = {
        "arch": args.arch,
        "seed": args.seed,
        "recipe": {
            "snapshot": f"infer8 synth --arch {args.arch} --seed {args.seed} -o DIR",
            "images": "infer8 gen-images --count 4 --seed 1000 -o IMG_DIR",
            "inputs": "infer8 preprocess DIR --image IMG -o NPY",
        },
        "snapshot_sha256": {name: sha256(os.path.join(args.snapshot, name))
                            for name in ("config.json", "model.safetensors")},
        "data_config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in data_config.items()},
        "max_abs_input_diff_infer8_vs_timm": max_input_diff,
        "timm": timm.__version__,
        "torch": torch.__version__,
        "images": rows,
    }
    with open(args.out, "w") as f:
        json.dump(result, f)
    print(f"{args.arch}: {len(rows)} images, top-1 probabilities "
          f"{[round(r['top1_probability'], 3) for r in rows]}, input diff {max_input_diff:.3g}")


if __name__ == "__main__":
    main()
