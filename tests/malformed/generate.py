#!/usr/bin/env python3
"""Writes the malformed-input corpus (tests/malformed/) and its MANIFEST from small valid
inputs made by the project (fuzz/make-seeds.sh output). Each file is damaged in one way; the
MANIFEST line says which CLI command reads it and what the error message must mention.
Usage: generate.py SEEDS_DIR OUT_DIR.  The files are committed; rerun only to extend it.

MANIFEST format (tab-separated): file  kind  regex
  kind st      infer8 inspect FILE --arch inception_v3          (bare .safetensors)
  kind config  infer8 inspect DIR  (DIR holds FILE as config.json + an empty model.safetensors)
  kind image   infer8 preprocess SNAPSHOT --image FILE -o out.npy --max-image-pixels 1048576
  kind scales  infer8 classify SNAPSHOT --precision fp8 --scales FILE --image ok.png
  kind bundle  infer8 inspect FILE
  kind recipe  infer8 recipe SNAPSHOT --recipe FILE                (SNAPSHOT: synth inception_v3)
"""
import json, os, struct, sys, zlib

seeds, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
manifest = []

def put(name, data, kind, regex):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
    manifest.append(f"{name}\t{kind}\t{regex}")

# ---- safetensors (bare file, --arch inception_v3; the damage is met before any big tensor) ----
def st(header, data=b"", raw_header=None, hlen=None):
    h = raw_header if raw_header is not None else json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h) if hlen is None else hlen) + h + data

K = "Conv2d_1a_3x3.conv.weight"
def t(dtype, shape, off):
    return {"dtype": dtype, "shape": shape, "data_offsets": off}

put("st_empty.safetensors", b"", "st", "(too short|8 bytes|empty|header length)")
put("st_short.safetensors", b"\x10\x00\x00", "st", "(too short|8 bytes|header length)")
put("st_header_beyond_file.safetensors", struct.pack("<Q", 4096) + b'{"a":1}', "st", "header.*(beyond|past|exceeds|larger|end)")
put("st_header_huge.safetensors", struct.pack("<Q", 1 << 62) + b"{}      ", "st", "header.*(limit|beyond|past|exceeds|larger)")
put("st_header_not_json.safetensors", st(None, raw_header=b"{not json"), "st", "(JSON|json|offset)")
put("st_header_not_object.safetensors", st([1, 2, 3]), "st", "(object|JSON)")
put("st_header_truncated_json.safetensors", st(None, raw_header=b'{"' + K.encode() + b'":{"dtype":"F32","sha'), "st", "(JSON|json|offset)")
put("st_negative_offset.safetensors", st({K: t("F32", [1], [-4, 0])}, b"\0" * 8), "st", "data_offsets")
put("st_begin_after_end.safetensors", st({K: t("F32", [1], [8, 4])}, b"\0" * 8), "st", "data_offsets")
put("st_offset_past_end.safetensors", st({K: t("F32", [2], [0, 8])}, b"\0" * 4), "st", "(data_offsets|beyond|past|end)")
put("st_offset_huge.safetensors", st({K: t("F32", [1], [18446744073709551612, 18446744073709551616])}, b"\0" * 8), "st", "data_offsets")
put("st_overlap.safetensors", st({"a.weight": t("F32", [2], [0, 8]), "b.weight": t("F32", [2], [4, 12])}, b"\0" * 12), "st", "overlap")
put("st_bytes_mismatch.safetensors", st({K: t("F32", [2, 2], [0, 8])}, b"\0" * 16), "st", "(bytes|size|elements)")
put("st_bad_dtype.safetensors", st({K: t("F9", [1], [0, 4])}, b"\0" * 4), "st", "dtype")
put("st_negative_shape.safetensors", st({K: t("F32", [-1, 4], [0, 16])}, b"\0" * 16), "st", "shape")
put("st_float_shape.safetensors", st({K: t("F32", [1.5], [0, 4])}, b"\0" * 4), "st", "shape")
put("st_rank9.safetensors", st({K: t("F32", [1] * 9, [0, 4])}, b"\0" * 4), "st", "(rank|shape)")
put("st_shape_overflow.safetensors", st({K: t("F32", [1 << 40, 1 << 40], [0, 4])}, b"\0" * 4), "st", "(shape|overflow|elements)")
put("st_missing_fields.safetensors", st({K: {"dtype": "F32"}}), "st", "(shape|data_offsets)")
put("st_wrong_field_type.safetensors", st({K: t(7, [1], [0, 4])}, b"\0" * 4), "st", "dtype")
dup = (b'{"' + K.encode() + b'":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"' + K.encode()
       + b'":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}')
