"""ViT's MLP-block pieces, compiled against torch eager, one thread each:
Linear(768, 3072) on a 2-D [197, 768] and a 3-D [1, 197, 768] input (the
same product: the 3-D one must not be slower), LayerNorm(768), GELU, and
the block itself (LayerNorm, Linear, GELU, Linear).

    OMP_NUM_THREADS=1 PYTHONPATH=build/python /usr/bin/python3 bench/linear_shapes.py

Prints the median of 20 runs of each, ours and torch's, and the ratio.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import traced  # noqa: E402
from timing import median_ms  # noqa: E402


def case(name, module, shape):
    x = torch.randn(*shape)
    compiled = traced.compile(traced.trace(module.eval(), x), progress=False)
    xn = x.numpy()
    with torch.no_grad():
        expected = module(x).numpy()
        torch_ms = median_ms(lambda: module(x), runs=20)
    error = float(np.abs(compiled(xn) - expected).max())
    ours_ms = median_ms(lambda: compiled(xn), runs=20)
    print(f"{name:<28} ours {ours_ms:8.3f} ms  torch {torch_ms:8.3f} ms  "
          f"ratio {ours_ms / torch_ms:5.2f}x  max err {error:.1e}")


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)
    blas = "/etc/alternatives/libblas.so.3-x86_64-linux-gnu"
    print(f"torch {torch.__version__}, torch threads {torch.get_num_threads()}, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"libblas: {os.path.realpath(blas) if os.path.exists(blas) else 'unknown'}")
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
