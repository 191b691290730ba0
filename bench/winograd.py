"""Winograd F(2x2, 3x3) against im2col (traced.compile's winograd=False)
and torch 1.13 eager, on 3x3 convolution layers and whole models.

    PYTHONPATH=build/python /usr/bin/python3 bench/winograd.py
        [--layers 64x56,256x14,...] [--models resnet18,vgg11_bn]

Threads as bench/cpu.py (TRACED_BENCH_THREADS, default 1). Each layer is
Conv2d(c, f, 3, padding=1) + ReLU on [1, c, h, h] (`CxH`, or `CxFxH`);
each model is torchvision's with random weights and randomized BatchNorm
statistics. Winograd and im2col are timed in alternating blocks
(bench/timing.py), then torch against Winograd; the table gives the
medians, the ratios and the largest error of each against torch,
relative to the output's largest magnitude (docs/cpu.md, "Winograd
convolutions").
"""
import argparse
import os
import sys

THREADS = os.environ.get("TRACED_BENCH_THREADS", "1")
os.environ["OPENBLAS_NUM_THREADS"] = THREADS
os.environ["OMP_NUM_THREADS"] = THREADS

import numpy as np
import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import traced  # noqa: E402
from timing import paired_medians_ms, print_table  # noqa: E402

LAYERS = "3x64x224,64x56,128x28,256x14,512x7,32x112"
MODELS = "resnet18,vgg11_bn"


def layer(spec):
    dims = [int(v) for v in spec.split("x")]
    c, f, h = (dims[0], dims[0], dims[1]) if len(dims) == 2 else dims
    torch.manual_seed(0)
    module = nn.Sequential(nn.Conv2d(c, f, 3, padding=1), nn.ReLU()).eval()
    return f"conv {c}->{f} {h}x{h}", module, torch.randn(1, c, h, h)


def model(name):
    torch.manual_seed(0)
    module = getattr(torchvision.models, name)().eval()
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.1, 0.1)
            m.running_var.uniform_(0.5, 1.5)
    return name, module, torch.randn(1, 3, 224, 224)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", default=LAYERS)
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--blocks", type=int, default=6)
    args = parser.parse_args()
    torch.set_num_threads(int(THREADS))
    print(f"threads: {THREADS}; load average {os.getloadavg()[0]:.2f}")
    cases = [layer(s) for s in args.layers.split(",") if s]
    cases += [model(n) for n in args.models.split(",") if n]
    rows = []
    for name, module, x in cases:
        tm = traced.trace(module, x)
        wino = traced.compile(tm, cache=False)
        im2col = traced.compile(tm, cache=False, winograd=False)
        xn = x.numpy()
        with torch.no_grad():
            expected = module(x).numpy()
        scale = float(np.abs(expected).max())

        def err(fn):
            return float(np.abs(fn(xn) - expected).max()) / scale

        w_ms, i_ms = paired_medians_ms(lambda: wino(xn), lambda: im2col(xn),
                                       blocks=args.blocks)
        with torch.no_grad():
            t_ms, w2_ms = paired_medians_ms(
                lambda: module(x), lambda: wino(xn), blocks=args.blocks)
        rows.append([name, f"{i_ms:.3f} ms", f"{w_ms:.3f} ms",
                     f"{w_ms / i_ms:.2f}x", f"{t_ms:.3f} ms",
                     f"{w2_ms / t_ms:.2f}x", f"{err(im2col):.1e}",
                     f"{err(wino):.1e}"])
    print_table(["case", "im2col", "winograd", "of im2col", "torch",
                 "of torch", "im2col err", "winograd err"], rows)


if __name__ == "__main__":
    main()
