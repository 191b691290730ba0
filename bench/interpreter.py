"""Reference interpreter cost: per-expr overhead and resnet18.

    PYTHONPATH=build/python /usr/bin/python3 bench/interpreter.py

1. A chain of 10,000 small ops (x = x * 1.0001 + 0.5 on a 4-element tensor),
   run by traced's interpreter, by torch.fx.Interpreter on the same fx graph,
   and by torch eager; overhead per expr = time / exprs.
2. torchvision resnet18 (batch 1, 224x224): the interpreter against torch
   eager and torch's frozen model (torch.jit.optimize_for_inference(
   torch.jit.trace(model)); bench/timing.py: torch_frozen) at the same
   thread count, with the ratio against the faster of the two.
Medians of repeated runs, after a warm-up run. Both sides get the same
thread count (TRACED_BENCH_THREADS, default 1) for torch's intra-op pool and
for OpenBLAS, which both the interpreter and torch's CPU convolutions use;
the thread and BLAS settings of both are printed first (bench/timing.py:
describe_environment). The chain is not run as a frozen TorchScript model:
it measures the per-expr cost of interpreters of the same graph, against
eager's per-op dispatch, not a compiled model. Unless OPENBLAS_CORETYPE is
set, this script sets it from the CPU flags (see _openblas_core); the
environment lines show the core in use.
"""
import os

THREADS = os.environ.get("TRACED_BENCH_THREADS", "1")
# Before numpy or torch load OpenBLAS.
os.environ["OPENBLAS_NUM_THREADS"] = THREADS
os.environ["OMP_NUM_THREADS"] = THREADS


def _openblas_core():
    """OpenBLAS misdetects this VM's CPU and falls back to its SSE3
    ('Prescott') kernels; name the core from the CPU flags instead."""
    try:
        flags = open("/proc/cpuinfo").read().split()
    except OSError:
        return None
    if "avx512f" in flags:
        return "SkylakeX"
    if "avx2" in flags:
        return "Haswell"
    return None


if "OPENBLAS_CORETYPE" not in os.environ and _openblas_core():
    os.environ["OPENBLAS_CORETYPE"] = _openblas_core()

import statistics
import time

import numpy as np
import torch
import torch.fx as fx
import torchvision

import traced
from timing import describe_environment, torch_frozen

CHAIN = 5000  # two exprs per step: 10,000 exprs


class Chain(torch.nn.Module):
    def forward(self, x):
        for _ in range(CHAIN):
            x = x * 1.0001 + 0.5
        return x


def median_time(fn, runs):
    fn()  # warm-up: plans and weights are cached by the first run
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    torch.set_num_threads(int(THREADS))
    describe_environment(int(THREADS))
    print(f"numpy {np.__version__}")

    x = torch.randn(4)
    gm = fx.symbolic_trace(Chain())
    exprs = sum(1 for n in gm.graph.nodes if n.op == "call_function")
    tm = traced.trace(Chain(), x, mode="symbolic")
    xs = x.numpy()
    ours = median_time(lambda: tm.interpret(xs), 10)
    interp = fx.Interpreter(gm)
    with torch.no_grad():
        fx_time = median_time(lambda: interp.run(x), 10)
        eager = median_time(lambda: gm(x), 10)
    print(f"\nchain of {exprs} exprs on a 4-element tensor (median of 10)")
    print(f"  traced interpreter     {ours * 1e3:8.2f} ms  {ours / exprs * 1e6:6.2f} us/expr")
    print(f"  torch.fx.Interpreter   {fx_time * 1e3:8.2f} ms  {fx_time / exprs * 1e6:6.2f} us/expr")
    print(f"  torch eager            {eager * 1e3:8.2f} ms  {eager / exprs * 1e6:6.2f} us/expr")

    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    image = torch.randn(1, 3, 224, 224)
    tm = traced.trace(model, image)
    ours = median_time(lambda: tm.interpret(image.numpy()), 10)
    with torch.no_grad():
        eager = median_time(lambda: model(image), 10)
    frozen, why = torch_frozen(model, image)
    jit = median_time(lambda: frozen(image), 10) if frozen else None
    best, which = ((jit, "jit") if jit is not None and jit < eager
                   else (eager, "eager"))
    print("\nresnet18, batch 1 (median of 10)")
    print(f"  traced interpreter     {ours * 1e3:8.1f} ms")
    print(f"  torch eager            {eager * 1e3:8.1f} ms")
    if frozen:
        print(f"  torch jit (frozen)     {jit * 1e3:8.1f} ms")
    else:
        print(f"  torch jit (frozen)     failed: {why}")
    print(f"  ratio                  {ours / best:8.2f}x (vs torch {which}, "
          f"the faster)")


if __name__ == "__main__":
    main()
