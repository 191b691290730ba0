"""The layering check (tools/check_layers.py, run by `make check`): passes
on this tree, and fails on an include, a link or a Python import that
breaks the layers."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tools", "check_layers.py")


def run(root):
    return subprocess.run([sys.executable, SCRIPT, "--root", str(root)],
                          capture_output=True, text=True, timeout=120)


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_this_tree_passes():
    r = run(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "layering check: ok" in r.stdout


def test_an_include_from_below_fails(tmp_path):
    write(tmp_path, "lib/Support/A.cpp", '#include "TracedIR/Support/DType.h"\n')
    assert run(tmp_path).returncode == 0
    write(tmp_path, "lib/Support/B.cpp", '#include "TracedIR/Dialect/Traced/TracedOps.h"\n')
    r = run(tmp_path)
    assert r.returncode == 1
    assert "lib/Support/B.cpp:1: Support includes a header of Dialect" in r.stdout


def test_peers_do_not_include_each_other(tmp_path):
    write(tmp_path, "include/TracedIR/Transforms/X.h", '#include "TracedIR/Interpreter/Kernels.h"\n')
    r = run(tmp_path)
    assert r.returncode == 1 and "Transforms includes a header of Interpreter" in r.stdout


def test_a_link_from_below_fails(tmp_path):
    write(tmp_path, "lib/Transforms/CMakeLists.txt",
          "add_mlir_library(TracedTransforms\n  A.cpp\n\n  LINK_LIBS PUBLIC\n"
          "  TracedDialect\n  TracedKernels\n)\n")
    r = run(tmp_path)
    assert r.returncode == 1
    assert "TracedTransforms (Transforms) links TracedKernels (Interpreter)" in r.stdout


def test_a_python_import_cycle_fails(tmp_path):
    write(tmp_path, "python/traced/a.py", "from . import b\n")
    write(tmp_path, "python/traced/b.py", "def f():\n    from .a import g\n")
    r = run(tmp_path)
    assert r.returncode == 1
    assert "python/traced import cycle: a -> b -> a" in r.stdout
