#!/usr/bin/env python3
"""bench/fp8_roofline.py on hand-computed cases: a compute-bound and a memory-bound conv, a
residual conv, a conv kept in fp16, and malformed input (clear error, exit status 1).
Env: WORK (scratch), SRC (source root)."""
import json, os, subprocess, sys

SRC = os.environ.get("SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.environ.get("WORK", "/tmp/test_fp8_roofline")
SCRIPT = os.path.join(SRC, "bench", "fp8_roofline.py")
os.makedirs(WORK, exist_ok=True)
HEAD = "node\tname\tkh\tkw\tstride\tc_in\tc_out\th\tw\tresidual\tprecision\tfp16_ms\tfp8_ms\tfp16_tactic\tfp8_tactic\tfp8_variant\n"
# unit peaks make the arithmetic readable: 1 byte/s, 1 FLOP/s (fp16), 2 FLOP/s (FP8)
PEAKS = ["--bw", "1", "--fp16", "1", "--fp8", "2"]


def run(*rows, name="fp8-layers-test-b2.tsv", head=HEAD, as_json=True, extra=()):
    """the script on a TSV of rows: (process, its JSON or None); as_json=False: the table"""
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(head + "".join(rows))
    p = subprocess.run([sys.executable, SCRIPT, *PEAKS, *(["--json"] if as_json else []), *extra, path],
                       capture_output=True, text=True)
    return p, (json.loads(p.stdout) if p.returncode == 0 and as_json else None)


def row(kh, c_in, c_out, hw, res, prec, t16, t8, stride=1):
    return f"1\tc\t{kh}\t{kh}\t{stride}\t{c_in}\t{c_out}\t{hw}\t{hw}\t{res}\t{prec}\t{t16}\t{t8}\tcuDNN\tcuDNN\t0\n"


def close(a, b):
    assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), (a, b)


# 3x3, 64 -> 64 at 4x4, batch 2: M = 32 pixels, K = 576, FLOPs = 2*32*576*64 = 2359296
# fp16 bytes: in 32*64*2 = 4096, w 64*576*2 = 73728, out 4096 -> 81920; compute-bound:
#   fp16 2359296 s, FP8 1179648 s (bytes 40960) -> bound x 2.0
p, r = run(row(3, 64, 64, 4, 0, "fp8", 1000, 800))
assert p.returncode == 0, p.stderr
close(r["roofline_fp16_ms"], 2359296e3)
close(r["roofline_fp8_ms"], 1179648e3)
close(r["bound_x"], 2.0)
close(r["measured_x"], 1000 / 800)
close(r["efficiency_fp16"], 2359296e3 / 1000)

# the same 1x1 with a fused residual, 1 -> 1 channel at 100x100, batch 2: M = 20000, FLOPs 40000
# fp16 bytes: in 40000 + w 2 + out 40000 + residual 40000 = 120002 -> memory-bound
# FP8 bytes: in 20000 + w 1 + out e4m3 20000 + fp16 residual read and fp16 write 80000 = 120001
p, r = run(row(1, 1, 1, 100, 1, "fp8", 1, 1))
assert p.returncode == 0, p.stderr
close(r["roofline_fp16_ms"], 120002e3)
close(r["roofline_fp8_ms"], 120001e3)

# a conv kept in fp16 costs the same in both graphs; FP8-convs bound from the FP8 conv alone
p, r = run(row(3, 64, 64, 4, 0, "fp8", 1, 1), row(3, 64, 64, 4, 0, "fp16", 1, 1))
assert p.returncode == 0, p.stderr
close(r["bound_x"], (2 * 2359296) / (2359296 + 1179648))
close(r["fp8_convs_bound_x"], 2.0)

# the latency model: floor = the fastest conv measured in either graph (8: the second conv's FP8
# time); each FP8 conv (roofline ratio 2 here) pays it plus half its fp16 time above it, a conv kept
# in fp16 its fp16 time: 1000 -> 8 + 992 / 2 = 504, 10 -> 8 + 2 / 2 = 9, kept 20 -> 20
p, r = run(row(3, 64, 64, 4, 0, "fp8", 1000, 800), row(3, 64, 64, 4, 0, "fp8", 10, 8),
           row(3, 64, 64, 4, 0, "fp16", 20, 21), name="fp8-layers-test-b1.tsv")
