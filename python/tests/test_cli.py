"""`python -m traced`, run in a subprocess on a factory module written to
the test's tmp dir."""
import os
import re
import subprocess
import sys

import pytest

import traced

FACTORIES = '''
import torch
import torch.nn as nn


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).mean((2, 3)))


def pair():
    torch.manual_seed(0)
    return Small(), torch.randn(2, 3, 16, 16)


def bare():
    torch.manual_seed(0)
    return Small()


def not_a_module():
    return 42


def complex_input():
    return nn.Identity(), torch.ones(2, dtype=torch.complex64)
'''


@pytest.fixture
def cli(tmp_path):
    (tmp_path / "tinymodels.py").write_text(FACTORIES)
    package = os.path.dirname(os.path.dirname(os.path.abspath(traced.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), package]))

    def run(*args, ok=True):
        done = subprocess.run([sys.executable, "-m", "traced", *args], env=env,
                              cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)
        if ok:
            assert done.returncode == 0, done.stderr
        return done
    return run


def test_trace_saves_every_format(cli, tmp_path):
    for suffix in ("mlir", "mlirbc", "json"):
        out = tmp_path / f"small.{suffix}"
        done = cli("trace", "tinymodels:pair", "-o", str(out))
        assert "traced Small: 3 modules, 260 parameters, 110,656 MACs" in done.stdout
        back = traced.load(out)
        assert back.root_name == "Small"
        assert back.graph.inputs[1].shape == (2, 3, 16, 16)
    # --input-shape replaces the factory's inputs, and works without them.
    done = cli("trace", "tinymodels:bare", "--input-shape", "1,3,8,8",
               "--mode", "concrete", "-o", str(tmp_path / "b.mlir"))
    assert "13,856 MACs" in done.stdout
    assert traced.load(tmp_path / "b.mlir").graph.inputs[1].shape == (1, 3, 8, 8)


def test_inspect(cli):
    graph = cli("inspect", "tinymodels:pair").stdout
    assert graph.startswith("Small.Graph (self, x) {") and "conv_out = conv(x)" in graph
    tabular = cli("inspect", "tinymodels:pair", "--tabular").stdout.splitlines()
    assert tabular[0].split() == ["opcode", "name", "target", "args", "kwargs"]
    assert tabular[-1].split() == ["output", "output", "output", "(fc_out,)", "{}"]
    summary = cli("inspect", "tinymodels:pair", "--summary").stdout
    assert re.search(r"^  conv\s+Conv2d\s+\[2, 8, 16, 16\]\s+float32\s+224\s+110,592$",
                     summary, re.M)
    assert "Total params: 260" in summary
    mlir = cli("inspect", "tinymodels:pair", "--mlir", "--debuginfo").stdout
    assert "traced.module root @Small" in mlir and "tinymodels.py" in mlir


def test_compile_compares_with_torch(cli):
    done = cli("compile", "tinymodels:pair", "--repeat", "3")
    error = float(re.search(r"max abs error vs torch: (\S+)", done.stdout).group(1))
    assert error < 1e-4
    assert re.search(r"latency: median [0-9.]+ ms over 3 runs", done.stdout)


def test_usage_errors(cli):
    for args, message in [
            (("trace", "tinymodels"), "expected MODEL as pkg.mod:factory"),
            (("trace", "nosuchmodule:f"), "cannot import nosuchmodule"),
            (("trace", "tinymodels:nope"), "no attribute 'nope'"),
            (("trace", "tinymodels:bare"), "pass --input-shape"),
            (("trace", "tinymodels:not_a_module"), "not a torch.nn.Module"),
            (("trace", "tinymodels:pair", "--input-shape", "1,x"), "expected sizes")]:
        done = cli(*args, ok=False)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)
    # A traced.Error: status 1 with the error's class.
    done = cli("trace", "tinymodels:complex_input", ok=False)
    assert done.returncode == 1
    assert done.stderr.startswith("error: TraceError: tensors of dtype torch.complex64")


