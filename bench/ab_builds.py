"""A/B of two or more builds of the compiler on one workload, in one
process: each build (a build/python directory) compiles the workload ahead
of time into a shared library (`traced.save_library`, in a child process
with that PYTHONPATH), then this process loads every library with ctypes
and times them in alternating blocks of at least 1 s each, after checking
that they compute the same outputs.

    /usr/bin/python3 bench/ab_builds.py --builds /tmp/base/build/python,build/python \\
        --workloads matmul,resnet18,mobilenet_v2 --threads 1,2

This VM's speed drifts from minute to minute, and its two cores more so
(docs/cpu.md, "Two threads"): separate processes run one after the other
measure the drift as much as the change. Alternating blocks in one process
put both builds in the same minutes. The thread count is set per run with
OMP_NUM_THREADS in a fresh timing process, since libomp reads it once.

Workloads: matmul (1024 x 1024 x 1024 f32), matmul64 (64 x 1024 x 1024:
threads over the column panels), or a torchvision model name (batch 1,
3 x 224 x 224, random weights from seed 0). Prints one median per build
and thread count, and each build's ratio to the first.
"""
import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

SAVE = r"""
import sys, torch, traced
workload, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
class MatMul(torch.nn.Module):
    def forward(self, a, b):
        return a @ b
if workload == "matmul":
    tm = traced.trace(MatMul(), torch.randn(1024, 1024), torch.randn(1024, 1024))
elif workload == "matmul64":
    tm = traced.trace(MatMul(), torch.randn(64, 1024), torch.randn(1024, 1024))
else:
    import torchvision
    model = getattr(torchvision.models, workload)().eval()
    tm = traced.trace(model, torch.randn(1, 3, 224, 224))
traced.save_library(tm, out)
"""


def shapes(workload):
    """(input shapes, output shapes, flops or None) of a workload."""
    if workload == "matmul":
        return [(1024, 1024), (1024, 1024)], [(1024, 1024)], 2 * 1024 ** 3
    if workload == "matmul64":
        return [(64, 1024), (1024, 1024)], [(64, 1024)], 2 * 64 * 1024 ** 2
    return [(1, 3, 224, 224)], [(1, 1000)], None


def time_libraries(workload, libraries, blocks):
    """Runs in a fresh process (OMP_NUM_THREADS already set): medians in ms
    of each library's calls, blocks alternating."""
    import numpy as np
    ins_shapes, out_shapes, _ = shapes(workload)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s, dtype=np.float32) for s in ins_shapes]
    calls = []
    for path in libraries:
        fn = ctypes.CDLL(path).traced_forward
        fn.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
        outputs = [np.empty(s, np.float32) for s in out_shapes]
        ins = (ctypes.c_void_p * len(inputs))(*[a.ctypes.data for a in inputs])
        outs = (ctypes.c_void_p * len(outputs))(*[o.ctypes.data for o in outputs])
        if fn(ins, outs) != 0:
            raise SystemExit(f"{path}: traced_forward failed")
        calls.append((lambda f=fn, i=ins, o=outs: f(i, o), outputs))
    first = calls[0][1][0]
    scale = float(np.abs(first).max()) or 1.0
    for path, (_, outputs) in zip(libraries[1:], calls[1:]):
        err = float(np.abs(outputs[0] - first).max()) / scale
        if err > 1e-4:
            raise SystemExit(f"{path}: outputs differ from the first build's "
                             f"(max error {err:.1e} relative to the largest)")
    times = [[] for _ in calls]
    for _ in range(blocks):
        for (call, _), into in zip(calls, times):
            time.sleep(0.2)
            call()
            start = time.perf_counter()
            while time.perf_counter() - start < 1.0:
                s = time.perf_counter()
                call()
                into.append(time.perf_counter() - s)
    return [statistics.median(t) * 1e3 for t in times]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--builds", required=True,
                        help="comma-separated build/python directories")
    parser.add_argument("--workloads", default="matmul,resnet18,mobilenet_v2")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--time", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.time:  # the timing child: workload, then the libraries
        medians = time_libraries(args.time[0], args.time[1:], args.blocks)
        print(" ".join(f"{m:.4f}" for m in medians))
        return
    builds = [os.path.abspath(b) for b in args.builds.split(",")]
    print(f"load: {os.getloadavg()[0]:.2f}; blocks of >= 1 s alternating, "
          f"{args.blocks} per build")
    with tempfile.TemporaryDirectory() as tmp:
        for workload in args.workloads.split(","):
            libraries = []
            for i, build in enumerate(builds):
                path = os.path.join(tmp, f"{workload}_{i}.so")
                env = dict(os.environ, PYTHONPATH=build)
                subprocess.run([sys.executable, "-c", SAVE, workload, path],
                               env=env, check=True)
                libraries.append(path)
            for threads in args.threads.split(","):
                env = dict(os.environ, OMP_NUM_THREADS=threads)
                out = subprocess.run(
                    [sys.executable, os.path.abspath(__file__), "--builds",
                     args.builds, "--blocks", str(args.blocks), "--time",
                     workload] + libraries,
                    env=env, check=True, capture_output=True, text=True)
                medians = [float(m) for m in out.stdout.split()]
                flops = shapes(workload)[2]
                for build, m in zip(builds, medians):
                    rate = f", {flops / m / 1e6:.1f} GFLOP/s" if flops else ""
                    print(f"{workload:14s} {threads} thr  {m:8.3f} ms"
                          f" ({m / medians[0]:.3f}x){rate}  {build}")


if __name__ == "__main__":
    main()
