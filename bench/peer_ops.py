"""Runs a peer project's op-level test modules through traced: torch-mlir's
e2e suite (projects/pt1/python/torch_mlir_e2e_test, about 1,800 small
modules, each called on recorded inputs). Every test is traced, run by the
reference interpreter (and, with --compile, compiled for the CPU), and
compared with torch eager: dtype, shape, and values within 1e-4 relative /
1e-5 absolute. A survey, not a test: it prints a count per outcome and the
most frequent causes (unknown targets first), which is how the op library's
gaps are ranked.

    # a torch-mlir checkout (the `fetch` tool or git) holds the suite
    PYTHONPATH=build/python /usr/bin/python3 bench/peer_ops.py \\
        /path/to/torch-mlir/projects/pt1/python/torch_mlir_e2e_test \\
        [--compile] [--filter REGEX] [--json results.json]

Nothing of torch-mlir is copied into this tree: the suite is read from the
checkout, with its framework replaced by a small shim (TestUtils, the
registry). Files whose imports torch 1.13 lacks are stubbed where harmless
(quantization helpers, float8 dtypes) and reported otherwise. Outcomes:
pass, torch (torch 1.13 itself fails the test), trace, interp, interp-wrong,
cpu, cpu-wrong, crash (a Python exception escaping the harness).

Nothing is timed here, so there is no torch.jit column (bench/timing.py:
torch_frozen) and no thread count to match; the run still prints both
sides' thread and BLAS settings first (bench/timing.py:
describe_environment), since results can depend on them.
"""
import argparse
import collections
import glob
import importlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import types

import numpy as np
import torch

SHIM = '''
import torch
from typing import Any, Callable, NamedTuple
class TestUtils:
    def __init__(self):
        torch.manual_seed(0)
    def rand(self, *sizes, low=0.0, high=1.0):
        return torch.empty(sizes).uniform_(low, high)
    def randint(self, *sizes, low=0, high=10, dtype=torch.int64):
        return torch.randint(low, high, sizes, dtype=dtype)
    def nans(self, *sizes):
        vals = torch.empty(sizes)
        vals[...] = torch.nan
        return vals
class Test(NamedTuple):
    unique_name: str
    program_factory: Callable
    program_invoker: Callable
    timeout_seconds: int
'''


def load_suite(suite_dir):
    """Imports every test file under a shim package; returns (registry,
    {file: import error})."""
    root = tempfile.mkdtemp(prefix="peer_ops_")
    pkg = os.path.join(root, "torch_mlir_e2e_test")
    os.makedirs(os.path.join(pkg, "test_suite"))
    open(os.path.join(pkg, "__init__.py"), "w").close()
    open(os.path.join(pkg, "test_suite", "__init__.py"), "w").close()
    with open(os.path.join(pkg, "framework.py"), "w") as f:
        f.write(SHIM)
    for name in ("registry.py", "annotations.py"):
        shutil.copy(os.path.join(suite_dir, name), pkg)
    files = sorted(glob.glob(os.path.join(suite_dir, "test_suite", "*.py")))
    for path in files:
        if not path.endswith("__init__.py"):
            shutil.copy(path, os.path.join(pkg, "test_suite"))
    sys.path.insert(0, root)
    # Harmless stand-ins for what torch 1.13 lacks.
    sys.modules.setdefault("torch.ao.quantization.fx._decomposed",
                           types.ModuleType("torch.ao.quantization.fx._decomposed"))
    for attr in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                 "float8_e5m2fnuz", "float8_e8m0fnu"):
        if not hasattr(torch, attr):
            setattr(torch, attr, torch.float32)
    errors = {}
    for path in files:
        name = os.path.basename(path)[:-3]
        if name == "__init__":
            continue
        try:
            importlib.import_module(f"torch_mlir_e2e_test.test_suite.{name}")
        except Exception as e:  # noqa: BLE001 - reported
            errors[name] = f"{type(e).__name__}: {e}"[:200]
    from torch_mlir_e2e_test import registry
    return registry.GLOBAL_TEST_REGISTRY, errors


class Recorder:
    """Stands for the module in a test's invoker: records each call."""

    def __init__(self, module):
        self.module, self.calls = module, []

    def __getattr__(self, name):
        def call(*args):
            self.calls.append((name, args))
            return getattr(self.module, name)(*args)
        return call


