"""Static against dynamic-batch compilation of the five test models:
compile time, and the median latency at batch 1 and 8 of each, with the
compiled outputs checked against torch (docs/cpu.md, "Dynamic dims").

    PYTHONPATH=build/python /usr/bin/python3 bench/dynamic_dims.py [model ...]

Threads: TRACED_BENCH_THREADS (default: all cores, the compiled code's
default), set for OpenMP, OpenBLAS and torch's intra-op pool before they
load; the thread and BLAS settings of both sides are printed first
(bench/timing.py: describe_environment). Torch is not timed: this compares
two compiles of the same model with each other, so there is no torch eager
or torch.jit column (bench/timing.py: torch_frozen). The check column is
the dynamic compile's output against torch eager, element by element
(rtol 1e-4, atol 1e-4, torch.testing.assert_close's rule; bench/timing.py:
agreement), with the largest absolute difference.
"""
import os
import sys
import time

THREADS = os.environ.get("TRACED_BENCH_THREADS", str(os.cpu_count()))
os.environ["OMP_NUM_THREADS"] = THREADS  # before numpy and torch load
os.environ["OPENBLAS_NUM_THREADS"] = THREADS

import numpy as np  # noqa: E402
import torch  # noqa: E402

# Compile times here are cold compiles, not compile-cache hits.
os.environ.setdefault("TRACED_CACHE", "0")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "tests"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import traced  # noqa: E402
from timing import agreement, check_text, describe_environment  # noqa: E402
from models import randomize_batchnorm, real_models  # noqa: E402


def median_ms(fn, x, budget=3.0):
    fn(x)
    times, start = [], time.perf_counter()
    while time.perf_counter() - start < budget or len(times) < 5:
        t = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))


def main(names):
    torch.set_num_threads(int(THREADS))
    describe_environment(int(THREADS))
    print("| model | compile static | compile dynamic | batch | static | dynamic "
          "| ratio | check (max abs diff) |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        model, x = real_models()[name]
        randomize_batchnorm(model)
        t0 = time.perf_counter()
        static = {1: traced.compile(traced.trace(model, x[:1]))}
        static_s = time.perf_counter() - t0
        static[8] = traced.compile(traced.trace(
            model, torch.cat([x[:1]] * 8)))
        t0 = time.perf_counter()
        dynamic = traced.compile(traced.trace(model, x, dynamic_dims={0: "batch"}))
        dynamic_s = time.perf_counter() - t0
        for batch in (1, 8):
            xb = torch.randn(batch, *x.shape[1:])
            with torch.no_grad():
                expected = model(xb).numpy()
            check = check_text(*agreement(dynamic(xb.numpy()), expected))
            s = median_ms(static[batch], xb.numpy())
            d = median_ms(dynamic, xb.numpy())
            print(f"| {name} | {static_s:.1f} s | {dynamic_s:.1f} s | {batch} | "
                  f"{s:.3f} ms | {d:.3f} ms | {d / s:.2f}x | {check} |",
                  flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(real_models()))