put("st_duplicate_key.safetensors", st(None, b"\0" * 8, raw_header=dup), "st", "(duplicate|twice)")
put("st_non_utf8_name.safetensors", st(None, b"\0" * 4, raw_header=b'{"conv\xff\xfe.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'),
    "st", "(UTF-8|utf-8|utf8)")
# NaN / Inf weights: the family asks for the stem conv first, so one tensor is enough
w = [0.01 * ((i % 13) - 6) for i in range(32 * 3 * 3 * 3)]
wn = list(w); wn[5] = float("nan")
put("st_nan_weight.safetensors", st({K: t("F32", [32, 3, 3, 3], [0, 3456])}, struct.pack("<864f", *wn)), "st",
    f"{K}.*NaN.*element 5")
wi = struct.pack("<864e", *w)
wi = wi[:2 * 700] + struct.pack("<H", 0xFC00) + wi[2 * 701:]  # -Inf in F16
put("st_inf_weight_f16.safetensors", st({K: t("F16", [32, 3, 3, 3], [0, 1728])}, wi), "st", f"{K}.*Inf.*element 700")

# ---- config.json (wrong types, wrong JSON) ----
good_cfg = json.load(open(os.path.join(seeds, "config", "inception_v3.json")))
def cfg(name, mutate, regex):
    c = json.loads(json.dumps(good_cfg))
    mutate(c)
    put(name, json.dumps(c, indent=2).encode(), "config", regex)
cfg("config_num_classes_string.json", lambda c: c.update(num_classes="1000"), "num_classes")
cfg("config_input_size_type.json", lambda c: c["pretrained_cfg"].update(input_size=[3, "299", 299]), "input_size")
cfg("config_input_size_zero.json", lambda c: c["pretrained_cfg"].update(input_size=[3, 0, 0]), "input_size")
cfg("config_crop_pct_string.json", lambda c: c["pretrained_cfg"].update(crop_pct="0.875"), "crop_pct")
cfg("config_mean_short.json", lambda c: c["pretrained_cfg"].update(mean=[0.5, 0.5]), "mean")
cfg("config_std_zero.json", lambda c: c["pretrained_cfg"].update(std=[0.5, 0.0, 0.5]), "std")
cfg("config_labels_not_strings.json", lambda c: c.update(label_names=[1, 2, 3, 4]), "label_names")
cfg("config_labels_count.json", lambda c: c.update(label_names=["a"]), "label_names")
cfg("config_architecture_number.json", lambda c: c.update(architecture=3), "architecture")
cfg("config_pretrained_cfg_list.json", lambda c: c.update(pretrained_cfg=[1]), "pretrained_cfg")
put("config_not_json.json", b'{"architecture": "inception_v3", ', "config", "(JSON|offset|byte)")
put("config_trailing.json", json.dumps(good_cfg).encode() + b" xyz", "config", "(trailing|offset|byte)")
put("config_array.json", b"[1, 2]", "config", "(object|JSON)")
put("config_empty.json", b"", "config", "(empty|JSON|offset|byte)")
put("config_non_utf8.json", b'{"architecture": "inception_v3", "num_classes": 1, "label_names": ["\xff"]}', "config", "(UTF-8|utf-8|JSON|label)")

# ---- images (truncated, corrupted, zero-size, bombs) ----
def seed(name):
    return open(os.path.join(seeds, "image", name), "rb").read()
