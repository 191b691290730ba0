"""No file kills or hangs the Python process (docs/reliability.md,
"Untrusted input").

MLIR 22's bytecode reader aborts, spins or writes past a heap buffer on
corrupt files. traced.load and traced.parse check TracedIR's integrity stamp
(a BLAKE3 hash in the bytecode producer string), then let traced-opt read
the bytes in a child process with limits, and parse the module the child
wrote back. Every test here loads the bad file in the test process itself:
a crash would take pytest down with it.
"""
import os
import pathlib
import shutil
import subprocess
import threading
import time

import numpy as np
import pytest
import torch

import traced
from traced import _traced

ROOT = pathlib.Path(__file__).resolve().parents[2]
UPSTREAM = ROOT / "test" / "Fuzz" / "upstream"
STAMP = b"TracedIR+blake3:"


def tool_env():
    """This process's environment without LD_PRELOAD: `make check-asan`
    preloads the sanitizer runtime into Python, and it would clash with the
    one linked into a sanitized traced-opt (the loader drops it too)."""
    return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def small_model():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 3)

        def forward(self, x):
            return torch.relu(self.linear(x))

    return traced.trace(Net().eval(), torch.randn(2, 4))


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("untrusted") / "net.mlirbc"
    small_model().save(path)
    return path


def test_sandbox_tool_is_the_builds_traced_opt():
    tool = traced._sandbox_tool()
    assert os.path.basename(tool) == "traced-opt"
    assert os.access(tool, os.X_OK), tool


@pytest.mark.parametrize("reader", ["load", "parse"])
def test_reader_abort_is_a_parse_error(reader):
    # LLVM ERROR: SmallVector unable to grow, in the child.
    path = UPSTREAM / "bytecode-counts.mlirbc"
    with pytest.raises(traced.ParseError,
                       match=r"corrupt bytecode: the reader crashed \(signal 6, "
                             r"Aborted\) in the sandboxed process .* LLVM ERROR: "
                             r"SmallVector unable to grow"):
        if reader == "load":
            traced.load(path)
        else:
            traced.parse(path.read_bytes(), str(path))


@pytest.mark.parametrize("reader", ["load", "parse"])
def test_reader_hang_is_a_parse_error(reader, monkeypatch):
    # More than two minutes of spinning in the reader, without the limit.
    monkeypatch.setenv("TRACED_SANDBOX_TIMEOUT", "1")
    path = UPSTREAM / "bytecode-attr-recursion.mlirbc"
    start = time.monotonic()
    with pytest.raises(traced.ParseError,
                       match=r"corrupt bytecode: the reader did not finish "
                             r"within (its CPU-time limit of 1 s|[0-9.]+ s "
                             r"\(wall clock\))"):
        if reader == "load":
            traced.load(path)
        else:
            traced.parse(path.read_bytes(), str(path))
    assert time.monotonic() - start < 30


def test_reader_heap_overflow_is_a_parse_error():
    # The reader writes past a heap buffer: the child crashes or refuses
    # the file, depending on its heap; this process never reads the bytes.
    path = UPSTREAM / "bytecode-offset-heap-write.mlirbc"
    for _ in range(3):
        with pytest.raises(traced.ParseError,
                           match="corrupt bytecode: the reader crashed|"
                                 "offset points past the end of section"):
            traced.load(path)


def test_saved_bytecode_carries_the_stamp(saved):
    data = saved.read_bytes()
    assert data.startswith(b"ML\xefR")
    assert data[5:5 + len(STAMP)] == STAMP  # the producer string


