#!/usr/bin/env python3
"""bench/cubin_opcodes.py on hand-built ELF files (the layout nvcc -cubin writes: 16-byte
instructions in .text.<kernel> sections, the opcode in the low 12 bits of each first 8 bytes) and
a hand-made Nsight Compute listing: learn maps the codes to the listing's opcodes and count gives
them back per kernel ('?' for codes the map lacks); a listing of another length, a code that two
opcodes claim, a file that is not ELF, a truncated one, a section past the file's end and a
kernel name matching two kernels fail with a clear message and a non-zero exit. Then count with
the committed map bench/sass-opcodes-sm90a.json on the same words (R2UR's and QGMMA's codes).
Env: WORK (scratch), SRC (source root)."""
import gzip, json, os, struct, subprocess, sys

SRC = os.environ.get("SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.environ.get("WORK", "/tmp/test_cubin_opcodes")
SCRIPT = os.path.join(SRC, "bench", "cubin_opcodes.py")
os.makedirs(WORK, exist_ok=True)


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def instr(code, rest=0):
    """one 16-byte instruction: code in the low 12 bits, other bits set to show they are ignored"""
    return struct.pack("<QQ", (rest << 12) | code, 0xDEADBEEF)


def elf(path, sections, truncate=None, bad_offset=False):
    """a minimal ELF64 file: null section, the name table, then the given (name, bytes) sections"""
    names = b"\0.shstrtab\0" + b"".join(n.encode() + b"\0" for n, _ in sections)
    body, offs, pos = b"", [], 64
    for _, data in sections:
        offs.append(pos + len(body))
        body += data
    str_off = pos + len(body)
    body += names
    shoff = pos + len(body)
    heads = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
             struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, str_off, len(names), 0, 0, 1, 0)]
    name_at = 11
    for (n, data), off in zip(sections, offs):
        heads.append(struct.pack("<IIQQQQIIQQ", name_at, 1, 6, 0, off + (1 << 20 if bad_offset else 0), len(data),
                                 0, 0, 16, 0))
        name_at += len(n) + 1
    hdr = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 2, 190, 1, 0, 0, shoff, 0, 64, 0, 0,
                                                                 64, len(heads), 1)
    blob = hdr + body + b"".join(heads)
    with open(path, "wb") as f:
        f.write(blob[:truncate] if truncate else blob)


# codes: 0x10 -> IMAD, 0x20 -> QGMMA, 0x30 -> R2UR, 0x40 -> EXIT
kernel_a = [instr(0x10, 1), instr(0x30, 2), instr(0x20, 3), instr(0x30, 4), instr(0x40, 5)]
listing = ["      IMAD R1, R2, R3, R4", "      R2UR UR4, R2", "      QGMMA.64x64x32.F32.E4M3.E4M3 R24, gdesc[UR4], RZ",
           "@P0   R2UR UR6, R3", "      EXIT"]
kernel_b = [instr(0x30), instr(0x99), instr(0x10), instr(0x40)]  # 0x99: not in the map
cubin = os.path.join(WORK, "k.cubin")
elf(cubin, [(".text._Z1av", b"".join(kernel_a)), (".nv.info", b"\0" * 8), (".text._Z1bv", b"".join(kernel_b))])


def write_listing(path, lines):
    head = '"Kernel Name","a(void)",\n"Address","Source","Instructions Executed"\n'
    with gzip.open(path, "wt") as f:
        f.write(head + "".join(f'"0x{16 * i:x}","{s}","1"\n' for i, s in enumerate(lines)))


lst = os.path.join(WORK, "a-sass.csv.gz")
write_listing(lst, listing)
mp = os.path.join(WORK, "map.json")
p = run("learn", cubin, "_Z1a", lst, "-o", mp)
check(p.returncode == 0, f"learn: exit {p.returncode}: {p.stderr}")
check(p.stdout.startswith("4 opcodes from 5 instructions of _Z1av"), f"learn said {p.stdout!r}")
doc = json.load(open(mp))
check(doc["opcodes"] == {"0x010": "IMAD", "0x020": "QGMMA", "0x030": "R2UR", "0x040": "EXIT"}, f"map {doc['opcodes']}")

