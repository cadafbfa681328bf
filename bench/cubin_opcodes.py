#!/usr/bin/env python3
"""SASS opcode counts per kernel of a cubin, where no disassembler is installed (this machine has
nvcc and ptxas but no cuobjdump or nvdisasm):
    nvcc -gencode arch=compute_90a,code=sm_90a -cubin FILE.cu -o K.cubin
    python3 bench/cubin_opcodes.py count bench/sass-opcodes-sm90a.json K.cubin [--kernel SUB] [--opcodes R2UR,QGMMA]
On sm_90 every SASS instruction is 16 bytes, and the low 12 bits of its first 8 name its opcode.
Which name goes with which code is learned once from a kernel that Nsight Compute listed, and its
cubin from the same build (the listing's instructions are the .text section's words, in order):
    python3 bench/cubin_opcodes.py learn K.cubin KERNEL_SUBSTRING K-sass.csv.gz -o MAP.json
bench/sass-opcodes-sm90a.json was learned from tma128x64s4pr (session 31's final code, be87941,
nvcc 13) and bench/results/fp8-layers-session32/s31-next-call1/ncu-b17up-53-sass.csv.gz: 79
opcodes. Codes it lacks count as '?'. Counts are static (instructions in the binary), not
executed ones; session 32 used them to see that a warp-uniform warpgroup index takes most R2UR
(descriptor moves into uniform registers) out of the TMA kernels.
Standard library only."""
import argparse
import json
import os
import signal
import struct
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_sass_stalls  # noqa: E402  (read_rows, opcode)

INSTR = 16
CODE_MASK = 0xFFF


def text_sections(path):
    """{section name: bytes} of the .text.* sections of an ELF64 little-endian file"""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit(f"{path}: not a 64-bit little-endian ELF file (a cubin from nvcc -cubin)")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shentsize < 64 or shstrndx >= shnum or shoff + shnum * shentsize > len(data):
        sys.exit(f"{path}: section headers at byte {shoff} ({shnum} of {shentsize} bytes) outside the file")
    heads = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    str_off, str_size = heads[shstrndx][4], heads[shstrndx][5]
    if str_off + str_size > len(data):
        sys.exit(f"{path}: section name table at byte {str_off} outside the file")

    def name(off):
        if off >= str_size:
            sys.exit(f"{path}: section name offset {off} outside the name table")
        end = data.find(b"\0", str_off + off, str_off + str_size)
        return data[str_off + off:end if end >= 0 else str_off + str_size].decode("ascii", "replace")

    out = {}
    for i, (nm, typ, _flags, _addr, off, size) in enumerate(heads):
        n = name(nm)
        if not n.startswith(".text."):
            continue
        if off + size > len(data):
            sys.exit(f"{path}: section {n} (index {i}) at byte {off}, {size} bytes, outside the file")
        if size % INSTR:
            sys.exit(f"{path}: section {n} is {size} bytes, not whole {INSTR}-byte instructions")
        out[n[len(".text."):]] = data[off:off + size]
    if not out:
        sys.exit(f"{path}: no .text.* sections (no kernels)")
    return out


def codes(text):
    return [int.from_bytes(text[i:i + 8], "little") & CODE_MASK for i in range(0, len(text), INSTR)]


def pick(sections, sub, path):
    hits = [k for k in sections if sub in k]
    if len(hits) != 1:
        sys.exit(f"{path}: {len(hits)} kernels match {sub!r} (need exactly one): {', '.join(sorted(hits)[:6])}")
    return hits[0]


def learn(args):
    sections = text_sections(args.cubin)
    kernel = pick(sections, args.kernel, args.cubin)
    rows = ncu_sass_stalls.read_rows(args.listing)
    cs = codes(sections[kernel])
    if len(cs) != len(rows):
        sys.exit(f"{args.listing}: {len(rows)} instructions, but {kernel} in {args.cubin} has {len(cs)}: "
                 "not the same build")
    table = {}
    for i, (c, r) in enumerate(zip(cs, rows)):
        op = ncu_sass_stalls.opcode(r["Source"]).split(".")[0]
        if table.get(c, op) != op:
            sys.exit(f"{args.listing}: instruction {i} ({op}) has code {c:#05x}, which instruction "
                     f"{cs.index(c)} gave to {table[c]}: the code field is not the opcode here")
        table[c] = op
    doc = {"learned_from": {"cubin": os.path.basename(args.cubin), "kernel": kernel,
                            "listing": os.path.basename(args.listing), "instructions": len(cs)},
           "opcodes": {f"{c:#05x}": op for c, op in sorted(table.items())}}
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, args.output)
    print(f"{len(table)} opcodes from {len(cs)} instructions of {kernel} -> {args.output}")


def load_map(path):
    try:
        with open(path) as f:
            doc = json.load(f)
        return {int(k, 16): v for k, v in doc["opcodes"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        sys.exit(f"{path}: not an opcode map written by 'learn' ({e})")


def count(args):
    table = load_map(args.map)
    sections = text_sections(args.cubin)
    want = [o for o in args.opcodes.split(",") if o] if args.opcodes else None
    kernels = sorted(k for k in sections if not args.kernel or args.kernel in k)
    if not kernels:
        sys.exit(f"{args.cubin}: no kernel matches {args.kernel!r}")
    for k in kernels:
        c = Counter(table.get(x, "?") for x in codes(sections[k]))
        shown = want or [o for o, _ in c.most_common(12)]
        print(f"{k}: {sum(c.values())} instructions; " + ", ".join(f"{o} {c[o]}" for o in shown))


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("learn", help="opcode codes from a cubin and the Nsight Compute listing of one of its kernels")
    a.add_argument("cubin")
    a.add_argument("kernel", help="a substring naming one kernel (section .text.<mangled name>)")
    a.add_argument("listing", help="ncu --page source --print-source sass --csv export (.csv or .csv.gz)")
    a.add_argument("-o", "--output", required=True)
    b = sub.add_parser("count", help="opcode counts per kernel")
    b.add_argument("map")
    b.add_argument("cubin")
    b.add_argument("--kernel", help="only kernels whose mangled name contains this")
    b.add_argument("--opcodes", help="comma-separated opcodes to show (default: the 12 most frequent)")
    args = ap.parse_args()
    learn(args) if args.cmd == "learn" else count(args)


if __name__ == "__main__":
    main()
