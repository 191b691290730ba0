"""Winograd F(2x2, 3x3) against im2col (traced.compile's winograd=False)
and torch 1.13 (eager and frozen TorchScript), on 3x3 convolution layers
and whole models.

    PYTHONPATH=build/python /usr/bin/python3 bench/winograd.py
        [--layers 64x56,256x14,...] [--models resnet18,vgg11_bn]

Threads as bench/cpu.py (TRACED_BENCH_THREADS, default 1), on both sides;
both sides' thread and BLAS settings are printed first (bench/timing.py:
describe_environment). Each layer is
Conv2d(c, f, 3, padding=1) + ReLU on [1, c, h, h] (`CxH`, or `CxFxH`);
each model is torchvision's with random weights and randomized BatchNorm
statistics. Winograd and im2col are timed in alternating blocks
(bench/timing.py), then torch eager, torch frozen
(torch.jit.optimize_for_inference(torch.jit.trace(module)): bench/timing.py,
torch_frozen; for a layer, oneDNN's fused convolution) and Winograd in
interleaved blocks; the table gives the medians, Winograd's ratio to
im2col and to the faster torch configuration (named), and the element-wise
check of each against torch eager (rtol 1e-4, atol 1e-4) with the largest
absolute difference (docs/cpu.md, "Winograd convolutions").
"""
import argparse
import os
import sys

THREADS = os.environ.get("TRACED_BENCH_THREADS", "1")
os.environ["OPENBLAS_NUM_THREADS"] = THREADS
os.environ["OMP_NUM_THREADS"] = THREADS

import torch
import torch.nn as nn
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import traced  # noqa: E402
from timing import (agreement, check_text, describe_environment,  # noqa: E402
                    interleaved_medians_ms, paired_medians_ms, print_table,
                    tolerance_note, torch_frozen)

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
    describe_environment(int(THREADS))
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

        def check(fn):
            return check_text(*agreement(fn(xn), expected))

        w_ms, i_ms = paired_medians_ms(lambda: wino(xn), lambda: im2col(xn),
                                       blocks=args.blocks)
        frozen, why = torch_frozen(module, x)
        fns = [lambda: module(x), lambda: wino(xn)] + (
            [lambda: frozen(x)] if frozen else [])
        with torch.no_grad():
            ms = interleaved_medians_ms(fns, blocks=args.blocks)
        t_ms, w2_ms = ms[0], ms[1]
        j_ms = ms[2] if frozen else None
        best, which = ((j_ms, "jit") if j_ms is not None and j_ms < t_ms
                       else (t_ms, "eager"))
        rows.append([name, f"{i_ms:.3f} ms", f"{w_ms:.3f} ms",
                     f"{w_ms / i_ms:.2f}x", f"{t_ms:.3f} ms",
                     f"{j_ms:.3f} ms" if frozen else "failed",
                     f"{w2_ms / best:.2f}x ({which})", check(im2col),
                     check(wino)])
        if why:
            print(f"{name}: torch jit failed: {why}")
    print_table(["case", "im2col", "winograd", "of im2col", "torch eager",
                 "torch jit", "of faster torch", "im2col check",
                 "winograd check"], rows)
    print(f"\n{tolerance_note()}.")

if __name__ == "__main__":
    main()
