"""An independent reader of a bundle's weights, written from docs/bundle-format.md alone (no
infer8 code): {tensor name: numpy array (float32, float16, or uint8 e4m3 codes; flat)}. For the
CLI tests that check what a build stored."""
import struct

import numpy as np


def tensors(path):
    d = open(path, "rb").read()
    n = struct.unpack_from("<I", d, 32)[0]
    secs = {}
    for i in range(n):
        e = 64 + 64 * i
        secs[d[e:e + 24].split(b"\0")[0].decode()] = struct.unpack_from("<QQ", d, e + 32)
    (go, gl), (wo, wl) = secs["graph"], secs["weights"]
    nn, nw = struct.unpack_from("<II", d, go + 4)
    out = {}
    for i in range(nw):
        r = go + 128 + nn * 256 + i * 192
        name = d[r:r + 128].split(b"\0")[0].decode()
        st, = struct.unpack_from("<I", d, r + 168)
        off, nb = struct.unpack_from("<QQ", d, r + 176)
        dt = {0: "<f4", 1: "<f2", 2: "u1"}[st]  # e4m3: the raw codes
        out[name] = np.frombuffer(d, dtype=dt, count=nb // np.dtype(dt).itemsize, offset=wo + off)
    return out
