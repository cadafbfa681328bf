#!/usr/bin/env python3
"""bench/fp8_bench_summary.py on two made-up device calls with hand-computed figures: the row
(named by its call and step, so an A/B's two runs of one model tell apart) paired with the torch.compile of its own call, else of the last call that has one, the ratios (median / median, torch min / infer8
max), the profile, the convs per layer type, which graph each tuning line is, the tests' times,
--shapes' grouping of a per-conv table; malformed input (the file named, exit status 1).
Env: WORK (scratch), SRC (source root)."""
import json, os, shutil, subprocess, sys

SRC = os.environ.get("SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.environ.get("WORK", "/tmp/test_fp8_bench_summary")
SCRIPT = os.path.join(SRC, "bench", "fp8_bench_summary.py")
shutil.rmtree(WORK, ignore_errors=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


a, b = os.path.join(WORK, "callA"), os.path.join(WORK, "callB")
write(os.path.join(a, "irv2-b32", "fp8_bench.md"),
      "| model | recipe | batch | fp16 ms median (min-max) | fp8 ms | x | convs | memory |\n"
      "| inception_resnet_v2 | default | 32 | 2.000 (1.900-2.500) | 1.600 (1.500-1.700) | 1.250 | ... | ... |\n"
      "  profile fp8 b32 (isolated nodes, sum 1.500 ms): conv-fp8 1.000 conv-fp16 0.300 maxpool 0.200\n"
      "  per layer b32: 1x1 + residual  40 convs ( 39 FP8): fp16 1.034 ms, fp8 graph 0.738 ms, x 1.40; tuned 1.0 / 0.7 ms, x 1.4\n")
# three FP8 convs of two shapes and one fp16 conv (left out): 7x1 160->192 twice (fp16 0.013 + 0.012,
# FP8 0.012 + 0.014 on two kernels), 1x1 384->1088 with a residual once
COLS = "node\tname\tkh\tkw\tstride\tc_in\tc_out\th\tw\tresidual\tprecision\tfp16_ms\tfp8_ms\tfp16_tactic\tfp8_tactic\tfp8_variant\n"
write(os.path.join(a, "irv2-b32", "fp8-layers-x-b32.tsv"), COLS +
      "1\tstem\t3\t3\t2\t3\t32\t149\t149\t0\tfp16\t0.066\t0.066\tcuDNN\tcuDNN\t0\n"
      "2\ta\t7\t1\t1\t160\t192\t17\t17\t0\tfp8\t0.013\t0.012\tcuDNN\town fp8\t56\n"
      "3\tb\t7\t1\t1\t160\t192\t17\t17\t0\tfp8\t0.012\t0.014\tcuDNN\town fp8\t57\n"
      "4\tc\t1\t1\t1\t384\t1088\t17\t17\t1\tfp8\t0.030\t0.020\tcuDNN\town fp8\t53\n")
write(os.path.join(a, "irv2-b32", "fp8_bench.log"),
      "cuda: batch 32: 39 conv problems tuned in 12.5 s; cuDNN budget 60 s not spent, 0 fp16 problems after it\n"
      "cuda: batch 32: graph 2.0 ms\n"
      "cuda: batch 32: 41 conv problems tuned in 70.0 s; cuDNN budget 60 s spent, 0 fp16 problems after it\n")
write(os.path.join(a, "fp8_small.times"),
      "0 [ RUN      ] test_one\n7 [       OK ] test_one\n7 [ RUN      ] test_two\n9 [       OK ] test_two\n")
write(os.path.join(b, "peers-inception_resnet_v2.json"), json.dumps([
    {"model": "inception_resnet_v2", "batch": 32, "mode": "compile", "median_ms": 4.0, "min_ms": 3.8, "max_ms": 4.4},
    {"model": "inception_resnet_v2", "batch": 32, "mode": "graph", "median_ms": 8.0, "min_ms": 7.9, "max_ms": 8.1}]))

p = run(a, b)
assert p.returncode == 0, p.stderr
out = p.stdout
# fp16 vs compile 4.0 / 2.0 = 2.00; torch min / infer8 max 3.8 / 2.5 = 1.52; FP8 4.0 / 1.6 = 2.50
want = ("| callA/irv2-b32 | inception_resnet_v2 | 32 | 2.000 [1.900, 2.500] | 1.600 [1.500, 1.700] | 1.250 "
        "| 4.000 [3.800, 4.400] (callB) | 2.00 | 1.52 | 2.50 | 8.000 (callB) |")
assert want in out, out
assert "- callA/irv2-b32 fp8 b32: sum 1.500; conv-fp8 1.000, conv-fp16 0.300, maxpool 0.200" in out, out
# a third call with its own row and peer: its row takes its own call's peer (session 58's summary
# paired every row with the last call's), callA's still the last one that has one (now callC's)
c = os.path.join(WORK, "callC")
write(os.path.join(c, "irv2-b32", "fp8_bench.md"),
      "| inception_resnet_v2 | default | 32 | 2.500 (2.400-2.600) | 2.000 (1.900-2.100) | 1.250 | ... | ... |\n")
write(os.path.join(c, "peers-inception_resnet_v2.json"), json.dumps([
    {"model": "inception_resnet_v2", "batch": 32, "mode": "compile", "median_ms": 5.0, "min_ms": 4.8, "max_ms": 5.2}]))
p3 = run(a, c, b)
assert p3.returncode == 0, p3.stderr
# callC: 5.0 / 2.5 = 2.00, 4.8 / 2.6 = 1.85, 5.0 / 2.0 = 2.50; callA: callB's (listed last) 4.0
assert ("| callC/irv2-b32 | inception_resnet_v2 | 32 | 2.500 [2.400, 2.600] | 2.000 [1.900, 2.100] | 1.250 "
        "| 5.000 [4.800, 5.200] (callC) | 2.00 | 1.85 | 2.50 | 8.000 (callB) |") in p3.stdout, p3.stdout
assert "| 4.000 [3.800, 4.400] (callB) | 2.00 | 1.52 | 2.50 | 8.000 (callB) |" in p3.stdout, p3.stdout
assert "- callA/irv2-b32 b32 1x1 + residual: 40 convs (39 FP8), fp16 1.034 / FP8 graph 0.738, x 1.40" in out, out
assert "by shape" not in out, out  # only with --shapes
assert "- callA/irv2-b32 batch 32 fp16: 39 problems in 12.5 s, cuDNN budget 60 s not spent" in out, out
assert "- callA/irv2-b32 batch 32 FP8: 41 problems in 70.0 s, cuDNN budget 60 s spent" in out, out
assert "- callA/fp8_small: 9" in out, out
assert out.index("- 7 test_one (callA/fp8_small)") < out.index("- 2 test_two (callA/fp8_small)"), out

# --shapes: slowest FP8 group first; 0.025 / 0.026 = 0.96, 12.0-14.0 us, each kernel counted
p = run("--shapes", a, b)
assert p.returncode == 0, p.stderr
lines = p.stdout.splitlines()
i = lines.index("| 7x1 s1 @17x17 160->192 | 2 | 0.025 | 0.026 | 0.96 | 12.0-14.0 | own fp8 56 x1, own fp8 57 x1 |")
assert lines[i + 1] == "| 1x1 s1 @17x17 384->1088 +res | 1 | 0.030 | 0.020 | 1.50 | 20.0-20.0 | own fp8 53 x1 |", p.stdout
assert "stem" not in p.stdout and "149" not in p.stdout, p.stdout
write(os.path.join(b, "irv2-b1", "fp8-layers-x-b1.tsv"), "node\tname\tkh\n1\tx\t1\n")
p = run("--shapes", a, b)
assert p.returncode == 1 and "fp8-layers-x-b1.tsv" in p.stderr and "Traceback" not in p.stderr, p.stderr
write(os.path.join(b, "irv2-b1", "fp8-layers-x-b1.tsv"), COLS + "1\ta\t7\tone\t1\t160\t192\t17\t17\t0\tfp8\t1\t1\tc\tc\t1\n")
p = run("--shapes", a, b)
assert p.returncode == 1 and "fp8-layers-x-b1.tsv:2" in p.stderr and "Traceback" not in p.stderr, p.stderr
shutil.rmtree(os.path.join(b, "irv2-b1"))

# a log packed by tools/pack-logs (fp8_bench.log.xz) reads the same; a damaged one is named
import lzma
log = os.path.join(a, "irv2-b32", "fp8_bench.log")
with open(log, "rb") as f, lzma.open(log + ".xz", "wb") as g:
    g.write(f.read())
os.remove(log)
p = run(a, b)
assert p.returncode == 0, p.stderr
assert "- callA/irv2-b32 batch 32 fp16: 39 problems in 12.5 s, cuDNN budget 60 s not spent" in p.stdout, p.stdout
assert "- callA/irv2-b32 batch 32 FP8: 41 problems in 70.0 s, cuDNN budget 60 s spent" in p.stdout, p.stdout
with open(log + ".xz", "rb") as f:
    packed = f.read()
with open(log + ".xz", "wb") as f:
    f.write(packed[: len(packed) // 2])
p = run(a, b)
assert p.returncode == 1 and "fp8_bench.log.xz" in p.stderr and "Traceback" not in p.stderr, p.stderr
os.remove(log + ".xz")

# --labs: fp8_lab's timed kernels from lab-*.txt, one row each under its ### run (a timing line
# before any ### is no run's and left out; the check word is the line's last); a call without
# issue-5 rows is fine; none at all: exit 1 naming what was looked for
lab_dir = os.path.join(WORK, "callL")
write(os.path.join(lab_dir, "lab-halo.txt"),
      "  q->dual       halo64x32   k1    99.00 us  stray line  ok\n"
      "### Block35 3x3 32->48 @35 b32 FP8_LAB_VARIANT=58,60\n"
      "device NVIDIA H100 80GB HBM3, 132 SMs\n"
      "  q->dual       halo64x32   k1    14.99 us  fp16 rel 4.83e-04  e4m3 codes differing 0.1715% (far 191, |v| <= 5.9e-04 of max)  ok\n"
      "  q->dual       best: halo128x32 k1 13.46 us\n"
      "### Block35 3x3 48->64 @35 b32 FP8_LAB_HALO_PREFETCH=3\n"
      "  fp16          wmma64x64   k2    21.38 us  fp16 rel 2.00e-01  WRONG\n")
p = run("--labs", lab_dir)
assert p.returncode == 0, p.stderr
assert p.stdout.splitlines()[2:] == [
    "| callL/lab-halo | Block35 3x3 32->48 @35 b32 FP8_LAB_VARIANT=58,60 | q->dual | halo64x32 | 1 | 14.99 | ok |",
    "| callL/lab-halo | Block35 3x3 48->64 @35 b32 FP8_LAB_HALO_PREFETCH=3 | fp16 | wmma64x64 | 2 | 21.38 | WRONG |"], p.stdout
p = run("--labs", a)
assert p.returncode == 1 and "no kernel-lab runs" in p.stderr, p.stderr

# without the peer's call: the row says so
p = run(a)
assert p.returncode == 0 and "| not measured | - | - | - |" in p.stdout, p.stdout + p.stderr

# malformed input: the file named, exit status 1, no traceback
write(os.path.join(b, "peers-bad.json"), "{not json")
p = run(a, b)
assert p.returncode == 1 and "peers-bad.json" in p.stderr and "Traceback" not in p.stderr, p.stderr
os.remove(os.path.join(b, "peers-bad.json"))
write(os.path.join(a, "broken.times"), "0 [ RUN      ] t\nseven [       OK ] t\n")
p = run(a, b)
assert p.returncode == 1 and "broken.times:2" in p.stderr, p.stderr
p = run(os.path.join(WORK, "empty"))
assert p.returncode == 1 and "no issue-5 rows" in p.stderr, p.stderr
p = run()
assert p.returncode == 1 and "Usage" in p.stderr, p.stderr
print("test_fp8_bench_summary: ok")
