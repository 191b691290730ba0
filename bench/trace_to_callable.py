"""Trace to callable: the wall time from a torchvision model to a compiled
callable (`traced.trace`, then `traced.compile(cache=False)`), each run in
a fresh /usr/bin/python3, as a new user meets it (issue 17: ResNet-18 in at
most 3 s, vit_b_16 in at most 10 s).

    PYTHONPATH=build/python /usr/bin/python3 bench/trace_to_callable.py
    /usr/bin/python3 bench/trace_to_callable.py --models resnet18 --runs 5 \\
        --builds build/python,/tmp/base/build/python

With several --builds the runs alternate between them (run 1 of each
build, then run 2 of each, ...), so that this VM's slow minutes fall on
both sides. Building the model (random weights) and importing torch are
not counted. Prints each run's trace and compile times and the medians.
"""
import argparse
import os
import statistics
import subprocess
import sys

CHILD = r"""
import sys, time
import torch, torchvision, traced
torch.manual_seed(0)
name = sys.argv[1]
model = getattr(torchvision.models, name)().eval()
x = torch.randn(1, 3, 224, 224)
start = time.perf_counter()
tm = traced.trace(model, x)
traced_at = time.perf_counter()
fn = traced.compile(tm, cache=False)
done = time.perf_counter()
fn(x)
print(f"{traced_at - start:.3f} {done - traced_at:.3f}")
"""


def run_once(build, model):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(build))
    out = subprocess.run([sys.executable, "-c", CHILD, model], env=env,
                         check=True, capture_output=True, text=True).stdout
    trace_s, compile_s = map(float, out.split()[-2:])
    return trace_s, compile_s


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="resnet18,vit_b_16")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--builds", default=os.environ.get(
        "PYTHONPATH", "build/python").split(os.pathsep)[0])
    args = parser.parse_args()
    builds = args.builds.split(",")
    print(f"load average {os.getloadavg()[0]:.2f}, "
          f"{os.cpu_count()} CPUs, {args.runs} fresh processes per build")
    for model in args.models.split(","):
        results = {b: [] for b in builds}
        for i in range(args.runs):
            for build in builds:
                t, c = run_once(build, model)
                results[build].append((t, c))
                print(f"  {model} {build} run {i + 1}: trace {t:.2f} s, "
                      f"compile {c:.2f} s, total {t + c:.2f} s", flush=True)
        for build, rows in results.items():
            med = lambda xs: statistics.median(xs)
            print(f"{model} {build}: median trace {med([r[0] for r in rows]):.2f} s, "
                  f"compile {med([r[1] for r in rows]):.2f} s, "
                  f"total {med([r[0] + r[1] for r in rows]):.2f} s "
                  f"(range {min(r[0] + r[1] for r in rows):.2f}-"
                  f"{max(r[0] + r[1] for r in rows):.2f} s)")


if __name__ == "__main__":
    main()
