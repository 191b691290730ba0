"""How `traced.compile` time grows with the number of exprs (issue 17:
"compile time linear in the number of exprs up to 100k").

Writes JSON traces of N exprs on a [8, 8] float32 input that do not fuse
into each other: every third expr is a `torch.matmul(x, x)` (a contraction:
tiled, vectorized code of its own), and between them a `torch.tanh` and a
`torch.add` of the value three exprs back (elementwise: each pair fuses
into one loop; tanh keeps the values bounded). Each is loaded (`traced.load`) and compiled with
`traced.compile(m, cache=False, timing=True)` in a fresh process, which
reports the MLIR pipeline, LLVM and total seconds, the microseconds per
expr (linear growth keeps that column flat), and the process's peak RSS
after loading and after compiling. Usage:

    /usr/bin/python3 bench/compile_scale.py [--exprs 1000,3000,10000,30000,100000]

Prints a Markdown table (docs/cpu.md quotes one run).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPE = [8, 8]


def tensor_type():
    return {"tensor": {"dtype": "float32", "shape": SHAPE}}


def expr(i):
    """The i-th expr (0-based): defines x{i+1} from the values before it."""
    x, out = f"x{i}", {"name": f"x{i + 1}", "type": tensor_type()}
    kind = i % 3
    if kind == 0:
        call = ("torch.matmul", [{"node": x}, {"node": x}])
    elif kind == 1:
        call = ("torch.tanh", [{"node": x}])
    else:
        call = ("torch.add", [{"node": x}, {"node": f"x{max(i - 2, 0)}"}])
    return {"kind": "CallFunction", "func": call[0], "args": call[1],
            "kwargs": {}, "outputs": [out]}


def write_trace(path, count):
    graph = {"name": "forward",
             "inputs": [{"name": "self", "type": {"module": "M"}},
                        {"name": "x0", "type": tensor_type()}],
             "exprs": [expr(i) for i in range(count)],
             "outputs": [f"x{count}"]}
    with open(path, "w") as f:
        json.dump({"format": "traced-trace", "version": 1, "root": "M",
                   "modules": [{"name": "M", "class": "bench.M",
                                "attributes": [], "graphs": [graph]}]}, f)


CHILD = r"""
import re, resource, sys, time, numpy as np, traced
m = traced.load(sys.argv[1])
loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
c = traced.compile(m, cache=False, timing=True)
total = time.perf_counter() - start
report = c.timing_report
def stage(pattern):
    return sum(float(v) for v in re.findall(r"^\s+([\d.]+) \(\s*[\d.]+%\)\s+" + pattern, report, re.M))
mlir = stage(r"MLIR pipeline")
llvm = stage(r"LLVM (?:-O3|code generation)")
out = c(np.ones((8, 8), np.float32) * 0.01)
assert np.isfinite(out).all()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"RESULT {mlir:.3f} {llvm:.3f} {total:.3f} {loaded / 1024:.0f} {peak / 1024:.0f}")
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--exprs", default="1000,3000,10000,30000,100000")
    args = p.parse_args()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "build", "python")
    print("| exprs | MLIR pipeline | LLVM | compile | us per expr "
          "| peak RSS loaded | peak RSS compiled |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for count in [int(x) for x in args.exprs.split(",") if x]:
            path = os.path.join(tmp, f"chain{count}.json")
            write_trace(path, count)
            r = subprocess.run([sys.executable, "-c", CHILD, path], env=env,
                               capture_output=True, text=True)
            line = [l for l in r.stdout.splitlines() if l.startswith("RESULT")]
            if r.returncode or not line:
                raise SystemExit(f"{count} exprs failed:\n{r.stderr[-3000:]}")
            mlir, llvm, total, loaded, peak = (
                float(v) for v in line[0].split()[1:])
            print(f"| {count} | {mlir:.2f} s | {llvm:.2f} s | {total:.2f} s "
                  f"| {1e6 * total / count:.0f} | {loaded:.0f} MB "
                  f"| {peak:.0f} MB |", flush=True)


if __name__ == "__main__":
    main()
