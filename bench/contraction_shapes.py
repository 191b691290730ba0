"""Contractions of awkward shapes, compiled against torch eager, one thread:
matmuls, batched matmuls and Linear layers whose sizes are not multiples
of the vector width (prime, odd, 1000 classes, ViT's 197 tokens), so that
a shape off the fast path (issue 17's "no cliffs") shows as a large ratio.

    PYTHONPATH=build/python /usr/bin/python3 bench/contraction_shapes.py

Prints, for each case, the median of 50 runs of ours and of torch's (one
side after the other: single-threaded, so the two OpenMP runtimes do not
spin against each other), the ratio and the largest error relative to the
largest output.
"""
import os
import sys

os.environ["OMP_NUM_THREADS"] = "1"  # before numpy and torch load
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import traced  # noqa: E402
from timing import median_ms, print_table  # noqa: E402


class MatMul(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def cases():
    for m, k, n in [(197, 768, 100), (64, 64, 1000), (1, 512, 1000),
                    (8, 512, 1000), (100, 100, 100), (37, 53, 71),
                    (256, 256, 200), (196, 144, 196), (49, 512, 49),
                    (128, 96, 50)]:
        yield (f"matmul {m}x{k} @ {k}x{n}", MatMul(),
               (torch.randn(m, k), torch.randn(k, n)))
    for b, m, k, n in [(12, 197, 64, 197), (12, 197, 197, 64),
                       (8, 50, 64, 50), (4, 7, 64, 7)]:
        yield (f"bmm {b}x{m}x{k} @ {b}x{k}x{n}", MatMul(),
               (torch.randn(b, m, k), torch.randn(b, k, n)))
    for shape, (i, o) in [((2, 3, 50, 96), (96, 100)),
                          ((4, 49, 200), (200, 84)),
                          ((1, 10, 30), (30, 1000))]:
        yield (f"Linear({i}, {o}) on {list(shape)}", nn.Linear(i, o),
               (torch.randn(*shape),))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    print(f"torch {torch.__version__}, 1 thread, load "
          f"{os.getloadavg()[0]:.2f}")
    rows = []
    for name, module, args in cases():
        module.eval()
        compiled = traced.compile(traced.trace(module, *args), cache=False,
                                  progress=False)
        arrays = [a.numpy() for a in args]
        with torch.no_grad():
            expected = module(*args).numpy()
            torch_ms = median_ms(lambda: module(*args), runs=50)
        error = float(np.abs(compiled(*arrays) - expected).max()
                      / max(float(np.abs(expected).max()), 1e-30))
        ours_ms = median_ms(lambda: compiled(*arrays), runs=50)
        rows.append((name, f"{ours_ms:.4f} ms", f"{torch_ms:.4f} ms",
                     f"{ours_ms / torch_ms:.2f}x", f"{error:.1e}"))
    print_table(("case", "traced", "torch", "ratio", "rel. error"), rows)


if __name__ == "__main__":
    main()
