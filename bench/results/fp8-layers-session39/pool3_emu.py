#!/usr/bin/python3
"""Emulates pool3_kernel<S, R> (pool3-mlp.patch) thread by thread in float32, in its summation
order, against pool_kernel's loops (the landed generic kernel), on the pool shapes of the three
families and of the tests, every mode: the outputs must be the same bits (NaN where either is).
Run with /usr/bin/python3 (Debian's numpy). Checks index arithmetic only, not the GPU."""
import numpy as np

def pool_kernel(x, ho, wo, k, s, ph, pw, mode):
    n, h, w, c = x.shape
    y = np.empty((n, ho, wo, c), np.float32)
    for b in range(n):
        for oy in range(ho):
            for ox in range(wo):
                y0, x0 = oy * s - ph, ox * s - pw
                y1, x1 = min(y0 + k, h + ph), min(x0 + k, w + pw)
                size = (y1 - y0) * (x1 - x0)
                ys, xs, ye, xe = max(y0, 0), max(x0, 0), min(y1, h), min(x1, w)
                acc = np.full(c, -np.inf if mode == 0 else 0, np.float32)
                for iy in range(ys, ye):
                    for ix in range(xs, xe):
                        f = x[b, iy, ix]
                        acc = np.where((f > acc) | np.isnan(f), f, acc) if mode == 0 else np.float32(acc + f)
                div = np.float32(size if mode == 2 else (ye - ys) * (xe - xs))
                y[b, oy, ox] = acc if mode == 0 else acc / div
    return y

def pool3_kernel(x, ho, wo, S, R, ph, pw, mode):
    n, h, w, c = x.shape
    groups, strips = c // 8, (ho + R - 1) // R
    y = np.full((n, ho, wo, c), np.float32(12345.0))
    NR = (R - 1) * S + 3
    for t in range(n * strips * wo * groups):
        g, q = t % groups, t // groups
        ox, r = q % wo, q // wo
        oy0, b = (r % strips) * R, r // strips
        x0, iy0 = ox * S - pw, oy0 * S - ph
        v = {}
        for i in range(NR):
            for k in range(3):
                iy, ix = iy0 + i, x0 + k
                if 0 <= iy < h and 0 <= ix < w:
                    v[i, k] = x[b, iy, ix, g * 8:g * 8 + 8]
        xs, xe = max(x0, 0), min(x0 + 3, w)
        x_pool = min(x0 + 3, w + pw) - x0
        for j in range(R):
            oy = oy0 + j
            if oy >= ho:
                break
            y0 = iy0 + j * S
            ys, ye = max(y0, 0), min(y0 + 3, h)
            acc = np.full(8, -np.inf if mode == 0 else 0, np.float32)
            for i in range(j * S, j * S + 3):
                for k in range(3):
                    iy, ix = iy0 + i, x0 + k
                    if iy < 0 or iy >= h or ix < 0 or ix >= w:
                        continue
                    f = v[i, k]
                    acc = np.where((f > acc) | np.isnan(f), f, acc) if mode == 0 else np.float32(acc + f)
            div = np.float32((min(y0 + 3, h + ph) - y0) * x_pool if mode == 2 else (ye - ys) * (xe - xs))
            assert 0 <= oy < ho and 0 <= ox < wo
            y[b, oy, ox, g * 8:g * 8 + 8] = acc if mode == 0 else acc / div
    return y

rng = np.random.default_rng(39)
shapes = [  # (h, w, c, stride, pad): the families' pools and the tests'
    (35, 35, 16, 1, 1), (17, 17, 16, 1, 1), (8, 8, 16, 1, 1), (13, 13, 32, 1, 1),
    (35, 35, 8, 2, 0), (71, 71, 8, 2, 0), (17, 17, 16, 2, 0), (16, 15, 16, 2, 0), (17, 17, 16, 2, 1),
    (16, 15, 16, 2, 1), (9, 7, 8, 1, 0), (6, 5, 8, 1, 2), (7, 6, 8, 2, 2)]
worst = 0
for h, w, c, s, p in shapes:
    ho, wo = (h + 2 * p - 3) // s + 1, (w + 2 * p - 3) // s + 1
    x = rng.standard_normal((2, h, w, c)).astype(np.float16).astype(np.float32)
    x[0, h // 2, w // 3, 1] = np.nan
    R = 4 if s == 1 else 2
    for mode in (0, 1, 2):
        a = pool_kernel(x, ho, wo, 3, s, p, p, mode)
        e = pool3_kernel(x, ho, wo, s, R, p, p, mode)
        same = (a == e) | (np.isnan(a) & np.isnan(e))
        bad = int((~same).sum())
        worst = max(worst, bad)
        print(f"{h}x{w} c{c} s{s} p{p} mode {mode}: {ho}x{wo} outputs, {bad} differ")
print("max outputs differing:", worst)
raise SystemExit(1 if worst else 0)