assert p.returncode == 0, p.stderr
close(r["latency_floor_us"], 8e3)
close(r["latency_model_x"], 1030 / 533)
p, _ = run(row(3, 64, 64, 4, 0, "fp8", 1000, 800), row(3, 64, 64, 4, 0, "fp8", 10, 8),
           row(3, 64, 64, 4, 0, "fp16", 20, 21), name="fp8-layers-test-b1.tsv", as_json=False)
assert p.stdout.splitlines()[-1] == ("fp8-layers-test-b1.tsv: latency model x 1.93 (each of 3 convs pays 8000.00 us, "
                                     "the fastest conv measured, and FP8 shrinks the rest by its roofline ratio)"), p.stdout
p, _ = run(row(3, 64, 64, 4, 0, "fp8", 1000, 800), as_json=False)  # batch 2: not printed
assert "latency model" not in p.stdout, p.stdout

# stride 2, valid padding: input (h - 1) * 2 + kh = 9 for a 4x4 output of a 3x3
p, r = run(row(3, 1, 1, 4, 0, "fp16", 1, 1, stride=2))
# FLOPs 2*32*9 = 576; bytes 2*(2*81*1 + 9 + 32) = 406 -> compute-bound at 576
close(r["roofline_fp16_ms"], 576e3)

# the tuner's times (TSVs since session 36): tuned x and efficiency from them; absent -> None;
# a row restored from a bundle (tuned 0) -> None, not a ratio of partial sums
HEAD_TUNED = HEAD.rstrip("\n") + "\tfp16_tuned_ms\tfp8_tuned_ms\n"
def tuned_row(t16, t8):
    return row(3, 64, 64, 4, 0, "fp8", 1000, 800).rstrip("\n") + f"\t{t16}\t{t8}\n"
p, r = run(tuned_row(500, 250), head=HEAD_TUNED)
assert p.returncode == 0, p.stderr
close(r["measured_x"], 1000 / 800)
close(r["tuned_x"], 2.0)
close(r["tuned_efficiency_fp16"], 2359296e3 / 500)
close(r["tuned_efficiency_fp8"], 1179648e3 / 250)
p, _ = run(tuned_row(500, 250), head=HEAD_TUNED, as_json=False)
assert p.returncode == 0 and "| 500.000 / 250.000 | 2.00 | " in p.stdout.splitlines()[-1], p.stdout
p, r = run(tuned_row(500, 250), tuned_row(0, 250), head=HEAD_TUNED)
assert p.returncode == 0 and r["tuned_x"] is None and r["tuned_efficiency_fp8"] is None, (p.stderr, r)
p, _ = run(tuned_row(500, 250), tuned_row(0, 250), head=HEAD_TUNED, as_json=False)
assert p.returncode == 0 and "| n/a | n/a | n/a |" in p.stdout, p.stdout
p, r = run(row(3, 64, 64, 4, 0, "fp8", 1000, 800))
assert r["tuned_x"] is None

# --detail / "detail": one FP8 conv gains 500 -> 250, one loses 300 -> 400, one conv kept in fp16
# (tuned 10 / 12, roofline 576e3 as above); profile over tuned: fp16 1000/500, 1000/300, 1/10,
# FP8 800/250, 800/400, 1/12 -> median, min, max of each
def tuned_rows():
    return (tuned_row(500, 250), tuned_row(300, 400),
            row(3, 1, 1, 4, 0, "fp16", 1, 1, stride=2).rstrip("\n") + "\t10\t12\n")
p, r = run(*tuned_rows(), head=HEAD_TUNED)
assert p.returncode == 0, p.stderr
d = r["detail"]
assert d["fp8_convs"] == 2 and d["fp8_convs_slower"] == 1 and d["fp8_convs_faster"] == 1 and d["fp16_kept_convs"] == 1, d
for got, want in zip(d["conv_tuned_ms_fp16"] + d["conv_tuned_ms_fp8"], [300, 10, 500, 250, 12, 400]):
    close(got, want)
