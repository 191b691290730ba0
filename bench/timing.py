"""Timing pieces the bench scripts share: medians of repeated calls, the
thread and BLAS settings of both sides (describe_environment), torch's
frozen TorchScript model (torch_frozen), the element-wise output check
(agreement), the geometric-mean summary that counts failures
(geomean_summary), and this machine's single-core FMA peak
(bench/fma_peak.c).

The rules these implement (docs/reliability.md, "Benchmarks that cannot
flatter us"): both sides run at the same thread count, set before numpy and
torch load; every run prints both sides' thread and BLAS
settings; torch is timed eager and as a frozen TorchScript model in the
same run, and ratios are against the faster of the two; a model that fails
is named and counted, never left out of a mean silently; outputs are
checked element by element."""
import contextlib
import math
import os
import re
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


#: The element-wise tolerance of the output checks (agreement): float32
#: sums the compiled code adds up in another order than torch differ by
#: more than assert_close's float32 defaults (rtol 1.3e-6, atol 1e-5).
RTOL = 1e-4
ATOL = 1e-4


def _loaded(substring):
    """Real paths of the loaded shared objects whose file name contains
    `substring`."""
    with open("/proc/self/maps") as maps:
        paths = {l.split()[-1] for l in maps if "/" in l}
    return sorted({os.path.realpath(p) for p in paths
                   if substring in os.path.basename(p).lower()})


#: The OpenMP runtime the compiled code's parallel loops call
#: (python/traced/compiler.py: _LIBOMP_DIR; lib/ExecutionEngine).
LIBOMP = "/usr/lib/llvm-22/lib/libomp.so"


