"""CPU code generation against torch 1.13 eager, side by side in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/cpu.py [--blocks B] [--runs N]

Both sides use the same number of threads (TRACED_BENCH_THREADS, default 1:
torch's intra-op pool, OpenMP and OpenBLAS; the compiled code's OpenMP
loops). Torch and the compiled code are timed in B (default 8) alternating
blocks of at least N runs (default 5) and 1 s each, 0.3 s apart
(bench/timing.py: paired_medians_ms); the medians of all runs compare.
Prints the thread count, torch's BLAS and the OpenBLAS core, then a table:
batch-1 latency of ResNet-18, MobileNetV2, an MLP and
TransformerEncoderLayer(64, 4, 128); the 1024^3 f32 matmul in GFLOP/s; and
the compile time from traced module to callable. Last, the single-core
FMA peak this machine delivers now (bench/fma_peak.c, median of 7), the
yardstick for the matmul on a shared VM.
"""
import argparse
import os

THREADS = os.environ.get("TRACED_BENCH_THREADS", "1")
os.environ["OPENBLAS_NUM_THREADS"] = THREADS  # before numpy and torch load
os.environ["OMP_NUM_THREADS"] = THREADS

import statistics
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python",
                                "tests"))
import traced  # noqa: E402
from timing import (compare_with_torch, fma_peak_probe,  # noqa: E402
                    paired_medians_ms, print_table)
from models import MLP  # noqa: E402


class MatMul(nn.Module):
    def forward(self, a, b):
        return a @ b


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--blocks", type=int, default=8)
    args = parser.parse_args()
    torch.set_num_threads(int(THREADS))
    torch.manual_seed(0)
    import re
    config = torch.__config__.show()
    blas = re.findall(r"(BLAS_INFO=[^,]*|USE_MKLDNN=[^,]*)", config)
    with open("/proc/self/maps") as maps:
        libs = sorted({l.split()[-1] for l in maps
                       if "blas" in l.split()[-1].lower()})
    blas.append("loaded: " + ", ".join(os.path.realpath(l) for l in libs))
    print(f"threads: {THREADS} (torch intra-op, OpenMP, OpenBLAS; the "
          f"compiled code's OpenMP loops)")
    print(f"torch {torch.__version__}: {'; '.join(blas) or 'BLAS unknown'}")
    print(f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(auto)')}")
    print(f"medians of {args.blocks} alternating blocks of at least "
          f"{args.runs} runs and 1 s per side (bench/timing.py)\n")

    models = {
        "ResNet-18 (1x3x224x224)": (torchvision.models.resnet18(),
                                    torch.randn(1, 3, 224, 224)),
        "MobileNetV2 (1x3x224x224)": (torchvision.models.mobilenet_v2(),
                                      torch.randn(1, 3, 224, 224)),
        "MLP 16-32-4 (8x16)": (MLP(), torch.randn(8, 16)),
        "TransformerEncoderLayer(64,4,128) (2x7x64)": (
            nn.TransformerEncoderLayer(64, 4, 128, batch_first=True),
            torch.randn(2, 7, 64)),
    }
    rows = []
    for name, (model, x) in models.items():
        model.eval()
        tm = traced.trace(model, x)
        with tempfile.TemporaryDirectory() as cache:
            # A cold compile into an empty compile cache, then the same
            # module again: a cache hit.
            start = time.perf_counter()
            compiled = traced.compile(tm, cache=cache)
            compile_s = time.perf_counter() - start
            start = time.perf_counter()
            cached = traced.compile(tm, cache=cache)
            cached_s = time.perf_counter() - start
            assert cached.from_cache
        err, eager, ours = compare_with_torch(model, x, compiled,
                                              args.blocks, args.runs)
        rows.append((name, f"{ours:.2f} ms", f"{eager:.2f} ms",
                     f"{ours / eager:.2f}x", f"{compile_s:.1f} s",
                     f"{cached_s:.2f} s", f"{err:.1e}"))

    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    tm = traced.trace(MatMul(), a, b)
    start = time.perf_counter()
    compiled = traced.compile(tm, cache=False)
    compile_s = time.perf_counter() - start
    an, bn = a.numpy(), b.numpy()
    err = np.abs(compiled(an, bn) - (a @ b).numpy()).max() / np.abs((a @ b).numpy()).max()
    flops = 2 * 1024 ** 3
    eager_ms, ours_ms = paired_medians_ms(lambda: a @ b,
                                          lambda: compiled(an, bn),
                                          args.blocks, args.runs)
    ours, eager = flops / ours_ms / 1e6, flops / eager_ms / 1e6
    rows.append(("matmul 1024x1024x1024 f32", f"{ours:.1f} GFLOP/s",
                 f"{eager:.1f} GFLOP/s", f"{eager / ours:.2f}x",
                 f"{compile_s:.1f} s", "-", f"{err:.1e}"))

    peak = fma_peak()

    header = ("workload", "traced (cpu)", "torch eager", "time ratio",
              "compile", "cached", "max rel err")
    print_table(header, rows)
    print("\ntime ratio: traced time / torch time (for the matmul, torch "
          "GFLOP/s / traced GFLOP/s); compile: traced module to callable, "
          "traced-cpu-pipeline plus LLVM -O3; cached: the same compile "
          "again, from the compile cache.")
    if peak:
        gflops, lanes, runs = peak
        threads = int(THREADS)
        share = ours / (statistics.median(gflops) * threads)
        print(f"measured single-core FMA peak: {statistics.median(gflops):.1f} "
              f"GFLOP/s ({lanes}-lane vectors; runs {min(gflops):.0f} to "
              f"{max(gflops):.0f}); the matmul reaches {share:.0%} of "
              + ("it" if threads == 1 else f"{threads} x it"))


def fma_peak():
    """Runs bench/fma_peak.c 7 times; None when clang cannot build it."""
    with fma_peak_probe() as probe:
        if probe is None:
            return None
        runs = [probe() for _ in range(7)]
    return [g for g, _ in runs], runs[0][1], len(runs)


if __name__ == "__main__":
    main()
