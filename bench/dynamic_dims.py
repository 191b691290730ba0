"""Static against dynamic-batch compilation of the five test models:
compile time, and the median latency at batch 1 and 8 of each, with the
compiled outputs checked against torch (docs/cpu.md, "Dynamic dims").

    PYTHONPATH=build/python /usr/bin/python3 bench/dynamic_dims.py [model ...]

Threads: the compiled code's default (all cores); torch is not timed.
"""
import os
import sys
import time

import numpy as np
import torch

# Compile times here are cold compiles, not compile-cache hits.
os.environ.setdefault("TRACED_CACHE", "0")

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "tests"))
import traced  # noqa: E402
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
    print(f"uptime: {os.popen('uptime').read().strip()}")
    print("| model | compile static | compile dynamic | batch | static | dynamic | ratio |")
    print("|---|---|---|---|---|---|---|")
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
            got = dynamic(xb.numpy())
            scale = max(1.0, float(np.abs(expected).max()))
            err = float(np.abs(got - expected).max())
            assert err <= 1e-4 * scale, (name, batch, err, got[:2], expected[:2])
            s = median_ms(static[batch], xb.numpy())
            d = median_ms(dynamic, xb.numpy())
            print(f"| {name} | {static_s:.1f} s | {dynamic_s:.1f} s | {batch} | "
                  f"{s:.3f} ms | {d:.3f} ms | {d / s:.2f}x |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(real_models()))
