"""Soak: trace, compile, run and free a small model many times in one
process and print the resident memory (VmRSS) as it goes (issue 55,
docs/reliability.md "Soak and threads").

    PYTHONPATH=build/python /usr/bin/python3 bench/soak.py --cycles 1000

Each cycle traces a fresh 2-layer MLP (new random weights, so the compile
cache misses only when --no-cache is given), compiles it, runs it once,
checks the result against torch and drops every reference."""
import argparse
import gc
import time

import numpy as np
import torch

import traced


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--no-cache", action="store_true",
                        help="compile every cycle (cache=False)")
    args = parser.parse_args()
    torch.manual_seed(0)
    x = torch.randn(4, 16)
    marks = {1, 10, 100, 1000, 10000, args.cycles}
    start = time.perf_counter()
    for cycle in range(1, args.cycles + 1):
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                    torch.nn.Linear(32, 4)).eval()
        if cycle > 1:  # the same weights: the cache's hit path, as a server reloading
            model.load_state_dict(state)
        state = model.state_dict()
        m = traced.trace(model, x)
        fn = traced.compile(m, cache=False if args.no_cache else None)
        got = fn(x)
        torch.testing.assert_close(got, model(x).detach())
        del m, fn, got, model
        gc.collect()
        if cycle in marks:
            print(f"cycle {cycle:6d}: VmRSS {rss_mb():7.1f} MB, "
                  f"{time.perf_counter() - start:6.1f} s", flush=True)


if __name__ == "__main__":
    main()
