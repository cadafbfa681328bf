#!/usr/bin/env python3
"""Writes damaged copies of a good snapshot for the loader-error tests.
usage: make_bad_checkpoints.py GOOD_SNAPSHOT OUT_DIR
Each variant is a folder OUT_DIR/<name>/ with config.json and model.safetensors:
  wrong_shape   one conv weight's shape permuted ([O,I,kh,kw] -> [I,O,kh,kw], same byte count)
  wrong_dtype   one tensor's dtype changed from F32 to I32 (same byte count)
  missing_key   one batch-norm running_var renamed to an unknown key
  truncated     model.safetensors cut in the middle of the data area
  bad_json      config.json with a syntax error
  bad_config    config.json whose crop_pct is a string
Prints "name key" lines naming the tensor each variant damaged."""
import json, os, shutil, struct, sys

good, out = sys.argv[1:3]
raw = open(os.path.join(good, "model.safetensors"), "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]


def write(name, hdr=None, config=None, blob=None):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    if blob is None:
        text = json.dumps(hdr, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 8)
        blob = struct.pack("<Q", len(text)) + text + data
    open(os.path.join(d, "model.safetensors"), "wb").write(blob)
    cfg = open(os.path.join(good, "config.json")).read() if config is None else config
    open(os.path.join(d, "config.json"), "w").write(cfg)


conv = next(k for k, v in header.items() if k.endswith(".conv.weight") and v["shape"][0] != v["shape"][1])
h = json.loads(json.dumps(header))
s = h[conv]["shape"]
h[conv]["shape"] = [s[1], s[0], s[2], s[3]]
write("wrong_shape", h)
print("wrong_shape", conv, s, h[conv]["shape"])

h = json.loads(json.dumps(header))
h[conv]["dtype"] = "I32"
write("wrong_dtype", h)
print("wrong_dtype", conv)

var = next(k for k in header if k.endswith(".running_var"))
h = json.loads(json.dumps(header))
h[var.replace("running_var", "running_variance")] = h.pop(var)
write("missing_key", h)
print("missing_key", var)

write("truncated", blob=raw[:8 + n + len(data) // 2])
print("truncated", len(raw) // 2)

cfg = open(os.path.join(good, "config.json")).read()
write("bad_json", header, config=cfg[: len(cfg) // 3])
print("bad_json -")
c = json.loads(cfg)
c["pretrained_cfg"]["crop_pct"] = "0.875"
write("bad_config", header, config=json.dumps(c))
print("bad_config pretrained_cfg.crop_pct")
