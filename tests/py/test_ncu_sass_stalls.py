#!/usr/bin/env python3
"""bench/ncu_sass_stalls.py on a hand-made Nsight Compute source-page export (totals per stall
reason, the instruction order, the mbarrier a wait loop's branch waits on), on session 30's real
export (bench/results/fp8-layers-session30/call1/ncu-53-sass.csv.gz: 2611 samples, the consumers'
full-stage wait first; with --opcodes, its epilogue's 898.2 instructions per warp and tile), and
on a file that is not such an export or bad --opcodes ranges (clear error, non-zero exit).
Env: WORK (scratch), SRC (source root)."""
import gzip, os, subprocess, sys

SRC = os.environ.get("SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
WORK = os.environ.get("WORK", "/tmp/test_ncu_sass_stalls")
SCRIPT = os.path.join(SRC, "bench", "ncu_sass_stalls.py")
os.makedirs(WORK, exist_ok=True)


def run(path, *extra):
    return subprocess.run([sys.executable, SCRIPT, path, *extra], capture_output=True, text=True)


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")


# four instructions; samples 2 + 0 + 7 + 1 = 10; long_sb 7, wait 3
head = ('"Kernel Name","k(void)",\n'
        '"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed","stall_long_sb","stall_wait",'
        '"stall_long_sb (Not Issued)"\n')
rows = ['"0x0","      IMAD R1, R2, R3, R4","2","10","0","2","0"\n',
        '"0x10","      SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [R4+URZ+0x2e458], R5","0","10","0","0","0"\n',
        '"0x20","@P0   BRA 0x0","7","10","7","0","7"\n',
        '"0x30","      EXIT","1","1","0","1","0"\n']
path = os.path.join(WORK, "hand-sass.csv.gz")
with gzip.open(path, "wt") as f:
    f.write(head + "".join(rows))
p = run(path, "--top", "2")
check(p.returncode == 0, f"hand-made export: exit {p.returncode}: {p.stderr}")
out = p.stdout.splitlines()
check(out[0] == "4 instructions, 10 stall samples", f"first line: {out[0]!r}")
check(out[1].split()[:3] == ["long_sb", "7", "70.0%"], f"first reason: {out[1]!r}")
check(out[2].split()[:3] == ["wait", "3", "30.0%"], f"second reason: {out[2]!r}")
top = [l for l in out if l.strip()[:1].isdigit() and ":" in l.split()[0]]
check(len(top) == 2, f"two instructions listed: {top}")
check(top[0].split()[0] == "2:" and "[waits: SYNCS.PHASECHK" in top[0] and "0x2e458" in top[0], f"wait loop: {top[0]!r}")
check(top[1].split()[0] == "0:" and "wait 2" in top[1], f"second instruction: {top[1]!r}")

# --opcodes: executed counts per opcode (predicate dropped), per execution of instruction 0
p = run(path, "--opcodes", "0:3", "--per", "0")
check(p.returncode == 0, f"--opcodes: exit {p.returncode}: {p.stderr}")
out = p.stdout.splitlines()
check(out[0].startswith("instructions 0..2: 3.0 executed warp instructions per execution of instruction 0, 9 stall samples"),
      f"--opcodes first line: {out[0]!r}")
ops = {l.split()[0]: l.split()[1:] for l in out[1:]}
check(set(ops) == {"IMAD", "SYNCS.PHASECHK.TRANS64.TRYWAIT", "BRA"}, f"--opcodes opcodes: {sorted(ops)}")
check(ops["BRA"] == ["1.0", "7"] and ops["IMAD"] == ["1.0", "2"], f"--opcodes counts: {ops}")
for bad_args in (["--opcodes", "3:2"], ["--opcodes", "0:9"], ["--opcodes", "x"], ["--opcodes", "0:3", "--per", "9"], ["--per", "0"]):
    p = run(path, *bad_args)
    check(p.returncode != 0 and p.stderr.strip(), f"{bad_args}: exit {p.returncode}, {p.stderr!r}")

real = os.path.join(SRC, "bench", "results", "fp8-layers-session30", "call1", "ncu-53-sass.csv.gz")
# session 31's count: the ping-pong consumer's epilogue (indices 352..2562) per warp and tile
p = run(real, "--opcodes", "352:2563", "--per", "352")
check(p.returncode == 0, f"session 30 --opcodes: exit {p.returncode}: {p.stderr}")
out = p.stdout.splitlines()
check(out[0].startswith("instructions 352..2562: 898.2 executed"), f"session 30 epilogue: {out[0]!r}")
ops = {l.split()[0]: l.split()[1] for l in out[1:]}
check(ops.get("FMNMX") == "64.0" and ops.get("HADD2.F32") == "64.0" and ops.get("FFMA") == "64.0",
      f"session 30 epilogue opcodes: {ops}")
p = run(real, "--top", "1")
check(p.returncode == 0, f"session 30 export: exit {p.returncode}: {p.stderr}")
lines = p.stdout.splitlines()
check(lines[0] == "2896 instructions, 2611 stall samples", f"session 30 totals: {lines[0]!r}")
check("[waits: SYNCS.PHASECHK" in lines[-1] and "0x2e400" in lines[-1] and lines[-1].split()[:2] == ["169:", "285"],
      f"session 30 top instruction: {lines[-1]!r}")

bad = os.path.join(WORK, "not-ncu.csv")
with open(bad, "w") as f:
    f.write("a,b\n1,2\n")
p = run(bad)
check(p.returncode != 0 and bad in p.stderr and "Address" in p.stderr, f"malformed: exit {p.returncode}, {p.stderr!r}")
print("ncu_sass_stalls: all cases match")
