"""Progress and timing (docs/cpu.md, "Progress and timing"): traced.compile
shows the running pass on a terminal and nowhere else, and timing=True
reports each pass's and LLVM stage's time."""
import os
import pty
import re
import subprocess
import sys

import pytest

import traced

SCRIPT = r"""
import torch, traced
m = traced.trace(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()).eval(),
                 torch.randn(2, 4))
c = traced.compile(m{args})
print("done", tuple(c(torch.randn(2, 4)).shape))
"""


def run(args="", env=None, tty=False):
    """Runs SCRIPT in a new interpreter; returns (stdout, stderr)."""
    full_env = dict(os.environ)
    full_env.pop("TRACED_PROGRESS", None)
    full_env.update(env or {})
    command = [sys.executable, "-c", SCRIPT.format(args=args)]
    if not tty:
        # (Bytes: text mode would turn the carriage returns into newlines.)
        done = subprocess.run(command, env=full_env, capture_output=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.decode(), done.stderr.decode()
    # stderr (and stdout) on a pseudo-terminal, as in an interactive shell.
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, env=full_env, stdout=follower,
                               stderr=follower, stdin=subprocess.DEVNULL)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert process.wait(timeout=300) == 0
    out = b"".join(chunks).decode(errors="replace")
    return out, out


def steps(stderr):
    """The (k, N, name) of each progress line, in order."""
    return [(int(k), int(n), name) for k, n, name in
            re.findall(r"compile \[(\d+)/(\d+)\] ([^\r\x1b]*)", stderr)]


def test_quiet_when_not_a_terminal():
    out, err = run()
    assert "done (2, 3)" in out
    assert err == ""


def test_forced_off_on_a_terminal():
    out, _ = run(env={"TRACED_PROGRESS": "0"}, tty=True)
    assert "done (2, 3)" in out
    assert "compile [" not in out


def test_shows_passes_on_a_terminal():
    out, _ = run(tty=True)
    shown = steps(out)
    assert shown, out
    total = shown[0][1]
    assert shown[0] == (1, total, "traced-flatten")
    assert all(n == total for _, n, _ in shown)
    # Counting up to the last pass, then LLVM's stages; the line is cleared.
    top = [k for k, _, name in shown if ": " not in name]
    assert top == sorted(top) and top[-1] == total
    assert "compile LLVM code generation" in out
    last_progress = out.rindex("compile ")
    assert "\r\x1b[K" in out[last_progress:]


def test_progress_argument_wins():
    _, err = run(args=", progress=True")
    assert steps(err) and "\r\x1b[K" in err
    out, _ = run(args=", progress=False", tty=True)
    assert "compile [" not in out


def test_timing_report():
    out, err = run(args=", timing=True, progress=False")
    assert "done (2, 3)" in out
    for name in ("Execution time report", "MLIR pipeline (traced-cpu-pipeline)",
                 "TracedFlatten", "ConvertTracedToLinalg", "OneShotBufferizePass",
                 "translate to LLVM IR", "LLVM -O3", "LLVM code generation",
                 "Total"):
        assert name in err, name
    # Each stage's line: wall time, percentage, name.
    assert re.search(r"\d+\.\d+ \(\s*\d+\.\d+%\)\s+LLVM -O3", err)


def test_timing_report_attribute():
    import torch
    m = traced.trace(torch.nn.ReLU(), torch.randn(3))
    assert traced.compile(m).timing_report is None
    c = traced.compile(m, timing=True, progress=False)
    assert "LLVM code generation" in c.timing_report


def test_save_library_progress(tmp_path):
    script = (r"""
import torch, traced
m = traced.trace(torch.nn.ReLU(), torch.randn(3))
traced.save_library(m, %r, progress=True)
""" % str(tmp_path / "m.so"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    err = done.stderr.decode()
    assert steps(err) and "compile LLVM code generation" in err
