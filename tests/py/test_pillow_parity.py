#!/usr/bin/python3
"""Pillow parity of src/image: decoding, resizing and timm's eval transform must match
Pillow 9.4 (+ numpy standing in for torchvision's ToTensor/Normalize) bit for bit.

Env: TOOLS (folder with i8_image_tool), WORK (scratch folder). Exits 1 on any mismatch and
prints the first mismatching pixel of each failing case."""
import io
import math
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
from PIL import Image

TOOL = os.path.join(os.environ.get("TOOLS", "."), "i8_image_tool")
WORK = os.environ.get("WORK", "/tmp/i8_pillow_parity")
os.makedirs(WORK, exist_ok=True)

counts = {"decode": 0, "resize": 0, "preprocess": 0, "generate": 0, "errors": 0}
failures = []


def fail(what, msg):
    failures.append(what)
    print(f"MISMATCH {what}: {msg}")


def run(*args):
    r = subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def first_diff(a, b):
    if a.shape != b.shape:
        return f"shape {a.shape} vs Pillow {b.shape}"
    idx = tuple(int(i) for i in np.argwhere(a != b)[0])
    return f"at {idx}: ours {a[idx]!r}, reference {b[idx]!r} ({int(np.sum(a != b))} values differ)"


# ---- test content -------------------------------------------------------------------------

def content(rng, w, h, channels=3):
    """Smooth random field (bilinear upsampling of a coarse grid) plus noise, uint8 HxWxC."""
    gh, gw = max(2, h // 16 + 2), max(2, w // 16 + 2)
    grid = rng.uniform(0, 255, size=(gh, gw, channels))
    ys = np.linspace(0, gh - 1, h)
    xs = np.linspace(0, gw - 1, w)
    y0 = np.clip(np.floor(ys).astype(int), 0, gh - 2)
    x0 = np.clip(np.floor(xs).astype(int), 0, gw - 2)
    fy = (ys - y0)[:, None, None]
    fx = (xs - x0)[None, :, None]
    g00 = grid[y0][:, x0]
    g01 = grid[y0][:, x0 + 1]
    g10 = grid[y0 + 1][:, x0]
    g11 = grid[y0 + 1][:, x0 + 1]
    v = g00 * (1 - fy) * (1 - fx) + g01 * (1 - fy) * fx + g10 * fy * (1 - fx) + g11 * fy * fx
    v += rng.normal(0, 12, size=v.shape)
    # a few hard edges and saturated pixels so clipping paths are exercised
    if w > 4 and h > 4:
        v[h // 3: h // 2, w // 4: w // 2] = rng.choice([0, 255], size=channels)
    return np.clip(np.rint(v), 0, 255).astype(np.uint8)


def png_chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)


def raw_png(w, h, depth, ctype, rows, extra=b""):
    """A PNG written by hand, for layouts Pillow cannot save (16-bit RGB, short palettes)."""
    raw = b"".join(b"\0" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0))
            + extra + png_chunk(b"IDAT", zlib.compress(raw)) + png_chunk(b"IEND", b""))


rng = np.random.default_rng(20240611)
images = []   # (path, is_rgb_source_for_resize)

RGB_SIZES = [(1, 1), (3, 5), (5, 3), (2, 9), (17, 13), (64, 48), (48, 64), (299, 299), (333, 500),
             (500, 333), (341, 400), (500, 375), (375, 500), (1000, 40), (40, 1000), (257, 129),
             (7, 300), (100, 80), (640, 427), (333, 333), (299, 301)]
for i, (w, h) in enumerate(RGB_SIZES):
    p = os.path.join(WORK, f"rgb_{i}_{w}x{h}.png")
    Image.fromarray(content(rng, w, h)).save(p)
    images.append((p, True))

# JPEG: 4:2:0, 4:4:4, progressive, odd sizes, grayscale, CMYK
for i, (w, h, opts) in enumerate([(320, 240, {"quality": 90}), (301, 199, {"quality": 75}),
                                   (123, 457, {"quality": 95, "subsampling": 0}),
                                   (250, 170, {"quality": 85, "progressive": True}),
                                   (33, 17, {"quality": 90, "subsampling": 1})]):
    p = os.path.join(WORK, f"jpeg_{i}.jpg")
    Image.fromarray(content(rng, w, h)).save(p, **opts)
    images.append((p, True))
p = os.path.join(WORK, "jpeg_gray.jpg")
Image.fromarray(content(rng, 211, 150, 1)[:, :, 0], "L").save(p, quality=90)
images.append((p, True))
p = os.path.join(WORK, "jpeg_cmyk.jpg")
Image.fromarray(content(rng, 97, 61, 4), "CMYK").save(p, quality=90)
images.append((p, False))

