#!/usr/bin/python3
"""CPU peer benchmark: infer8's oneDNN backend against PyTorch eager (inception_v3, _v4, _resnet_v2).

Needs Debian's PyTorch (not installed by scripts/install-deps.sh):
    apt-get install -y python3-torch python3-torchvision
Run with Debian's interpreter, after building (cmake -S . -B build && cmake --build build):
    /usr/bin/python3 bench/cpu_peer.py [--arch inception_v3] [--snapshot DIR]
        [--tool build/tests/tools/onednn_time] [--rounds 7] [--iters 3] [--batches 1,8]
        [--threads N] [--out bench/results/cpu_peer.json]

PyTorch model, eval mode under torch.no_grad(): inception_v3 is torchvision's (weights=None,
aux_logits=False, init_weights=False, transform_input=False; same layer names as timm's);
inception_v4 and inception_resnet_v2 are bench/torch_inception.py (plain modules with timm's
keys; Debian has no timm). With --snapshot, its model.safetensors is loaded into the model
(load_state_dict strict=True; AuxLogits.* dropped, missing num_batches_tracked filled).
Without, the script writes torch's random weights as a snapshot (config.json +
model.safetensors) into a scratch folder, so both engines run identical weights.
Before timing, both engines classify one generated image (`infer8 gen-images`, `preprocess`,
`classify --json`, the CLI next to the tool) and the maximum logit difference relative to the
largest |logit| is recorded ("parity"), so the peer is known to compute the same function.

infer8 side: tests/tools/onednn_time MODEL --serve, a persistent process that answers
"N ITERS" with the mean ms per forward of the oneDNN backend, the model loaded once (--infer8
CLI switches to `infer8 bench --device cpu`, one call per round, each loading the model). Rounds interleave the engines
(round r: torch b1, infer8 b1, torch b8, infer8 b8), each engine runs `iters` forwards per
round after one warm-up round; we report median/min/max of the per-round means, fp32 only.
Both engines get the same thread count (default: all online CPUs). The safetensors format is
parsed and written by hand (Debian has no python3-safetensors).
"""
import argparse
import json
import os
import platform
import struct
import subprocess
import sys
import shutil
import tempfile
import time

import numpy as np

DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64, "I64": np.int64}