def compare(got, expected):
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            return f"structure {type(got).__name__} vs {type(expected).__name__}"
        for g, e in zip(got, expected):
            why = compare(g, e)
            if why:
                return why
        return None
    if not isinstance(expected, torch.Tensor):
        if isinstance(got, np.ndarray) and got.ndim == 0:
            got = got.item()
        if isinstance(expected, float) and isinstance(got, (int, float)):
            ok = abs(got - expected) <= 1e-5 * max(1, abs(expected)) or \
                (expected != expected and got != got)
            return None if ok else f"value {got} vs {expected}"
        return None if got == expected else f"value {got!r} vs {expected!r}"
    if isinstance(got, torch.Tensor):  # bfloat16 results
        if got.dtype != expected.dtype:
            return f"dtype {got.dtype} vs {expected.dtype}"
        got, expected = got.float().numpy(), expected.float()
    if not isinstance(got, np.ndarray):
        return f"type {type(got).__name__}"
    e = expected.detach().numpy()
    if got.dtype != e.dtype:
        return f"dtype {got.dtype} vs {e.dtype}"
    if got.shape != e.shape:
        return f"shape {got.shape} vs {e.shape}"
    if e.dtype.kind in "biu":
        return None if np.array_equal(got, e) else "integer values differ"
    if e.size and not np.allclose(got.astype(np.float64), e.astype(np.float64),
                                  rtol=1e-4, atol=1e-5, equal_nan=True):
        diff = np.nanmax(np.abs(got.astype(np.float64) - e))
        return f"values differ by up to {diff:.3g}"
    return None


def first_line(e):
    lines = str(e).strip().splitlines()
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:300]


def run_test(test, compile_too):
    import traced
    torch.manual_seed(0)
    module = test.program_factory()
    recorder = Recorder(module)
    try:
        test.program_invoker(recorder, __import__(
            "torch_mlir_e2e_test.framework", fromlist=["TestUtils"]).TestUtils())
    except Exception as e:  # noqa: BLE001
        return "torch", first_line(e)
    for name, args in recorder.calls:
        if name != "forward":
            return "harness", f"method {name}"
        with torch.no_grad():
            expected = module.forward(*[a.clone() if isinstance(a, torch.Tensor) else a
                                        for a in args])
        try:
            tm = traced.trace(module, *args)
        except Exception as e:  # noqa: BLE001
            return "trace", first_line(e)
        single = not isinstance(expected, (tuple, list))
        paths = [("interp", tm.interpret)]
        if compile_too:
            paths.append(("cpu", lambda *a: traced.compile(tm)(*a)))
        for path, run in paths:
            try:
                got = run(*args)
            except Exception as e:  # noqa: BLE001
                return path, first_line(e)
            if single and isinstance(got, (tuple, list)) and len(got) == 1:
                got = got[0]
            why = compare(got, expected)
            if why:
                return f"{path}-wrong", why
    return "pass", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite", help="torch-mlir's torch_mlir_e2e_test directory")
    ap.add_argument("--compile", action="store_true", help="also run traced.compile")
    ap.add_argument("--filter", help="a regex over test names")
    ap.add_argument("--json", help="write every outcome here")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per test")
    args = ap.parse_args()
    torch.set_num_threads(1)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from timing import describe_environment
    describe_environment()
    tests, import_errors = load_suite(args.suite)
    if args.filter:
        tests = [t for t in tests if re.search(args.filter, t.unique_name)]
    results = {}

    def on_alarm(signum, frame):
        raise TimeoutError("timed out")

    signal.signal(signal.SIGALRM, on_alarm)
    for t in tests:
        signal.alarm(args.timeout)
        try:
            results[t.unique_name] = run_test(t, args.compile)
        except BaseException as e:  # noqa: BLE001 - a row, not the end
            results[t.unique_name] = ("crash", first_line(e))
        signal.alarm(0)
        print(t.unique_name, *results[t.unique_name], flush=True)
    counts = collections.Counter(r[0] for r in results.values())
    causes = collections.Counter()
    for outcome, why in results.values():
        if outcome not in ("pass", "torch"):
            m = re.search(r"does not know (?:the Tensor method )?'([^']+)'", why)
            causes[f"unknown {m.group(1)}" if m else
                   f"{outcome}: {re.sub(r'^.*?error: ', '', why)[:100]}"] += 1
    print("\n## outcomes\n")
    for outcome, n in counts.most_common():
        print(f"{outcome:14} {n}")
    print(f"{'total':14} {len(results)}")
    print("\n## most frequent causes\n")
    for cause, n in causes.most_common(40):
        print(f"{n:4}  {cause}")
    if import_errors:
        print("\n## files not imported\n")
        for name, why in import_errors.items():
            print(f"{name}: {why}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "import_errors": import_errors}, f, indent=1)


if __name__ == "__main__":
    main()
