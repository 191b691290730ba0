"""A/B of traced-cpu-tile-and-vectorize's pack-rhs on the 1024^3 f32 matmul:
both variants compiled in one process and timed interleaved (5 rounds of
medians of 7 runs after a warm-up), with this machine's single-core FMA peak
(bench/fma_peak.c) after each round, because this VM's speed changes from
minute to minute. A measurement, not a test.

    OMP_NUM_THREADS=1 PYTHONPATH=build/python /usr/bin/python3 bench/pack_rhs_ab.py
"""
import os

import numpy as np
import torch

import traced
from timing import fma_peak_probe, median_ms


class MatMul(torch.nn.Module):
    def forward(self, a, b):
        return a @ b


def main(n=1024):
    rng = np.random.default_rng(0)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    tm = traced.trace(MatMul(), torch.from_numpy(a), torch.from_numpy(b))
    variants = {packed: traced.compile(tm, pack_rhs=packed) for packed in (False, True)}
    for f in variants.values():
        assert np.abs(f(a, b) - a @ b).max() <= 1e-5 * np.abs(a @ b).max() * n
    with fma_peak_probe() as probe:
        print(f"threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(all)')}")
        for r in range(5):
            line = []
            for packed, f in variants.items():
                gflops = 2 * n ** 3 / median_ms(lambda: f(a, b), runs=7) / 1e6
                line.append(f"{'packed' if packed else 'unpacked'} {gflops:.1f} GFLOP/s")
            peak = f"; FMA peak {probe()[0]:.1f} GFLOP/s" if probe else ""
            print(f"round {r}: " + ", ".join(line) + peak)

if __name__ == "__main__":
    main()