def read_safetensors(path):
    """Returns {key: numpy array}; BF16 widened to float32."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: shorter than the 8-byte header length")
    (hlen,) = struct.unpack("<Q", data[:8])
    if hlen > len(data) - 8:
        raise ValueError(f"{path}: header length {hlen} beyond file size {len(data)}")
    header = json.loads(data[8:8 + hlen])
    base = 8 + hlen
    out = {}
    for key, t in header.items():
        if key == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        raw = data[base + begin:base + end]
        if t["dtype"] == "BF16":
            arr = (np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(raw, dtype=DTYPES[t["dtype"]])
        out[key] = arr.reshape(t["shape"]).copy()
    return out


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for key, arr in tensors.items():
        arr = np.ascontiguousarray(arr, dtype=np.float32)
        header[key] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + arr.nbytes]}
        blobs.append(arr.tobytes())
        offset += arr.nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def torch_model(arch, snapshot):
    import torch
    if arch == "inception_v3":
        import torchvision
        m = torchvision.models.inception_v3(weights=None, aux_logits=False, init_weights=False,
                                            transform_input=False)
    else:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import torch_inception
        m = torch_inception.build(arch)
    m.eval()
    if snapshot:
        sd = read_safetensors(os.path.join(snapshot, "model.safetensors"))
        own = m.state_dict()
        state = {k: torch.from_numpy(v) for k, v in sd.items() if not k.startswith("AuxLogits.")}
        for k, v in own.items():
            if k.endswith("num_batches_tracked") and k not in state:
                state[k] = v
        m.load_state_dict(state, strict=True)
    return m


def export_snapshot(model, arch, folder):
    os.makedirs(folder, exist_ok=True)
    tensors = {k: v.numpy() for k, v in model.state_dict().items() if not k.endswith("num_batches_tracked")}
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    features = {"inception_v3": 2048, "inception_v4": 1536, "inception_resnet_v2": 1536}[arch]
    crop = 0.8975 if arch == "inception_resnet_v2" else 0.875
    cfg = {"architecture": arch, "num_classes": 1000, "num_features": features,
           "pretrained_cfg": {"input_size": [3, 299, 299], "crop_pct": crop, "interpolation": "bicubic",
                              "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5], "num_classes": 1000}}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


class ToolEngine:
    """tests/tools/onednn_time --serve: one persistent process, timed on request."""

    def __init__(self, tool, model, threads):
        self.p = subprocess.Popen([tool, model, "--serve", "--threads", str(threads)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"{tool} failed to start on {model}")
        self.info = json.loads(line)

    def time(self, n, iters):
        self.p.stdin.write(f"{n} {iters}\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("onednn_time stopped")
        return json.loads(line)["ms"]

    def close(self):
        self.p.stdin.close()
        self.p.wait()


class CliEngine:
    """`infer8 bench MODEL --device cpu --batch N --json`, one call per round; takes the first
    number under a key "ms", "mean_ms" or "median_ms" of an object whose "batch" is N."""

    def __init__(self, cli, model, threads):
        self.cli, self.model, self.threads = cli, model, threads
        self.info = {"device": "infer8 CLI"}

    def time(self, n, iters):
        out = subprocess.run([self.cli, "bench", self.model, "--device", "cpu", "--batch", str(n), "--json"],
                             check=True, capture_output=True, text=True).stdout
        found = []

        def walk(o):
            if isinstance(o, dict):
                if o.get("batch") == n:
                    for k in ("ms", "mean_ms", "median_ms"):
                        if isinstance(o.get(k), (int, float)):
                            found.append(float(o[k]))
                for v in o.values():
                    walk(v)
            elif isinstance(o, list):
                for v in o:
                    walk(v)

        walk(json.loads(out))
        if not found:
            raise RuntimeError(f"no timing for batch {n} in: {out[:400]}")
        return found[0]

    def close(self):
        pass


def parity(cli, snapshot, model):
    """Both engines on one generated image, preprocessed by infer8 (timm's transform)."""
    import torch
    tmp = tempfile.mkdtemp(prefix="cpu_peer_parity_")
    try:
        subprocess.run([cli, "gen-images", "--count", "1", "--seed", "4242", "-o", tmp], check=True,
                       capture_output=True)
        image = os.path.join(tmp, sorted(f for f in os.listdir(tmp) if f.endswith(".png"))[0])
        npy = os.path.join(tmp, "input.npy")
        subprocess.run([cli, "preprocess", snapshot, "--image", image, "-o", npy], check=True, capture_output=True)
        out = subprocess.run([cli, "classify", snapshot, "--device", "cpu", "--json", "--image", image], check=True,
                             capture_output=True, text=True).stdout
        ours = np.array(json.loads(out.splitlines()[0])["logits"], dtype=np.float64)
        with torch.no_grad():
            theirs = model(torch.from_numpy(np.load(npy))).double().numpy()[0]
    finally:
        shutil.rmtree(tmp)
    rel = float(np.max(np.abs(ours - theirs)) / np.max(np.abs(theirs)))
    return {"image": "infer8 gen-images --count 1 --seed 4242", "max_rel_logit_diff": rel,
            "top1_infer8": int(np.argmax(ours)), "top1_torch": int(np.argmax(theirs))}


def stats(xs):
    return {"median_ms": float(np.median(xs)), "min_ms": float(min(xs)), "max_ms": float(max(xs)),
            "rounds_ms": [round(x, 3) for x in xs]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", default="inception_v3", choices=["inception_v3", "inception_v4", "inception_resnet_v2"])
    ap.add_argument("--snapshot", help="timm snapshot folder of --arch (config.json + model.safetensors)")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--tool", default=os.path.join(here, "build", "tests", "tools", "onednn_time"))
    ap.add_argument("--infer8", help="use `INFER8 bench` instead of the tool")
    ap.add_argument("--cli", default=os.path.join(here, "build", "bin", "infer8"), help="infer8 CLI for the parity check")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", default=os.path.join(here, "bench", "results", "cpu_peer.json"))
    a = ap.parse_args()
    batches = [int(b) for b in a.batches.split(",")]

    import torch
    torch.set_num_threads(a.threads)
    model = torch_model(a.arch, a.snapshot)
    scratch = None
    snap = a.snapshot
    if not snap:
        scratch = tempfile.mkdtemp(prefix="cpu_peer_")
        snap = os.path.join(scratch, f"{a.arch}-random")
        export_snapshot(model, a.arch, snap)
    par = parity(a.cli, snap, model)
    print(f"parity: max |logit diff| / max |logit| = {par['max_rel_logit_diff']:.2e}", file=sys.stderr)
    engine = CliEngine(a.infer8, snap, a.threads) if a.infer8 else ToolEngine(a.tool, snap, a.threads)

    gen = torch.Generator().manual_seed(0)
    inputs = {n: torch.randn(n, 3, 299, 299, generator=gen) for n in batches}
    res = {n: {"torch": [], "infer8": []} for n in batches}
    with torch.no_grad():
        for r in range(a.rounds + 1):  # round 0 warms both up and is not recorded
            for n in batches:
                t0 = time.perf_counter()
                for _ in range(a.iters):
                    model(inputs[n])
                t_ms = (time.perf_counter() - t0) * 1e3 / a.iters
                i_ms = engine.time(n, a.iters)
                if r > 0:
                    res[n]["torch"].append(t_ms)
                    res[n]["infer8"].append(i_ms)
                print(f"round {r} batch {n}: torch {t_ms:.1f} ms, infer8 {i_ms:.1f} ms", file=sys.stderr)
    engine.close()

    report = {
        "command": "/usr/bin/python3 " + " ".join(sys.argv), "date": time.strftime("%Y-%m-%d"),
        "model": a.arch, "precision": "fp32", "parity": par, "snapshot": a.snapshot or "random (torch init, exported)",
        "cpu": cpu_model(), "threads": a.threads, "load_average": os.getloadavg(),
        "torch": torch.__version__, "infer8_device": engine.info.get("device"),
        "rounds": a.rounds, "iters_per_round": a.iters,
        "batches": {str(n): {"torch": stats(res[n]["torch"]), "infer8": stats(res[n]["infer8"]),
                             "speedup_median": float(np.median(res[n]["torch"]) / np.median(res[n]["infer8"]))}
                    for n in batches},
    }
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(report, f, indent=2)
    print(json.dumps(report["batches"], indent=1))
    if scratch:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
