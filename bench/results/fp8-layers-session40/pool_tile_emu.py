#!/usr/bin/env python3
"""pool-tile.patch's block -> output mapping (pool3_kernel<S, MODE, true>), emulated thread by thread:
every (b, oy, ox, g) of the output is taken by exactly one thread, none outside it, and the flat
output index p matches the untiled order's. Standard library only."""
import sys

TG, TX, TY = 4, 8, 4


def covered(n, ho, wo, c):
    groups = c // 8
    g_tiles, x_tiles, y_tiles = groups // TG, (wo + TX - 1) // TX, (ho + TY - 1) // TY
    tiles = n * y_tiles * x_tiles * g_tiles
    seen = {}
    for blk in range(tiles):
        for lane in range(128):
            tile = blk
            g = tile % g_tiles * TG + lane % TG
            tile //= g_tiles
            ox = tile % x_tiles * TX + lane // TG % TX
            tile //= x_tiles
            oy = tile % y_tiles * TY + lane // (TG * TX)
            b = tile // y_tiles
            if ox >= wo or oy >= ho:
                continue
            p = (b * ho + oy) * wo + ox
            key = (p, g)
            if key in seen or not (0 <= b < n and 0 <= g < groups):
                return False
            seen[key] = True
    return len(seen) == n * ho * wo * groups


shapes = [(2, 35, 35, 384), (3, 17, 17, 1024), (1, 8, 8, 1536), (2, 73, 73, 64), (1, 5, 3, 32), (4, 1, 1, 32)]
bad = [s for s in shapes if not covered(*s)]
print("mapping covers every output once:", "yes" if not bad else f"no: {bad}")
sys.exit(1 if bad else 0)
