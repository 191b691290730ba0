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
