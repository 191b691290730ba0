"""CPU code generation against torch 1.13, eager and frozen TorchScript,
side by side in one run.

    PYTHONPATH=build/python /usr/bin/python3 bench/cpu.py [--blocks B] [--runs N]

Both sides use the same number of threads (TRACED_BENCH_THREADS, default 1:
torch's intra-op pool, OpenMP and OpenBLAS; the compiled code's OpenMP
loops). Torch is timed in its two configurations, eager and frozen
(torch.jit.optimize_for_inference(torch.jit.trace(model)); bench/timing.py:
torch_frozen), and with the compiled code in B (default 8) interleaved
blocks of at least N runs (default 5) and 1 s each, 0.3 s apart
(bench/timing.py: interleaved_medians_ms); the medians of all runs compare,
and the ratio is against the faster torch configuration, which it names.
The matmul is one op: its jit column times the same BLAS call through the
TorchScript interpreter, kept so that no configuration is left out.
Prints both sides' thread and BLAS settings (bench/timing.py:
describe_environment: torch's threads and BLAS_INFO, OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS, the OpenBLAS library and core, the compiled code's
libomp threads, the load average), then a table: batch-1 latency of
ResNet-18 and MobileNetV2 (random weights, randomized BatchNorm statistics
since 2026-11-29), an MLP and TransformerEncoderLayer(64, 4, 128); the
1024^3 f32 matmul in GFLOP/s; the compile time from traced module to
callable; and the outputs' element-wise check against torch eager (rtol
1e-4, atol 1e-4) with the largest absolute difference. Last, the
single-core FMA peak this machine delivers now (bench/fma_peak.c, median
of 7), the yardstick for the matmul on a shared VM.
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

import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python",
                                "tests"))
import traced  # noqa: E402
from timing import (agreement, check_text, compare_with_torch,  # noqa: E402
                    describe_environment, fma_peak_probe,
                    interleaved_medians_ms, print_table, tolerance_note,
                    torch_frozen)
from models import MLP, randomize_batchnorm  # noqa: E402


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
    describe_environment(int(THREADS))
    print(f"medians of {args.blocks} interleaved blocks of at least "
          f"{args.runs} runs and 1 s per side (bench/timing.py)\n")

    models = {
        # Randomized BatchNorm statistics: with the defaults MobileNetV2's
        # output collapses to about 1e-14, and any check passes on it.
        "ResNet-18 (1x3x224x224)": (
            randomize_batchnorm(torchvision.models.resnet18()),
            torch.randn(1, 3, 224, 224)),
        "MobileNetV2 (1x3x224x224)": (
            randomize_batchnorm(torchvision.models.mobilenet_v2()),
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
        c = compare_with_torch(model, x, compiled, args.blocks, args.runs)
        rows.append((name, f"{c.ours:.2f} ms", f"{c.eager:.2f} ms",
                     c.frozen_text(), c.ratio_text(), f"{compile_s:.1f} s",
                     f"{cached_s:.2f} s", c.check_text()))
        if c.frozen_why:
            print(f"{name}: torch jit failed: {c.frozen_why}")

    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    tm = traced.trace(MatMul(), a, b)
    start = time.perf_counter()
    compiled = traced.compile(tm, cache=False)
    compile_s = time.perf_counter() - start
    an, bn = a.numpy(), b.numpy()
    ok, max_abs, scale = agreement(compiled(an, bn), (a @ b).numpy())
    flops = 2 * 1024 ** 3
    jit, why = torch_frozen(MatMul(), a, b)
    fns = [lambda: a @ b, lambda: compiled(an, bn)] + (
        [lambda: jit(a, b)] if jit else [])
    ms = interleaved_medians_ms(fns, args.blocks, args.runs)
    ours, eager = flops / ms[1] / 1e6, flops / ms[0] / 1e6
    frozen = flops / ms[2] / 1e6 if jit else None
    best, which = ((frozen, "jit") if frozen and frozen > eager
                   else (eager, "eager"))
    rows.append(("matmul 1024x1024x1024 f32", f"{ours:.1f} GFLOP/s",
                 f"{eager:.1f} GFLOP/s",
                 f"{frozen:.1f} GFLOP/s" if jit else "failed",
                 f"{best / ours:.2f}x ({which})",
                 f"{compile_s:.1f} s", "-", check_text(ok, max_abs, scale)))
    if why:
        print(f"matmul: torch jit failed: {why}")

    peak = fma_peak()

    header = ("workload", "traced (cpu)", "torch eager", "torch jit",
              "time ratio (vs faster torch)", "compile", "cached",
              "check (max abs diff)")
    print_table(header, rows)
    print("\ntorch jit: torch.jit.optimize_for_inference(torch.jit.trace("
          "model)); time ratio: traced time / the faster torch "
          "configuration's time, which it names (for the matmul, that "
          "torch GFLOP/s / traced GFLOP/s); compile: traced module to "
          "callable, traced-cpu-pipeline plus LLVM -O3; cached: the same "
          f"compile again, from the compile cache; {tolerance_note()}.")
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