png, jpg, webp = seed("gen_4_64x48.p"), seed("gen_4_64x48.j"), seed("gen_4_64x48.w")
put("img_empty.png", b"", "image", "(empty|zero|0 bytes|not a|unknown|format)")
put("img_not_image.jpg", b"hello, world: not an image\n", "image", "(not a|unknown|format|JPEG|recogni)")
put("img_truncated.png", png[:len(png) // 2], "image", "(truncat|PNG|png|corrupt|end)")
put("img_truncated.jpg", jpg[:len(jpg) // 2], "image", "(truncat|JPEG|jpeg|corrupt|premature|end)")
put("img_truncated.webp", webp[:len(webp) // 2], "image", "(truncat|WebP|webp|corrupt|end)")
put("img_magic_only.png", png[:8], "image", "(truncat|PNG|png|corrupt|end)")
put("img_magic_only.jpg", jpg[:3], "image", "(truncat|JPEG|jpeg|corrupt|end|not a|unknown)")
put("img_magic_only.webp", webp[:12], "image", "(truncat|WebP|webp|corrupt|end)")
def flip(data, start_frac):
    b = bytearray(data)
    for i in range(int(len(b) * start_frac), len(b), 7):
        b[i] ^= 0x5A
    return bytes(b)
put("img_corrupt.png", flip(png, 0.3), "image", "(PNG|png|CRC|crc|corrupt|invalid)")
# lossless WebP has no checksum (flipped data may still decode): break the VP8L signature byte
wb = bytearray(webp); k = wb.find(b"VP8L"); wb[k + 8] = 0x00
put("img_corrupt.webp", bytes(wb), "image", "(WebP|webp|corrupt|invalid|decode)")
put("img_corrupt_header.jpg", jpg[:2] + flip(jpg[2:200], 0.0) + jpg[200:], "image", "(JPEG|jpeg|corrupt|invalid|marker|Bogus|Unsupported)")
def png_chunk(typ, body):
    return struct.pack(">I", len(body)) + typ + body + struct.pack(">I", zlib.crc32(typ + body) & 0xFFFFFFFF)
def png_ihdr(w, h, rest=b""):
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + rest
put("img_zero_width.png", png_ihdr(0, 48, png_chunk(b"IEND", b"")), "image", "(width|size|zero|PNG|png|dimension)")
# decompression bomb: 100000 x 100000 RGB declared, a few bytes of IDAT: refused before allocation
put("img_bomb.png", png_ihdr(100000, 100000, png_chunk(b"IDAT", zlib.compress(b"\0" * 1024)) + png_chunk(b"IEND", b"")),
    "image", "(pixels|limit)")
# JPEG: set the SOF height to 0, and both sides to 60000
j = bytearray(jpg)
i = j.find(b"\xff\xc0")
if i < 0:
    i = j.find(b"\xff\xc2")
jz = bytearray(j); jz[i + 5:i + 7] = b"\x00\x00"
put("img_zero_height.jpg", bytes(jz), "image", "(height|size|zero|JPEG|jpeg|dimension|Empty)")
jb = bytearray(j); jb[i + 5:i + 9] = b"\xea\x60\xea\x60"  # 60000 x 60000: under libjpeg's 65500 cap
put("img_bomb.jpg", bytes(jb), "image", "(pixels|limit)")
put("img_unsupported.gif", b"GIF89a\x01\x00\x01\x00\x00\x00\x00;", "image", "(not a|unknown|format|GIF|unsupported|recogni)")

# ---- scales.json (read by classify --precision fp8 --scales) ----
good_sc = json.load(open(os.path.join(seeds, "scales", "scales.json")))
def sc(name, mutate, regex):
    c = json.loads(json.dumps(good_sc))
    mutate(c)
    put(name, json.dumps(c).encode(), "scales", regex)
sc("scales_version.json", lambda c: c.update(version=99), "version")
sc("scales_scale_negative.json", lambda c: list(c["tensors"].values())[0].update(scale=-1.0), "scale")
sc("scales_amax_string.json", lambda c: list(c["tensors"].values())[0].update(amax="1"), "amax")
sc("scales_method.json", lambda c: c.update(method="magic"), "method")
sc("scales_tensors_list.json", lambda c: c.update(tensors=[1]), "tensors")
put("scales_not_json.json", b'{"format": "infer8-scales", "version": 1,', "scales", "(JSON|offset|byte)")

# ---- recipe files (read by recipe / build / classify --recipe FILE) ----
def rc(name, doc, regex):
    put(name, doc if isinstance(doc, bytes) else json.dumps(doc).encode(), "recipe", regex)
R = {"format": "infer8-recipe", "version": 1, "base": "none"}
rc("recipe_not_json.json", b'{"format": "infer8-recipe", "version": 1, "include": [', "recipe_not_json.json: malformed JSON near byte")
rc("recipe_array.json", [R], "expected a JSON object")
rc("recipe_format.json", dict(R, format="infer8-scales"), "format: expected .infer8-recipe.")
rc("recipe_no_base.json", {"format": "infer8-recipe", "version": 1}, "base: missing")
rc("recipe_base.json", dict(R, base="fp8"), "base: expected")
rc("recipe_version.json", dict(R, version=2), "version: 2 is not supported")
rc("recipe_include_number.json", dict(R, include=["Mixed_5b.*", 3]), r"include\[1\]: expected a non-empty string")
rc("recipe_exclude_empty.json", dict(R, exclude=[""]), r"exclude\[0\]: expected a non-empty string")
rc("recipe_include_nomatch.json", dict(R, include=["Mixed_5b.*", "Mixed_9z.*"]), r"include\[1\] .Mixed_9z\.\*. matches no convolution")
rc("recipe_residual_order.json", dict(R, residual_fp8=[9, 3]), r"residual_fp8: expected \[first, last\]")
rc("recipe_residual_none.json", dict(R, residual_fp8=[0, 39]), "no fused residual convolution in blocks 0..39")
rc("recipe_unknown_key.json", dict(R, exlude=["x"]), "unknown key .exlude.")

# ---- bundles: damaged copies of a tiny valid bundle (when the seed exists) ----
bpath = os.path.join(seeds, "bundle", "tiny.bundle")
if os.path.exists(bpath):
    b = open(bpath, "rb").read()
    put("bundle_truncated.bundle", b[:len(b) // 2], "bundle", "(truncat|size|short|end)")
    put("bundle_header_only.bundle", b[:64], "bundle", "(truncat|size|short|end|section)")
    bb = bytearray(b); bb[8] ^= 0xFF
    put("bundle_bad_version.bundle", bytes(bb), "bundle", "(version|checksum|header)")
    bb = bytearray(b); bb[-5] ^= 0x01
    put("bundle_payload_flip.bundle", bytes(bb), "bundle", "(checksum|XXH3|integrity|padding|corrupt)")
    bb = bytearray(b); bb[70] ^= 0x10
    put("bundle_table_flip.bundle", bytes(bb), "bundle", "(checksum|table|section|XXH3)")
    put("bundle_extra_bytes.bundle", b + b"\0" * 64, "bundle", "(size|trailing|length|truncat|extra)")
    # a whole, checksummed container that lacks the sections a model needs
    put("bundle_no_header_section.bundle", b, "bundle", "section 'header': missing")

# ---- JSON texts that are not JSON: a raw control byte inside a string (cJSON accepts it; shown,
# it would reach the terminal) or a byte that is not UTF-8. Every reader checks before parsing
# and names the byte and its offset (in the file: a safetensors header starts at byte 8). ----
put("st_header_control_byte.safetensors",
    st(None, b"\0" * 4, raw_header=b'{"conv\x1b[2J.weight":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'),
    "st", "not JSON text: control byte 0x1b at byte offset 14")
put("config_control_byte.json", b'{"architecture": "inception_v3", "num_classes": 1, "tag": "a\x1b[2Jb"}',
    "config", "config.json: not JSON text: control byte 0x1b at byte offset 60")
put("scales_control_byte.json", b'{"format": "infer8-scales\x07", "version": 1, "tensors": {}}',
    "scales", "not JSON text: control byte 0x07 at byte offset 25")
put("recipe_latin1.json", b'{"format": "infer8-recipe", "version": 1, "include": ["caf\xe9*"]}',
    "recipe", "recipe_latin1.json: not JSON text: invalid UTF-8 \\(byte 0xe9\\) at byte offset 58")

with open(os.path.join(out, "MANIFEST"), "w") as f:
    f.write("# generated by generate.py: file<TAB>kind<TAB>regex the error message must match\n")
    f.write("\n".join(manifest) + "\n")
print(f"{len(manifest)} malformed inputs in {out}")