def test_draw_writes_the_picture(cli, tmp_path):
    import shutil
    import xml.etree.ElementTree as ET
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is installed by the Makefile")
    out = tmp_path / "small.svg"
    done = cli("draw", "tinymodels:pair", str(out), "--params")
    assert f"wrote {out}" in done.stdout
    texts = ["".join(t.itertext()) for t in ET.parse(out).getroot().iter(
        "{http://www.w3.org/2000/svg}text")]
    assert "conv" in texts and "Conv2d" in texts
    assert "weight [8, 3, 3, 3] float32" in texts
    assert "[2, 3, 16, 16] float32" in texts
    bad = cli("draw", "tinymodels:pair", str(tmp_path / "x.gif"), ok=False)
    assert bad.returncode != 0 and "cannot tell the picture format" in bad.stderr


def test_saved_modules_are_models(cli, tmp_path):
    # inspect, compile and draw take a module saved as .mlir, .mlirbc or
    # .json, as trace -o writes them (they were refused as pkg.mod:factory).
    saved = tmp_path / "small.mlirbc"
    cli("trace", "tinymodels:pair", "-o", str(saved))
    graph = cli("inspect", str(saved)).stdout
    assert graph.startswith("Small.Graph (self, x) {") and "conv_out = conv(x)" in graph
    summary = cli("inspect", str(saved), "--summary").stdout
    assert "Total params: 260" in summary
    done = cli("compile", str(saved), "--repeat", "2")
    error = float(re.search(r"max abs error vs the interpreter: (\S+)",
                            done.stdout).group(1))
    assert error < 1e-4
    again = tmp_path / "again.json"
    assert "wrote" in cli("trace", str(saved), "-o", str(again)).stdout
    assert traced.load(again).graph.inputs[1].shape == (2, 3, 16, 16)
    missing = cli("inspect", str(tmp_path / "nope.mlirbc"), ok=False)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_dynamic_dims_option(cli, tmp_path):
    out = tmp_path / "dyn.mlirbc"
    done = cli("trace", "tinymodels:pair", "--dynamic-dims", "0=batch", "-o", str(out))
    assert "(at size 1 of every dynamic dim)" in done.stdout
    m = traced.load(out)
    assert m.graph.inputs[1].shape == (None, 3, 16, 16)
    assert 'traced.dim_names = ["batch", "", "", ""]' in str(m)
    # By the input's name, too; a saved module's compile takes the sizes of
    # its dynamic dims from --input-shape.
    cli("trace", "tinymodels:pair", "--dynamic-dims", "x:0=batch", "-o", str(out))
    done = cli("compile", str(out), "--input-shape", "5,3,16,16", "--repeat", "1")
    assert "max abs error vs the interpreter" in done.stdout
    for args, message in [
            (("trace", str(out), "--dynamic-dims", "0=batch"), "applies when tracing"),
            (("trace", "tinymodels:pair", "--dynamic-dims", "y:0=b"), "no input named 'y'"),
            (("trace", "tinymodels:pair", "--dynamic-dims", "0:batch"), "expected [INPUT:]DIM=NAME")]:
        bad = cli(*args, ok=False)
        assert bad.returncode == 2 and message in bad.stderr, (args, bad.stderr)
    bad = cli("trace", "tinymodels:pair", "--dynamic-dims", "1=c", ok=False)
    assert bad.returncode == 1 and "cannot be dynamic" in bad.stderr


def test_compile_writes_a_shared_library(cli, tmp_path):
    import ctypes

    import numpy as np
    import torch
    lib_path = tmp_path / "libsmall.so"
    done = cli("compile", "tinymodels:pair", "-o", str(lib_path))
    assert f"wrote {lib_path}" in done.stdout
    assert "(tensor<2x3x16x16xf32>) -> tensor<2x4xf32>" in done.stdout
    lib = ctypes.CDLL(str(lib_path))
    entry = lib.traced_forward
    entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
    module_globals = {}
    exec(FACTORIES, module_globals)
    model, x = module_globals["pair"]()
    a = np.ascontiguousarray(x.numpy())
    out = np.empty((2, 4), np.float32)
    assert entry((ctypes.c_void_p * 1)(a.ctypes.data),
                 (ctypes.c_void_p * 1)(out.ctypes.data)) == 0
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(out), model.eval()(x))


def test_draw_takes_a_saved_module(cli, tmp_path):
    import shutil
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is installed by the Makefile")
    saved = tmp_path / "small.mlir"
    cli("trace", "tinymodels:pair", "-o", str(saved))
    out = tmp_path / "small.svg"
    assert f"wrote {out}" in cli("draw", str(saved), str(out)).stdout
    assert "Conv2d" in out.read_text()
