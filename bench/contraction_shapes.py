"""Contractions of awkward shapes, compiled against torch eager, one thread:
matmuls, batched matmuls and Linear layers whose sizes are not multiples
of the vector width (prime, odd, 1000 classes, ViT's 197 tokens), so that
a shape off the fast path (issue 17's "no cliffs") shows as a large ratio.

    PYTHONPATH=build/python /usr/bin/python3 bench/contraction_shapes.py

Both sides run at one thread (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and
torch's intra-op pool, set before numpy and torch load), and the script
prints both sides' thread and BLAS settings first (bench/timing.py:
describe_environment). Prints, for each case, the median of 50 runs of
ours, of torch eager's and of torch's frozen module's
(torch.jit.optimize_for_inference(torch.jit.trace(module)): bench/timing.py,
torch_frozen), one side after the other (single-threaded, so the two OpenMP
runtimes do not spin against each other); the ratio against the faster
torch configuration, which it names; and the element-wise check against
torch eager (rtol 1e-4, atol 1e-4) with the largest absolute difference.
Each case is one op: the jit column times the same kernel through the
TorchScript interpreter (and oneDNN's Linear where optimize_for_inference
converts it), kept so that no torch configuration is left out.
"""
import os
import sys

os.environ["OMP_NUM_THREADS"] = "1"  # before numpy and torch load
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import traced  # noqa: E402
from timing import (agreement, check_text, describe_environment,  # noqa: E402
                    median_ms, print_table, tolerance_note, torch_frozen)


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
    describe_environment(1)
    rows = []
    for name, module, args in cases():
        module.eval()
        compiled = traced.compile(traced.trace(module, *args), cache=False,
                                  progress=False)
        arrays = [a.numpy() for a in args]
        frozen, why = torch_frozen(module, *args)
        with torch.no_grad():
            expected = module(*args).numpy()
            torch_ms = median_ms(lambda: module(*args), runs=50)
        jit_ms = median_ms(lambda: frozen(*args), runs=50) if frozen else None
        ok, max_abs, scale = agreement(compiled(*arrays), expected)
        ours_ms = median_ms(lambda: compiled(*arrays), runs=50)
        best, which = ((jit_ms, "jit") if jit_ms is not None and
                       jit_ms < torch_ms else (torch_ms, "eager"))
        rows.append((name, f"{ours_ms:.4f} ms", f"{torch_ms:.4f} ms",
                     f"{jit_ms:.4f} ms" if frozen else f"failed: {why}",
                     f"{ours_ms / best:.2f}x ({which})",
                     check_text(ok, max_abs, scale)))
    print_table(("case", "traced", "torch eager", "torch jit",
                 "ratio (vs faster torch)", "check (max abs diff)"), rows)
    print(f"\n{tolerance_note()}.")

if __name__ == "__main__":
    main()
