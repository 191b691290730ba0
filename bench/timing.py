"""Timing pieces the bench scripts share: medians of repeated calls, and
this machine's single-core FMA peak (bench/fma_peak.c)."""
import contextlib
import os
import statistics
import subprocess
import tempfile
import time


def median_ms(fn, runs=10):
    """Median wall time of `runs` calls of `fn` in ms, after one warm-up."""
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def paired_medians_ms(fn_a, fn_b, blocks=8, runs=5, block_s=1.0):
    """Medians (ms) of two workloads timed in `blocks` alternating blocks
    of at least `runs` calls and `block_s` seconds each, every block after
    a warm-up call and a 0.3 s pause. Not alternating single calls, and
    not one side right after the other: two OpenMP runtimes (torch's and
    the compiled code's libomp) spin-wait after their parallel regions
    (libomp's KMP_BLOCKTIME is 200 ms), and a spinning runtime slows the
    other one down (torch's MobileNetV2 read 60 ms instead of 18 ms)."""
    times = ([], [])

    def block(fn, into):
        time.sleep(0.3)
        fn()
        start = time.perf_counter()
        count = 0
        while count < runs or time.perf_counter() - start < block_s:
            s = time.perf_counter()
            fn()
            into.append(time.perf_counter() - s)
            count += 1

    for _ in range(blocks):
        block(fn_a, times[0])
        block(fn_b, times[1])
    return (statistics.median(times[0]) * 1e3,
            statistics.median(times[1]) * 1e3)


def compare_with_torch(model, x, compiled, blocks=8, runs=5):
    """Runs torch `model` (without autograd) and `compiled` on `x` (a
    torch tensor; the compiled side gets it as numpy): returns the largest
    error relative to torch's largest magnitude, then torch's and the
    compiled side's medians in ms (`paired_medians_ms`)."""
    import numpy as np
    import torch
    xn = x.numpy()
    with torch.no_grad():
        expected = model(x).numpy()
        err = np.abs(compiled(xn) - expected).max() / np.abs(expected).max()
        eager, ours = paired_medians_ms(lambda: model(x),
                                        lambda: compiled(xn), blocks, runs)
    return err, eager, ours


@contextlib.contextmanager
def fma_peak_probe():
    """Builds bench/fma_peak.c with `clang -O2 -march=native` and yields a
    function that runs it once and returns (GFLOP/s, vector lanes); yields
    None when clang cannot build it."""
    source = os.path.join(os.path.dirname(__file__), "fma_peak.c")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "fma_peak")
        try:
            subprocess.run(["/usr/lib/llvm-22/bin/clang", "-O2", "-march=native",
                            source, "-o", exe], check=True, capture_output=True)
        except (OSError, subprocess.CalledProcessError):
            yield None
            return

        def probe():
            out = subprocess.run([exe, "20000000"], check=True, capture_output=True,
                                 text=True).stdout.split()
            return float(out[0]), int(out[1])

        yield probe


def print_table(header, rows):
    """Prints `rows` under `header` as a markdown table, columns padded."""
    widths = [max(len(str(r[i])) for r in list(rows) + [header])
              for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in
                                       zip(r, widths)) + " |"
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