# PNG modes
specials = [
    ("gray_L.png", Image.fromarray(content(rng, 131, 77, 1)[:, :, 0], "L")),
    ("gray_LA.png", Image.fromarray(content(rng, 60, 90, 2), "LA")),
    ("rgba.png", Image.fromarray(content(rng, 150, 101, 4), "RGBA")),
    ("gray16.png", Image.fromarray((content(rng, 70, 50, 1)[:, :, 0].astype(np.uint16) * 3), "I;16")),
    ("bilevel.png", Image.fromarray(content(rng, 45, 33, 1)[:, :, 0] > 128)),
]
pal_img = Image.fromarray(content(rng, 120, 80)).quantize(colors=200)
pal_img.info["transparency"] = 5
specials.append(("palette_trns.png", pal_img))
specials.append(("palette16.png", Image.fromarray(content(rng, 41, 29)).quantize(colors=16)))
for name, im in specials:
    p = os.path.join(WORK, name)
    if name == "palette_trns.png":
        im.save(p, transparency=5)
    elif name == "palette16.png":
        im.save(p, bits=4)
    else:
        im.save(p)
    images.append((p, False))

# hand-written PNGs: 16-bit RGB, 16-bit gray+alpha, 2-bit gray, palette shorter than the indices
rgb16 = rng.integers(0, 65536, size=(9, 11, 3), dtype=np.uint16).astype(">u2")
la16 = rng.integers(0, 65536, size=(6, 5, 2), dtype=np.uint16).astype(">u2")
g2 = rng.integers(0, 256, size=(7, 3), dtype=np.uint8)        # 12 pixels a row at 2 bits -> 3 bytes
pal_idx = rng.integers(0, 256, size=(10, 12), dtype=np.uint8)
for name, data in [
    ("rgb16.png", raw_png(11, 9, 16, 2, [r.tobytes() for r in rgb16])),
    ("la16.png", raw_png(5, 6, 16, 4, [r.tobytes() for r in la16])),
    ("gray2.png", raw_png(12, 7, 2, 0, [r.tobytes() for r in g2])),
    ("short_palette.png", raw_png(12, 10, 8, 3, [r.tobytes() for r in pal_idx],
                                  png_chunk(b"PLTE", bytes(rng.integers(0, 256, 3 * 40, dtype=np.uint8))))),
]:
    p = os.path.join(WORK, name)
    with open(p, "wb") as f:
        f.write(data)
    images.append((p, False))

# WebP lossless and lossy
for name, opts in [("lossless.webp", {"lossless": True}), ("lossy.webp", {"quality": 80})]:
    p = os.path.join(WORK, name)
    Image.fromarray(content(rng, 143, 97)).save(p, **opts)
    images.append((p, True))
p = os.path.join(WORK, "lossy_alpha.webp")
Image.fromarray(content(rng, 64, 40, 4), "RGBA").save(p, quality=80)
images.append((p, False))


def pillow_rgb(path):
    with Image.open(path) as im:
        return im.convert("RGB")


# ---- decode -------------------------------------------------------------------------------

for path, _ in images:
    out = os.path.join(WORK, "out.rgb")
    rc, so, se = run("decode", path, out)
    ref = np.asarray(pillow_rgb(path))
    if rc != 0:
        fail(f"decode {os.path.basename(path)}", f"tool failed: {se.strip()}")
        continue
    w, h = map(int, so.split())
    ours = np.fromfile(out, dtype=np.uint8)
    ours = ours.reshape(h, w, 3) if ours.size == w * h * 3 else ours
    counts["decode"] += 1
    if not np.array_equal(ours, ref):
        fail(f"decode {os.path.basename(path)}", first_diff(ours, ref))


# ---- resize -------------------------------------------------------------------------------