def describe_environment(threads=None, file=None):
    """Prints (to `file`, default stdout) and returns as a list of lines
    the thread and BLAS settings of both sides: torch's intra- and
    inter-op threads and parallel backend, OMP_NUM_THREADS,
    OPENBLAS_NUM_THREADS, the threads OpenBLAS and the compiled code's
    libomp will use, torch's BLAS_INFO / USE_MKLDNN, the OpenBLAS library
    loaded with its core (OPENBLAS_CORETYPE or detected), and the load
    average. With `threads`, a line starting "MISMATCH" names every
    setting that differs from it."""
    import ctypes
    import torch
    lines, counts = [], {}
    counts["torch intra-op"] = torch.get_num_threads()
    counts["torch inter-op"] = torch.get_num_interop_threads()
    backend = re.search(r"ATen parallel backend: (\S+)",
                        torch.__config__.parallel_info())
    gomp = _loaded("libgomp")
    env = {v: os.environ.get(v, "unset")
           for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    blas = "unknown"
    openblas = _loaded("libopenblas")
    if openblas:
        try:
            lib = ctypes.CDLL(openblas[0])
            lib.openblas_get_config.restype = ctypes.c_char_p
            lib.openblas_get_corename.restype = ctypes.c_char_p
            counts["OpenBLAS"] = lib.openblas_get_num_threads()
            blas = (f"{openblas[0]} ({lib.openblas_get_config().decode()}; "
                    f"core {lib.openblas_get_corename().decode()})")
        except (OSError, AttributeError) as e:
            blas = f"{openblas[0]} (not queried: {e})"
    try:
        # The same file the JIT loads later: one runtime, which reads
        # OMP_NUM_THREADS when it initializes.
        counts["compiled code's libomp"] = ctypes.CDLL(
            LIBOMP).omp_get_max_threads()
        omp = LIBOMP
    except (OSError, AttributeError) as e:
        omp = f"libomp not loaded ({e})"
    config = torch.__config__.show()
    flags = re.findall(r"(BLAS_INFO=[^,\s]*|USE_MKLDNN=[^,\s]*)", config)
    lines.append(
        "threads" + (f" (asked {threads})" if threads is not None else "")
        + ": " + ", ".join(f"{k} {v}" for k, v in counts.items())
        + "; " + ", ".join(f"{k}={v}" for k, v in env.items()))
    lines.append(
        f"torch {torch.__version__}: {', '.join(flags) or 'BLAS unknown'}, "
        f"parallel backend {backend.group(1) if backend else 'unknown'}"
        f" ({', '.join(gomp) or 'no libgomp loaded'}); compiled code: {omp}")
    lines.append(f"OpenBLAS: {blas}; OPENBLAS_CORETYPE="
                 f"{os.environ.get('OPENBLAS_CORETYPE', '(unset: detected)')}")
    load = os.getloadavg()
    lines.append(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
                 f"on {os.cpu_count()} CPUs")
    if threads is not None:
        off = [f"{k} {v}" for k, v in counts.items()
               if k != "torch inter-op" and v != int(threads)]
        off += [f"{k}={v}" for k, v in env.items() if v != str(threads)]
        if off:
            lines.append(f"MISMATCH: not {threads} thread(s): " + ", ".join(off))
    for line in lines:
        print(line, file=file, flush=True)
    return lines


def torch_frozen(model, *inputs):
    """Torch's best configuration besides eager: the model (in eval mode)
    traced with torch.jit.trace and frozen and optimized by
    torch.jit.optimize_for_inference (oneDNN convolutions, folded
    BatchNorms), under no_grad, called once. Returns (callable, None), or
    (None, why) when tracing, freezing or the first call fails."""
    import torch
    try:
        if isinstance(model, torch.nn.Module):
            model = model.eval()
        with torch.no_grad():
            frozen = torch.jit.optimize_for_inference(
                torch.jit.trace(model, inputs, strict=False,
                                check_trace=False))
            frozen(*inputs)
    except Exception as e:  # noqa: BLE001 - reported as a reason
        lines = str(e).strip().splitlines()
        return None, f"{type(e).__name__}: {lines[0] if lines else ''}"[:160]

    def call(*args):
        with torch.no_grad():
            return frozen(*args)
    return call, None


def agreement(got, expected, rtol=RTOL, atol=ATOL):
    """Element by element, as torch.testing.assert_close compares: (every
    element within atol + rtol * |expected|, the largest |difference|,
    the largest |expected|: check_text calls a check on outputs this
    small against atol weak)."""
    import numpy as np
    got = np.asarray(got, np.float64)
    expected = np.asarray(expected, np.float64)
    scale = float(np.abs(expected).max()) if expected.size else 0.0
    if got.shape != expected.shape:
        return False, float("inf"), scale
    diff = np.abs(got - expected)
    ok = bool((diff <= atol + rtol * np.abs(expected)).all())
    return ok, float(diff.max()) if diff.size else 0.0, scale


def first_output(out):
    """A model's one output: a segmentation model's "out", the single
    element of a list or tuple, or `out` itself."""
    if isinstance(out, dict):
        out = out["out"]
    if isinstance(out, (list, tuple)) and len(out) == 1:
        out = out[0]
    return out


def check_text(ok, max_abs, scale=None, atol=ATOL):
    """The output-check column: 'ok 3.1e-06' or 'FAIL 2.0e-02', or
    'WEAK 5.3e-15 (|out| <= 5.1e-14)' when it passed on outputs below
    100 x atol, which atol alone lets through (a model whose output
    collapsed to about zero proves nothing)."""
    if ok and scale is not None and scale < 100 * atol:
        return f"WEAK {max_abs:.1e} (|out| <= {scale:.1e})"
    return f"{'ok' if ok else 'FAIL'} {max_abs:.1e}"


def tolerance_note(rtol=RTOL, atol=ATOL):
    return (f"check: ok when every output element is within atol {atol:g} + "
            f"rtol {rtol:g} x |torch eager's element| (torch.testing."
            f"assert_close's rule), FAIL otherwise, WEAK if ok but every "
            f"output is below {100 * atol:g} in magnitude; then the largest "
            f"absolute difference from torch eager")


def geomean_summary(ratios, failed, what="models", wrong=(), weak=(),
                    eager_only=()):
    """The summary line of a sweep: the geometric mean over the `ratios`
    ({name: ratio}) that ran, with the `failed` ones ({name: why}) named
    and counted beside it; `wrong` names those that ran but failed the
    output check, `weak` those whose check was WEAK (check_text): both
    timed, so in the mean, and named; `eager_only` those whose frozen torch
    model failed, so that their ratio is against torch eager alone."""
    total = len(ratios) + len(failed)
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
        worst = max(ratios, key=ratios.get)
        line = (f"geometric mean over {len(ratios)} of {total} {what}: "
                f"{geo:.2f}x (largest {ratios[worst]:.2f}x, {worst})")
    else:
        line = f"geometric mean: none, 0 of {total} {what} ran"
    if failed:
        line += (f"; {len(failed)} of {total} failed (count as failures, "
                 f"not in the mean): {', '.join(failed)}")
    else:
        line += f"; 0 of {total} failed"
    if wrong:
        line += (f"; {len(wrong)} outside the output check (in the mean): "
                 f"{', '.join(wrong)}")
    if weak:
        line += (f"; {len(weak)} with a WEAK check (outputs about zero; in "
                 f"the mean): {', '.join(weak)}")
    if eager_only:
        line += (f"; torch jit failed on {len(eager_only)} (ratio against "
                 f"eager alone): {', '.join(eager_only)}")
    return line


def interleaved_medians_ms(fns, blocks=8, runs=5, block_s=1.0):
    """Medians (ms) of several workloads timed as paired_medians_ms times
    two: `blocks` rounds, each a block of every workload in turn."""
    times = [[] for _ in fns]

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
        for fn, into in zip(fns, times):
            block(fn, into)
    return tuple(statistics.median(t) * 1e3 for t in times)


def paired_medians_ms(fn_a, fn_b, blocks=8, runs=5, block_s=1.0):
    """Medians (ms) of two workloads timed in `blocks` alternating blocks
    of at least `runs` calls and `block_s` seconds each, every block after
    a warm-up call and a 0.3 s pause. Not alternating single calls, and
    not one side right after the other: two OpenMP runtimes (torch's and
    the compiled code's libomp) spin-wait after their parallel regions
    (libomp's KMP_BLOCKTIME is 200 ms), and a spinning runtime slows the
    other one down (torch's MobileNetV2 read 60 ms instead of 18 ms)."""
    return interleaved_medians_ms((fn_a, fn_b), blocks, runs, block_s)


class Comparison:
    """What compare_with_torch measured: medians in ms of torch eager, of
    torch's frozen model (None, with `frozen_why`, when it failed) and of
    the compiled code; `best` names the faster torch configuration and
    `ratio` is the compiled time over it; `ok` and `max_abs` are the
    element-wise output check against torch eager (agreement)."""

    def __init__(self, eager, frozen, frozen_why, ours, ok, max_abs, scale):
        self.eager, self.frozen, self.frozen_why = eager, frozen, frozen_why
        self.ours, self.ok, self.max_abs = ours, ok, max_abs
        self.scale = scale
        self.best_ms = min(eager, frozen) if frozen is not None else eager
        self.best = ("jit" if frozen is not None and frozen < eager
                     else "eager")
        self.ratio = ours / self.best_ms

    def frozen_text(self, unit=" ms"):
        return (f"{self.frozen:.2f}{unit}" if self.frozen is not None
                else "failed")

    def ratio_text(self):
        return f"{self.ratio:.2f}x ({self.best})"

    def check_text(self):
        return check_text(self.ok, self.max_abs, self.scale)


def compare_with_torch(model, x, compiled, blocks=8, runs=5, block_s=1.0,
                       frozen=True):
    """Runs torch `model` (without autograd) eager and, with `frozen`, as
    torch_frozen's model, and `compiled` on `x` (a torch tensor, or a
    tuple of them; the compiled side gets numpy arrays), checks the
    compiled output against eager's element by element (agreement) and,
    after three warm-up calls of each, times the three in interleaved
    blocks (interleaved_medians_ms).
    Returns a Comparison."""
    import torch
    xs = x if isinstance(x, tuple) else (x,)
    xn = [t.numpy() for t in xs]
    with torch.no_grad():
        expected = first_output(model(*xs)).numpy()
    ok, max_abs, scale = agreement(first_output(compiled(*xn)), expected)
    jit, why = torch_frozen(model, *xs) if frozen else (None, "not timed")
    fns = [lambda: model(*xs), lambda: compiled(*xn)]
    if jit is not None:
        fns.append(lambda: jit(*xs))
    with torch.no_grad():
        for _ in range(3):  # first calls: allocations, oneDNN's primitives
            for call in fns:
                call()
        ms = interleaved_medians_ms(fns, blocks, runs, block_s)
    return Comparison(ms[0], ms[2] if jit is not None else None, why, ms[1],
                      ok, max_abs, scale)


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