close(d["fp8_lost_ms"], 100), close(d["fp8_gained_ms"], 250)
close(d["fp16_kept_tuned_ms"][0], 10), close(d["fp16_kept_tuned_ms"][1], 12), close(d["fp16_kept_roofline_ms"], 576e3)
for got, want in zip(d["profile_over_tuned_fp16"], [2.0, 0.1, 1000 / 300]):
    close(got, want)
for got, want in zip(d["profile_over_tuned_fp8"], [2.0, 1 / 12, 3.2]):
    close(got, want)
p, _ = run(*tuned_rows(), head=HEAD_TUNED, as_json=False, extra=["--detail"])
lines = p.stdout.splitlines()
assert p.returncode == 0 and ("of 2 FP8 convs 1 faster and 1 slower than their fp16 selves, 100000.0 us lost "
                              "against 250000.0 us gained") in lines[-9], p.stdout
assert lines[-8].endswith("one conv, tuned, fp16 graph: median 300000.00 us (10000.00-500000.00)"), lines[-8]
assert "1 convs kept in fp16: tuned 10000.0 us (fp16 graph) / 12000.0 us (FP8 graph), roofline 576000000.0 us" in lines[-6]
assert lines[-4].endswith("profile / tuned, fp8 graph: median 2.000 (0.083-3.200)"), lines[-4]
# per layer type: the two 3x3 FP8 convs (tuned 800 / 650, roofline 2 x 2359296e3 / 2 x 1179648e3)
# and the stride-2 conv kept in fp16 (10 / 12, roofline 576e3 in both); at the fp16 convs'
# efficiency the 3x3s would take 1179648e3 * 2 / (4718592e3 / 800) = 400 (< 650), the kept one 10
# (< 12): x = 810 / 410
close(d["classes"]["3x3 / 5x5"]["tuned_ms"][1], 650), close(d["classes"]["kept in fp16"]["roofline_ms"][0], 576e3)
assert d["classes"]["3x3 / 5x5"]["convs"] == 2 and d["classes"]["kept in fp16"]["convs"] == 1, d["classes"]
close(d["fp8_at_fp16_efficiency_x"], 810 / 410)
assert lines[-3].endswith("3x3 / 5x5: 2 convs, tuned 800000.0 / 650000.0 us, efficiency fp16 589824000% / FP8 362968615%"), lines[-3]
assert lines[-2].endswith("kept in fp16: 1 convs, tuned 10000.0 / 12000.0 us, efficiency fp16 5760000% / FP8 4800000%"), lines[-2]
assert lines[-1].endswith("FP8 convs at the fp16 convs' efficiency, class by class: x 1.98 on the convs"), lines[-1]
p, r = run(row(3, 64, 64, 4, 0, "fp8", 1000, 800))
assert r["detail"] is None
p, _ = run(row(3, 64, 64, 4, 0, "fp8", 1000, 800), as_json=False, extra=["--detail"])
assert p.returncode == 0 and p.stdout.splitlines()[-1].endswith("no tuner's times (a TSV before session 36, or tactics restored from a bundle)")

# malformed input: a missing column, an unreadable name, a missing file -> exit 1 with the path
bad = os.path.join(WORK, "fp8-layers-bad-b1.tsv")
with open(bad, "w") as f:
    f.write("node\tname\n1\tx\n")
p = subprocess.run([sys.executable, SCRIPT, bad], capture_output=True, text=True)
assert p.returncode == 1 and "fp8-layers-bad-b1.tsv" in p.stderr, (p.returncode, p.stderr)
p, _ = run(row(1, 1, 1, 1, 0, "fp8", 1, 1), name="layers.tsv")
assert p.returncode == 1 and "cannot read the batch" in p.stderr, p.stderr
p = subprocess.run([sys.executable, SCRIPT, os.path.join(WORK, "missing-b1.tsv")], capture_output=True, text=True)
assert p.returncode == 1 and "missing-b1.tsv" in p.stderr
print("fp8_roofline: all cases match")
