"""ViT's MLP-block pieces, compiled against torch eager, one thread each:
Linear(768, 3072) on a 2-D [197, 768] and a 3-D [1, 197, 768] input (the
same product: the 3-D one must not be slower), LayerNorm(768), GELU, and
the block itself (LayerNorm, Linear, GELU, Linear).

    PYTHONPATH=build/python /usr/bin/python3 bench/linear_shapes.py

One thread on both sides: the script sets OMP_NUM_THREADS and
OPENBLAS_NUM_THREADS before numpy and torch load, and torch's intra-op
pool, and prints both sides' thread and BLAS settings (bench/timing.py:
describe_environment). Prints the median of 20 runs of each, ours, torch
eager's and torch's frozen module's (torch.jit.optimize_for_inference(
torch.jit.trace(module)): bench/timing.py, torch_frozen; for the single
ops it times the same kernel through the TorchScript interpreter, or
oneDNN's Linear where it converts one, and for the block it fuses what it
can), one after the other; the ratio against the faster torch
configuration, which it names; and the element-wise check against torch
eager (rtol 1e-4, atol 1e-4) with the largest absolute difference.
"""
import os
import sys

os.environ["OMP_NUM_THREADS"] = "1"  # before numpy and torch load
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import traced  # noqa: E402
from timing import (agreement, check_text, describe_environment,  # noqa: E402
                    median_ms, tolerance_note, torch_frozen)


def case(name, module, shape):
    x = torch.randn(*shape)
    compiled = traced.compile(traced.trace(module.eval(), x), progress=False)
    xn = x.numpy()
    frozen, why = torch_frozen(module, x)
    with torch.no_grad():
        expected = module(x).numpy()
        torch_ms = median_ms(lambda: module(x), runs=20)
    jit_ms = median_ms(lambda: frozen(x), runs=20) if frozen else None
    ok, max_abs, scale = agreement(compiled(xn), expected)
    ours_ms = median_ms(lambda: compiled(xn), runs=20)
    best, which = ((jit_ms, "jit") if jit_ms is not None and jit_ms < torch_ms
                   else (torch_ms, "eager"))
    jit = f"{jit_ms:8.3f} ms" if frozen else f"failed ({why})"
    print(f"{name:<28} ours {ours_ms:8.3f} ms  torch eager {torch_ms:8.3f} ms"
          f"  torch jit {jit}  ratio {ours_ms / best:5.2f}x ({which})  "
          f"check {check_text(ok, max_abs, scale)}")


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    describe_environment(1)
    print(f"ratio: ours / the faster torch configuration; {tolerance_note()}")
    linear = torch.nn.Linear(768, 3072)
    case("Linear 768->3072 [197,768]", linear, (197, 768))
    case("Linear 768->3072 [1,197,768]", linear, (1, 197, 768))
    case("LayerNorm(768) [1,197,768]", torch.nn.LayerNorm(768), (1, 197, 768))
    case("GELU [1,197,3072]", torch.nn.GELU(), (1, 197, 3072))
    mlp = torch.nn.Sequential(torch.nn.LayerNorm(768), torch.nn.Linear(768, 3072),
                              torch.nn.GELU(), torch.nn.Linear(3072, 768))
    case("ViT MLP block [1,197,768]", mlp, (1, 197, 768))


if __name__ == "__main__":
    main()
