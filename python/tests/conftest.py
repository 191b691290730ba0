import os
import pathlib
import sys

# The suite compiles thousands of modules: without the on-disk compile cache
# (docs/cpu.md), so that every test runs the compiler and nothing lands in
# ~/.cache. test_compile_cache.py turns it on with its own directories.
os.environ["TRACED_CACHE"] = "0"
# traced.compile verifies the module once, after its pipeline; the suite
# verifies it after every pass, so that a pass that leaves invalid IR is
# caught at that pass (docs/cpu.md, "Progress and timing").
os.environ.setdefault("TRACED_VERIFY_EACH", "1")

import pytest
import torch

# `make check` runs pytest with PYTHONPATH=build/python; this keeps a bare
# `pytest python/tests` from the repository root working too.
BUILD_PYTHON = pathlib.Path(__file__).resolve().parents[2] / "build" / "python"
if BUILD_PYTHON.is_dir() and str(BUILD_PYTHON) not in sys.path:
    sys.path.insert(0, str(BUILD_PYTHON))


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


# The conformance suite's per-entry results, from the tests' reports (so
# that they arrive here from pytest-xdist's workers too).
CONFORMANCE = {}


def pytest_runtest_logreport(report):
    if report.when != "call":
        return
    for name, value in report.user_properties:
        if name == "conformance":
            entry, stats, rejected, lowered = value
            CONFORMANCE[entry] = (stats, rejected, lowered)


def pytest_terminal_summary(terminalreporter):
    """The conformance suite's per-entry table (test_conformance.py)."""
    if not CONFORMANCE:
        return
    write = terminalreporter.write_line
    write("")
    write("op conformance (passed/run per path; rejected: samples torch rejects, "
          "which the op library must refuse too)")
    write(f"{'entry':55s} {'interp':>11s} {'decomp':>11s} {'cpu':>11s} {'rejected':>9s}")
    totals = {"interp": [0, 0], "decomp": [0, 0], "cpu": [0, 0]}
    for entry in sorted(CONFORMANCE):
        stats, rejected, lowered = CONFORMANCE[entry]
        cells = []
        for path in ("interp", "decomp", "cpu"):
            ok, run = stats[path]
            totals[path][0] += ok
            totals[path][1] += run
            if run or path == "interp":
                cells.append(f"{ok}/{run}")
            elif path == "decomp":
                cells.append("-")
            else:
                cells.append("no lowering" if not lowered else "0/0")
        write(f"{entry:55s} {cells[0]:>11s} {cells[1]:>11s} {cells[2]:>11s} {rejected:>9d}")
    write(f"{'total':55s} {'%d/%d' % tuple(totals['interp']):>11s} "
          f"{'%d/%d' % tuple(totals['decomp']):>11s} "
          f"{'%d/%d' % tuple(totals['cpu']):>11s}")
