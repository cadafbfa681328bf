# Emulates conv_packk_kernel's index arithmetic (stem-packk.patch: weight packing, the two-threads-a-pixel
# window gather, padding, tile walk, epilogue) in numpy against a direct conv, on the per-op
# graphs' and the stem's shapes; the wmma product is taken as the matrix product. Session 38 ran it
# (Debian /usr/bin/python3 with python3-numpy): max abs diff 3e-6 to 1.4e-5 on all six shapes.
import numpy as np
TM = 128
def emu(x, w, bias, kh, kw, sh, sw, ph, pw, cin_used, relu=True):
    n, h, wd, c_in = x.shape
    c_out = w.shape[0]
    ho, wo = (h + 2*ph - kh)//sh + 1, (wd + 2*pw - kw)//sw + 1
    cin = cin_used if 0 < cin_used < 8 else 8
    taps = kh*kw; k_used = taps*cin; k_pad = (k_used+15)//16*16; NF = (c_out+15)//16; np_ = NF*16
    lda, ldb, ldc = k_pad+8, np_+8, np_+4
    wf = w.reshape(-1)
    bs = np.zeros(k_pad*ldb, np.float32)
    for i in range(k_pad*np_):
        k, co = i//np_, i % np_
        bs[k*ldb+co] = wf[co*taps*c_in + (k//cin)*c_in + k % cin] if (k < k_used and co < c_out) else 0
    xf = x.reshape(-1)
    y = np.full((n*ho*wo, c_out), np.nan, np.float32)
    pixels = n*ho*wo; tiles = (pixels+TM-1)//TM
    for tile in range(tiles):
        As = np.full(TM*lda, np.nan, np.float32)  # garbage where not written
        m0 = tile*TM
        for tid in range(256):
            p, half = tid % TM, tid // TM
            m = m0+p; live = m < pixels
            iy0 = ix0 = row0 = 0
            if live:
                ox = m % wo; r = m // wo; oy = r % ho; b = r // ho
                iy0, ix0, row0 = oy*sh-ph, ox*sw-pw, b*h
            if half == 0:
                for k in range(k_used, k_pad): As[p*lda+k] = 0
            for tap in range(half, taps, 2):
                ky = tap // kw; iy = iy0+ky; ix = ix0+tap-ky*kw
                v = np.zeros(8, np.float32)
                if live and 0 <= iy < h and 0 <= ix < wd:
                    base = ((row0+iy)*wd+ix)*c_in
                    v = xf[base:base+8]
                for ci in range(8):
                    if ci < cin: As[p*lda+tap*cin+ci] = v[ci]
        A = As.reshape(TM, lda)[:, :k_pad]
        B = bs.reshape(k_pad, ldb)[:, :np_]
        assert not np.isnan(A).any(), "unwritten A"
        C = A @ B
        for i in range(TM*NF*2):
            q, co0 = i // (NF*2), i % (NF*2)*8
            mq = m0+q
            if mq >= pixels or co0 >= c_out: continue
            for e in range(8):
                if co0+e < c_out:
                    v = C[q, co0+e] + bias[co0+e]
                    y[mq, co0+e] = max(v, 0) if relu else v
    return y.reshape(n, ho, wo, c_out)
def ref(x, w, bias, kh, kw, sh, sw, ph, pw):
    n, h, wd, c = x.shape; c_out = w.shape[0]
    ho, wo = (h + 2*ph - kh)//sh + 1, (wd + 2*pw - kw)//sw + 1
    xp = np.zeros((n, h+2*ph, wd+2*pw, c), np.float32); xp[:, ph:ph+h, pw:pw+wd] = x
    y = np.zeros((n, ho, wo, c_out), np.float32)
    for ky in range(kh):
        for kx in range(kw):
            patch = xp[:, ky:ky+sh*ho:sh, kx:kx+sw*wo:sw, :]
            y += patch @ w[:, ky, kx, :].T
    return np.maximum(y + bias, 0)
rng = np.random.default_rng(1)
for (n, h, wd, c_out, kh, kw, s, p, cu) in [(2, 31, 29, 32, 3, 3, 2, 0, 3), (1, 17, 17, 24, 5, 5, 1, 2, 3), (1, 9, 11, 64, 3, 3, 1, 1, 3),
                                           (1, 13, 13, 12, 3, 3, 1, 1, 3), (1, 21, 21, 32, 3, 3, 2, 0, 0), (3, 7, 5, 16, 3, 3, 1, 1, 3)]:
    x = rng.standard_normal((n, h, wd, 8)).astype(np.float32)
    w = rng.standard_normal((c_out, kh, kw, 8)).astype(np.float32)
    if cu: x[..., cu:] = 0; w[..., cu:] = 0
    b = rng.standard_normal(c_out).astype(np.float32)
    a = emu(x, w, b, kh, kw, s, s, p, p, cu); r = ref(x, w, b, kh, kw, s, s, p, p)
    print((n, h, wd, c_out, kh, kw, s, p, cu), a.shape, "max abs diff", float(np.abs(a-r).max()))
