"""Tracing cost of torchvision resnet18: time to trace, and file sizes.

    PYTHONPATH=build/python /usr/bin/python3 bench/trace_resnet18.py
"""
import os
import statistics
import tempfile
import time

import torch
import torchvision

import traced


def main():
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    x = torch.randn(1, 3, 224, 224)
    params = sum(p.numel() for p in model.parameters())
    print(f"resnet18: {params} parameters, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads")
    for mode in ("symbolic", "concrete"):
        times = []
        for _ in range(5):
            start = time.perf_counter()
            tm = traced.trace(model, x, mode=mode)
            times.append(time.perf_counter() - start)
        print(f"trace ({mode}): median {statistics.median(times) * 1e3:.0f} ms "
              f"over {len(times)} runs")
    with tempfile.TemporaryDirectory() as d:
        for suffix in (".mlir", ".mlirbc"):
            path = os.path.join(d, "resnet18" + suffix)
            start = time.perf_counter()
            tm.save(path)
            saved = time.perf_counter() - start
            start = time.perf_counter()
            traced.load(path)
            loaded = time.perf_counter() - start
            print(f"{suffix:8s} {os.path.getsize(path) / 1e6:7.1f} MB  "
                  f"save {saved * 1e3:6.0f} ms  load {loaded * 1e3:6.0f} ms")


if __name__ == "__main__":
    main()