def resize_targets(w, h):
    t = {(max(1, w // 2), max(1, h // 3)), (w * 2 + 1, h + 3), (max(1, (w * 7) // 10), h * 3),
         (w, max(1, h - 1)), (w + 5, h)}
    if w * h >= 1000:
        t.add((299, 299))
    return sorted(t)


for path, use in images:
    if not use:
        continue
    src = pillow_rgb(path)
    w, h = src.size
    for tw, th in resize_targets(w, h):
        for name, mode in (("bicubic", Image.BICUBIC), ("bilinear", Image.BILINEAR)):
            out = os.path.join(WORK, "out.rgb")
            rc, so, se = run("resize", path, tw, th, name, out)
            what = f"resize {os.path.basename(path)} {w}x{h}->{tw}x{th} {name}"
            if rc != 0:
                fail(what, f"tool failed: {se.strip()}")
                continue
            ours = np.fromfile(out, dtype=np.uint8)
            ref = np.asarray(src.resize((tw, th), mode))
            ours = ours.reshape(th, tw, 3) if ours.size == tw * th * 3 else ours
            counts["resize"] += 1
            if not np.array_equal(ours, ref):
                fail(what, first_diff(ours, ref))


# ---- preprocess (timm eval transform as torchvision runs it on a PIL image) ----------------

def timm_eval(img, size, crop_pct, interp, mean, std):
    scale = math.floor(size / crop_pct)
    w, h = img.size
    short, long = (w, h) if w <= h else (h, w)
    new_short, new_long = scale, int(scale * long / short)
    nw, nh = (new_short, new_long) if w <= h else (new_long, new_short)
    if (nw, nh) != (w, h):
        img = img.resize((nw, nh), interp)
    w, h = img.size
    if size > w or size > h:   # torchvision center_crop pads with zeros first
        pl = (size - w) // 2 if size > w else 0
        pt = (size - h) // 2 if size > h else 0
        pr = (size - w + 1) // 2 if size > w else 0
        pb = (size - h + 1) // 2 if size > h else 0
        padded = Image.new("RGB", (w + pl + pr, h + pt + pb), (0, 0, 0))
        padded.paste(img, (pl, pt))
        img = padded
        w, h = img.size
    top = int(round((h - size) / 2.0))
    left = int(round((w - size) / 2.0))
    img = img.crop((left, top, left + size, top + size))
    a = np.asarray(img, dtype=np.uint8).astype(np.float32).transpose(2, 0, 1)
    a = a / np.float32(255)
    a = a - np.array(mean, dtype=np.float32)[:, None, None]
    a = a / np.array(std, dtype=np.float32)[:, None, None]
    return a


CONFIGS = [
    (299, "0.8975", "bicubic", (0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
    (299, "0.875", "bicubic", (0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
    (224, "0.875", "bilinear", (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
    (64, "1.15", "bicubic", (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),   # pads: S = 55 < 64
    (65, "1.0", "bilinear", (0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
    (240, "0.8", "bilinear", (0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),   # 240 / 0.8 = 300, not 299 (float32 0.8)
]
for path, _ in images:
    src = pillow_rgb(path)
    for size, cp, name, mean, std in CONFIGS:
        if size not in (299, 64) and src.size[0] * src.size[1] > 200000:
            continue
        out = os.path.join(WORK, "out.f32")
        rc, so, se = run("preprocess", path, size, cp, name, ",".join(map(str, mean)), ",".join(map(str, std)), out)
        what = f"preprocess {os.path.basename(path)} {src.size} size {size} crop_pct {cp} {name}"
        if rc != 0:
            fail(what, f"tool failed: {se.strip()}")
            continue
        ours = np.fromfile(out, dtype=np.float32)
        ref = timm_eval(src, size, float(cp), Image.BICUBIC if name == "bicubic" else Image.BILINEAR, mean, std)
        ours = ours.reshape(ref.shape) if ours.size == ref.size else ours
        counts["preprocess"] += 1
        if not np.array_equal(ours, ref):
            fail(what, first_diff(ours, ref))

# the documented scale sizes
assert math.floor(299 / 0.8975) == 333 and math.floor(299 / 0.875) == 341

# ---- generated images ---------------------------------------------------------------------

gens = []
for seed, (w, h) in [(1, (96, 64)), (2, (64, 96)), (12345, (37, 23))]:
    p = os.path.join(WORK, f"gen_{seed}.png")
    rc, so, se = run("generate", seed, w, h, p)
    if rc != 0:
        fail(f"generate {seed}", se.strip())
        continue
    ref = np.asarray(pillow_rgb(p))
    out = os.path.join(WORK, "out.rgb")
    rc, so, se = run("decode", p, out)
    ours = np.fromfile(out, dtype=np.uint8)
    ours = ours.reshape(ref.shape) if ours.size == ref.size else ours
    counts["generate"] += 1
    if rc != 0 or not np.array_equal(ours, ref) or ref.shape != (h, w, 3):
        fail(f"generate {seed}", "decoded generated PNG differs from Pillow's")
    gens.append(ref)
if len(gens) >= 2 and np.abs(gens[0][:64, :64].astype(int) - gens[1][:64, :64].astype(int)).mean() < 10:
    fail("generate", "seeds 1 and 2 give nearly identical images")

# ---- errors: corrupt files fail cleanly ----------------------------------------------------

jpeg_bytes = open(os.path.join(WORK, "jpeg_0.jpg"), "rb").read()
png_bytes = open(images[7][0], "rb").read()
for name, data, want in [("trunc.jpg", jpeg_bytes[: len(jpeg_bytes) // 2], "truncated"),
                         ("trunc.png", png_bytes[: len(png_bytes) // 2], "PNG"),
                         ("garbage.bin", b"hello, this is not an image", "unknown image format")]:
    p = os.path.join(WORK, name)
    with open(p, "wb") as f:
        f.write(data)
    rc, so, se = run("decode", p, os.path.join(WORK, "out.rgb"))
    counts["errors"] += 1
    if rc != 1 or want not in se or name not in se:
        fail(f"error {name}", f"rc {rc}, stderr {se.strip()!r}")

print(f"pillow parity: {len(images)} images; decode {counts['decode']}, resize {counts['resize']}, "
      f"preprocess {counts['preprocess']}, generate {counts['generate']}, error cases {counts['errors']}; "
      f"{len(failures)} mismatches")
sys.exit(1 if failures else 0)
