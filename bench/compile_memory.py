"""What compiling costs in memory, as a multiple of the model's weights.

Each case runs in its own process (ru_maxrss is a per-process peak): it
builds the model, traces it, frees the torch model, compiles it with
traced.compile (the JIT), runs it once against torch, and reports the
resident memory the compilation added at its peak and kept after it, both
divided by the weights' bytes. The traced module itself holds one copy of
the weights throughout (not counted: it is there before compiling).

    PYTHONPATH=build/python /usr/bin/python3 bench/compile_memory.py
    TRACED_PASS_MEMORY=1 ... # also print the resident memory after each pass

docs/cpu.md ("Memory while compiling") has the figures.
"""
import json
import subprocess
import sys
import time
import os

# Compile times here are cold compiles, not compile-cache hits.
os.environ.setdefault("TRACED_CACHE", "0")

CASES = {
    # 3x3 filters: 3-element innermost rows (the regnet_y_128gf case).
    "conv3x3": "torch.nn.Sequential(*[torch.nn.Conv2d(1024, 1024, 3, padding=1)"
               " for _ in range(4)]), torch.randn(1, 1024, 8, 8)",
    # 1x1 filters (pointwise convolutions).
    "conv1x1": "torch.nn.Sequential(*[torch.nn.Conv2d(4096, 4096, 1)"
               " for _ in range(2)]), torch.randn(1, 4096, 4, 4)",
    # Linear weights (transposed for the matmul at compile time).
    "linear": "torch.nn.Sequential(*[torch.nn.Linear(4096, 4096)"
              " for _ in range(4)]), torch.randn(2, 4096)",
}


def status(field):
    """A /proc/self/status figure in bytes (VmRSS now, VmHWM the peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def reset_peak():
    # Writing 5 to clear_refs resets VmHWM (Linux 4.0+), so the peak read
    # after compiling is the compilation's, not torch's earlier one.
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def one(name):
    import numpy as np
    import torch
    import traced
    torch.manual_seed(0)
    model, x = eval(CASES[name], {"torch": torch})
    model.eval()
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    with torch.no_grad():
        expected = model(x).numpy()
    tm = traced.trace(model, x)
    del model
    import gc
    gc.collect()
    before = status("VmRSS")
    reset_peak()
    t = time.perf_counter()
    compiled = traced.compile(tm)
    seconds = time.perf_counter() - t
    peak = status("VmHWM")
    after = status("VmRSS")
    got = compiled(x.numpy())
    got = got[0] if isinstance(got, (list, tuple)) else got
    err = float(np.abs(got - expected).max() / np.abs(expected).max())
    print(json.dumps({
        "case": name, "weights_mib": weights / 2**20, "compile_s": seconds,
        # The peak while compiling, above the memory in use before it.
        "peak_x": (peak - before) / weights,
        "kept_x": (after - before) / weights, "error": err}))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        one(sys.argv[2])
        return
    names = sys.argv[1:] or list(CASES)
    print("| case | weights MiB | compile s | peak extra / weights | kept / weights | error |")
    print("|---|---|---|---|---|---|")
    for name in names:
        out = subprocess.run([sys.executable, __file__, "--one", name],
                             capture_output=True, text=True)
        lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
        if not lines:
            print(f"| {name} | failed: {out.stderr.strip()[-200:]} |||||")
            continue
        r = json.loads(lines[-1])
        print(f"| {name} | {r['weights_mib']:.0f} | {r['compile_s']:.1f} | "
              f"{r['peak_x']:.1f}x | {r['kept_x']:.1f}x | {r['error']:.1e} |",
              flush=True)


if __name__ == "__main__":
    main()