@pytest.mark.parametrize("trusted", [False, True])
def test_truncated_file_is_refused(saved, tmp_path, trusted):
    data = saved.read_bytes()
    for cut in (1, len(data) // 2, len(data) - 200):
        bad = tmp_path / f"cut{cut}.mlirbc"
        bad.write_bytes(data[:-cut])
        with pytest.raises(traced.ParseError,
                           match=rf"corrupt bytecode: truncated: the file has "
                                 rf"{len(data) - cut} bytes, TracedIR wrote "
                                 rf"{len(data)}"):
            traced.load(bad, trusted=trusted)


@pytest.mark.parametrize("trusted", [False, True])
def test_flipped_bit_is_refused(saved, tmp_path, trusted):
    data = saved.read_bytes()
    for at in (0x70, len(data) // 2, len(data) - 1):
        flipped = bytearray(data)
        flipped[at] ^= 0x10
        bad = tmp_path / f"flip{at}.mlirbc"
        bad.write_bytes(bytes(flipped))
        with pytest.raises(traced.ParseError,
                           match="corrupt bytecode: checksum mismatch: its "
                                 "bytes changed after TracedIR wrote them"):
            traced.load(bad, trusted=trusted)
        with pytest.raises(traced.ParseError, match="checksum mismatch"):
            traced.parse(bytes(flipped), trusted=trusted)


def test_appended_bytes_are_refused(saved, tmp_path):
    bad = tmp_path / "longer.mlirbc"
    bad.write_bytes(saved.read_bytes() + b"\0")
    with pytest.raises(traced.ParseError, match=r"\(bytes were appended\)"):
        traced.load(bad)


def test_damaged_stamp_is_refused(saved, tmp_path):
    data = bytearray(saved.read_bytes())
    data[5 + len(STAMP) + 3] = ord("g")  # not a hex digit
    bad = tmp_path / "stamp.mlirbc"
    bad.write_bytes(bytes(data))
    with pytest.raises(traced.ParseError, match="integrity stamp is damaged"):
        traced.load(bad)


def test_unstamped_bytecode_loads_through_the_sandbox(saved, tmp_path,
                                                     monkeypatch):
    # Old files (and upstream's) have another producer: same module.
    plain = tmp_path / "plain.mlirbc"
    plain.write_bytes(saved.read_bytes().replace(STAMP, b"TracedIR-nostamp", 1))
    m, again = traced.load(saved), traced.load(plain)
    assert str(m) == str(again)
    # `trusted` trusts only a stamp that verified: this file still goes
    # through the child, which needs the tool.
    monkeypatch.setenv("TRACED_SANDBOX_TOOL", "/nonexistent/traced-opt")
    with pytest.raises(traced.ParseError,
                       match="cannot check untrusted bytecode in a "
                             "sandboxed process: cannot start the sandbox "
                             "tool '/nonexistent/traced-opt'"):
        traced.load(plain, trusted=True)
    # A verified stamp with trusted=True needs no child.
    assert str(traced.load(saved, trusted=True)) == str(m)
    # Text never goes through the child.
    assert str(traced.parse(str(m))) == str(m)


def test_refusal_carries_the_childs_diagnostics(saved, tmp_path):
    plain = saved.read_bytes().replace(STAMP, b"TracedIR-nostamp", 1)
    bad = tmp_path / "half.mlirbc"
    bad.write_bytes(plain[:len(plain) // 2])
    with pytest.raises(traced.ParseError, match=r"half\.mlirbc:0:0: error: "):
        traced.load(bad)


def test_load_from_threads(saved):
    # The child is spawned, never forked from this multi-threaded process;
    # the GIL is released while it reads.
    results, errors = [], []

    def run():
        try:
            results.append(str(traced.load(saved)))
            traced.load(UPSTREAM / "bytecode-counts.mlirbc")
        except traced.ParseError as e:
            errors.append(str(e))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and len(set(results)) == 1
    assert len(errors) == 4 and all("SmallVector" in e for e in errors)


@pytest.fixture(scope="module")
def resnet18(tmp_path_factory):
    torchvision = pytest.importorskip("torchvision")
    model = torchvision.models.resnet18().eval()  # random weights
    x = torch.randn(1, 3, 32, 32)
    m = traced.trace(model, x)
    path = tmp_path_factory.mktemp("resnet18") / "resnet18.mlirbc"
    m.save(path)
    return model, x, m, path


@pytest.mark.parametrize("trusted", [False, True])
def test_resnet18_round_trip(resnet18, trusted):
    model, x, m, path = resnet18
    again = traced.load(path, trusted=trusted)
    assert str(again) == str(m)
    before, after = m.state_dict(), again.state_dict()
    assert before.keys() == after.keys() and len(after) == 122
    for key in before:
        assert torch.equal(before[key], after[key]), key
    out = again.interpret(x.numpy())[0]
    np.testing.assert_allclose(out, model(x).detach().numpy(), rtol=1e-4,
                               atol=1e-5)


def test_stamped_file_is_plain_mlir_bytecode(resnet18, tmp_path):
    _, _, m, path = resnet18
    # traced-opt reads it as any bytecode (through its own sandbox), and so
    # does upstream's mlir-opt, which ignores the producer string: no
    # conversion is needed.
    tool = traced._sandbox_tool()
    r = subprocess.run([tool, str(path), "-o", str(tmp_path / "r18.mlir")],
                       capture_output=True, text=True, env=tool_env())
    assert r.returncode == 0, r.stderr
    assert str(traced.load(tmp_path / "r18.mlir")) == str(m)
    mlir_opt = shutil.which("mlir-opt") or "/usr/lib/llvm-22/bin/mlir-opt"
    if not os.path.exists(mlir_opt):
        pytest.skip("no upstream mlir-opt (Debian's mlir-22-tools)")
    r = subprocess.run([mlir_opt, "--allow-unregistered-dialect", str(path),
                        "-o", os.devnull], capture_output=True, text=True,
                       env=tool_env())
    assert r.returncode == 0, r.stderr


def test_probe_child_reproduces_by_hand():
    # `traced-opt --traced-probe-input < file` runs the child in the
    # foreground (docs/reliability.md): here it aborts as the reader does.
    tool = traced._sandbox_tool()
    with open(UPSTREAM / "bytecode-counts.mlirbc", "rb") as f:
        r = subprocess.run([tool, "--traced-probe-input"], stdin=f,
                           capture_output=True, env=tool_env())
    assert r.returncode == -6
    assert b"SmallVector unable to grow" in r.stderr


def test_internal_parse_checks_the_stamp(saved):
    # _traced.parse without a sandbox tool (the package's own text) still
    # refuses bytecode whose stamp does not match.
    data = bytearray(saved.read_bytes())
    data[-1] ^= 1
    with pytest.raises(traced.Error, match="checksum mismatch"):
        _traced.parse(bytes(data), "x.mlirbc")
