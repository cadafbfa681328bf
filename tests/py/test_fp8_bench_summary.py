#!/usr/bin/env python3
"""bench/fp8_bench_summary.py on two made-up device calls with hand-computed figures: the row
paired with the torch.compile of the other call, the ratios (median / median, torch min / infer8
max), the profile, which graph each tuning line is, the tests' times; malformed input (the file
named, exit status 1). Env: WORK (scratch), SRC (source root)."""
import json, os, shutil, subprocess, sys

SRC = os.environ.get("SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.environ.get("WORK", "/tmp/test_fp8_bench_summary")
SCRIPT = os.path.join(SRC, "bench", "fp8_bench_summary.py")
shutil.rmtree(WORK, ignore_errors=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def run(*dirs):
    return subprocess.run([sys.executable, SCRIPT, *dirs], capture_output=True, text=True)


a, b = os.path.join(WORK, "callA"), os.path.join(WORK, "callB")
write(os.path.join(a, "irv2-b32", "fp8_bench.md"),
      "| model | recipe | batch | fp16 ms median (min-max) | fp8 ms | x | convs | memory |\n"
      "| inception_resnet_v2 | default | 32 | 2.000 (1.900-2.500) | 1.600 (1.500-1.700) | 1.250 | ... | ... |\n"
      "  profile fp8 b32 (isolated nodes, sum 1.500 ms): conv-fp8 1.000 conv-fp16 0.300 maxpool 0.200\n")
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
want = ("| callA | inception_resnet_v2 | 32 | 2.000 [1.900, 2.500] | 1.600 [1.500, 1.700] | 1.250 "
        "| 4.000 [3.800, 4.400] (callB) | 2.00 | 1.52 | 2.50 | 8.000 (callB) |")
assert want in out, out
assert "- callA/irv2-b32 fp8 b32: sum 1.500; conv-fp8 1.000, conv-fp16 0.300, maxpool 0.200" in out, out
assert "- callA/irv2-b32 batch 32 fp16: 39 problems in 12.5 s, cuDNN budget 60 s not spent" in out, out
assert "- callA/irv2-b32 batch 32 FP8: 41 problems in 70.0 s, cuDNN budget 60 s spent" in out, out
assert "- callA/fp8_small: 9" in out, out
assert out.index("- 7 test_one (callA/fp8_small)") < out.index("- 2 test_two (callA/fp8_small)"), out

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
