#!/usr/bin/env python3
"""Splits a snapshot's model.safetensors into N shards with a model.safetensors.index.json,
as Hugging Face writes large checkpoints. usage: shard_snapshot.py SNAPSHOT OUT_DIR N"""
import json, os, shutil, struct, sys

src, out, parts = sys.argv[1], sys.argv[2], int(sys.argv[3])
raw = open(os.path.join(src, "model.safetensors"), "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
meta = header.pop("__metadata__", None)
keys = sorted(header)
os.makedirs(out, exist_ok=True)
shutil.copy(os.path.join(src, "config.json"), os.path.join(out, "config.json"))
weight_map = {}
for p in range(parts):
    name = f"model-{p + 1:05d}-of-{parts:05d}.safetensors"
    mine = keys[p::parts]
    hdr, blobs, offset = {}, [], 0
    if meta is not None:
        hdr["__metadata__"] = meta
    for k in mine:
        b, e = header[k]["data_offsets"]
        blobs.append(data[b:e])
        hdr[k] = {"dtype": header[k]["dtype"], "shape": header[k]["shape"], "data_offsets": [offset, offset + e - b]}
        offset += e - b
        weight_map[k] = name
    text = json.dumps(hdr).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(out, name), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
json.dump({"metadata": {"total_size": len(data)}, "weight_map": weight_map},
          open(os.path.join(out, "model.safetensors.index.json"), "w"), indent=1)