p = run("count", mp, cubin, "--opcodes", "R2UR,QGMMA,IMAD,?")
check(p.returncode == 0, f"count: exit {p.returncode}: {p.stderr}")
out = p.stdout.splitlines()
check(out == ["_Z1av: 5 instructions; R2UR 2, QGMMA 1, IMAD 1, ? 0",
              "_Z1bv: 4 instructions; R2UR 1, QGMMA 0, IMAD 1, ? 1"], f"count printed {out}")
p = run("count", mp, cubin, "--kernel", "_Z1b")
check(p.returncode == 0 and p.stdout.splitlines()[0].startswith("_Z1bv: 4 instructions;"), f"--kernel: {p.stdout!r}")


def fails(args, needle, what):
    p = run(*args)
    check(p.returncode != 0, f"{what}: exit 0")
    check(needle in p.stderr, f"{what}: stderr {p.stderr!r} lacks {needle!r}")
    check("Traceback" not in p.stderr, f"{what}: a traceback instead of a message")


short = os.path.join(WORK, "short-sass.csv.gz")
write_listing(short, listing[:4])
fails(["learn", cubin, "_Z1a", short, "-o", os.path.join(WORK, "x.json")], "not the same build", "listing of another length")
clash = os.path.join(WORK, "clash-sass.csv.gz")
write_listing(clash, listing[:3] + ["      LOP3 R1, R2, R3, R4", "      EXIT"])  # 0x30 is R2UR at 1, LOP3 at 3
fails(["learn", cubin, "_Z1a", clash, "-o", os.path.join(WORK, "x.json")], "is not the opcode here", "one code, two opcodes")
fails(["learn", cubin, "_Z1", lst, "-o", os.path.join(WORK, "x.json")], "2 kernels match", "ambiguous kernel")
check(not os.path.exists(os.path.join(WORK, "x.json")), "a failed learn wrote its output")
notelf = os.path.join(WORK, "not.cubin")
with open(notelf, "wb") as f:
    f.write(b"#!/bin/sh\n" * 10)
fails(["count", mp, notelf], "not a 64-bit little-endian ELF", "not ELF")
trunc = os.path.join(WORK, "trunc.cubin")
elf(trunc, [(".text._Z1av", b"".join(kernel_a))], truncate=100)
fails(["count", mp, trunc], "outside the file", "truncated file")
far = os.path.join(WORK, "far.cubin")
elf(far, [(".text._Z1av", b"".join(kernel_a))], bad_offset=True)
fails(["count", mp, far], "outside the file", "section past the end")
bad_map = os.path.join(WORK, "bad-map.json")
with open(bad_map, "w") as f:
    f.write('{"opcodes": 3}')
fails(["count", bad_map, cubin], "not an opcode map", "bad map")

# the committed map: learned from session 31's tma128x64s4pr (bench/results/fp8-layers-session32/)
real = json.load(open(os.path.join(SRC, "bench", "sass-opcodes-sm90a.json")))["opcodes"]
by_name = {v: int(k, 16) for k, v in real.items()}
check(len(real) == 79 and {"R2UR", "QGMMA", "LDSM", "F2FP", "UTMALDG", "SYNCS"} <= set(by_name), "committed map")
real_cubin = os.path.join(WORK, "real.cubin")
elf(real_cubin, [(".text._Z1rv", b"".join(instr(by_name[o], 7) for o in ["R2UR", "R2UR", "QGMMA", "LDSM"]))])
p = run("count", os.path.join(SRC, "bench", "sass-opcodes-sm90a.json"), real_cubin, "--opcodes", "R2UR,QGMMA,LDSM")
check(p.stdout.strip() == "_Z1rv: 4 instructions; R2UR 2, QGMMA 1, LDSM 1", f"committed map count: {p.stdout!r}")
print("ok: learn, count, and 8 kinds of bad input")
