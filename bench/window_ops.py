"""1-D and 3-D window ops (pooling, 3-D convolution) and torchvision's
r3d_18 video model, compiled (traced.compile) against torch 1.13, eager
and frozen TorchScript, side by side in one process.

    PYTHONPATH=build/python /usr/bin/python3 bench/window_ops.py \\
        [--blocks B] [--runs N] [--only SUBSTRING]

Threads: TRACED_BENCH_THREADS (default 1) for torch's intra-op pool,
OpenMP and OpenBLAS, and the compiled code's OpenMP loops; both sides'
thread and BLAS settings are printed first (bench/timing.py:
describe_environment). Torch eager, torch frozen
(torch.jit.optimize_for_inference(torch.jit.trace(model)): bench/timing.py,
torch_frozen) and the compiled code are timed in B (default 6) interleaved
blocks of at least N runs (default 3) and 1 s each (bench/timing.py:
interleaved_medians_ms); the medians of all runs compare, and the ratio is
against the faster torch configuration, which it names. For the single ops
(poolings, convolutions) the jit column times the same kernel through the
TorchScript interpreter, or what optimize_for_inference converts it to;
it is kept so that no torch configuration is left out. Each row also
gives the element-wise check against torch eager (rtol 1e-4, atol 1e-4)
with the largest absolute difference, and GFLOP/s for the convolutions.

These ops lower to the 2-D forms the CPU pipeline vectorizes and spreads
over threads (docs/cpu.md, "1-D and 3-D window ops"): 1-D pooling as 2-D
pooling over a unit row, 3-D pooling as a 2-D pooling of the planes and a
1-D one along the depth, 3-D convolution as one 2-D convolution over
depth taps stacked as channels.
"""
import argparse
import os

THREADS = os.environ.get("TRACED_BENCH_THREADS", "1")
os.environ["OPENBLAS_NUM_THREADS"] = THREADS  # before numpy and torch load
os.environ["OMP_NUM_THREADS"] = THREADS

import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python", "tests"))
import traced  # noqa: E402
from models import randomize_batchnorm  # noqa: E402
from timing import (compare_with_torch, describe_environment,  # noqa: E402
                    print_table, tolerance_note)


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def conv_flops(conv, x):
    """2 x MACs of a Conv3d on input `x`."""
    with torch.no_grad():
        out = conv(x)
    k = conv.weight[0].numel()  # C/g * kd * kh * kw
    return 2 * out.numel() * k


def workloads():
    torch.manual_seed(0)
    conv_a = nn.Conv3d(64, 64, 3, padding=1, bias=False)
    conv_b = nn.Conv3d(3, 64, (3, 7, 7), stride=(1, 2, 2),
                       padding=(1, 3, 3), bias=False)
    conv_c = nn.Conv3d(128, 128, 3, padding=1, groups=128)
    xa = torch.randn(1, 64, 8, 28, 28)
    xb = torch.randn(1, 3, 8, 112, 112)
    xc = torch.randn(1, 128, 8, 14, 14)
    r3d = randomize_batchnorm(torchvision.models.video.r3d_18())
    return [
        ("max_pool1d k3 s2 p1 (1x256x8192)",
         Fn(lambda x: F.max_pool1d(x, 3, 2, 1)), torch.randn(1, 256, 8192),
         None),
        ("avg_pool1d k4 (1x256x8192)", Fn(lambda x: F.avg_pool1d(x, 4)),
         torch.randn(1, 256, 8192), None),
        ("max_pool3d k3 s2 p1 (1x64x16x56x56)",
         Fn(lambda x: F.max_pool3d(x, 3, 2, 1)),
         torch.randn(1, 64, 16, 56, 56), None),
        ("avg_pool3d k2 (1x64x16x56x56)", Fn(lambda x: F.avg_pool3d(x, 2)),
         torch.randn(1, 64, 16, 56, 56), None),
        ("conv3d 64->64 k3 p1 (1x64x8x28x28)", conv_a, xa,
         conv_flops(conv_a, xa)),
        ("conv3d 3->64 k(3,7,7) s(1,2,2) (1x3x8x112x112)", conv_b, xb,
         conv_flops(conv_b, xb)),
        ("conv3d depthwise 128 k3 (1x128x8x14x14)", conv_c, xc,
         conv_flops(conv_c, xc)),
        ("r3d_18 (1x3x8x112x112)", r3d, torch.randn(1, 3, 8, 112, 112),
         None),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    torch.set_num_threads(int(THREADS))
    describe_environment(int(THREADS))
    rows = []
    for name, model, x, flops in workloads():
        if args.only not in name:
            continue
        model.eval()
        tm = traced.trace(model, x)
        start = time.perf_counter()
        compiled = traced.compile(tm, cache=False)
        compile_s = time.perf_counter() - start
        c = compare_with_torch(model, x, compiled, args.blocks, args.runs)
        rate = (f"{flops / c.ours / 1e6:.1f}" if flops else "-")
        rows.append((name, f"{c.ours:.2f} ms", f"{c.eager:.2f} ms",
                     c.frozen_text(), c.ratio_text(), rate,
                     f"{compile_s:.1f} s", c.check_text()))
        if c.frozen_why:
            print(f"{name}: torch jit failed: {c.frozen_why}")
        print(" | ".join(rows[-1]), flush=True)
    print()
    print_table(("workload", "traced (cpu)", "torch eager", "torch jit",
                 "ratio (vs faster torch)", "traced GFLOP/s", "compile",
                 "check (max abs diff)"), rows)
    print(f"\n{tolerance_note()}.")


if __name__ == "__main__":
    main()
