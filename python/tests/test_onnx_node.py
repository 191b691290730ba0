"""The ONNX backend node tests (onnx_node.py): every in-scope case of
Debian's libonnx-testdata imported with traced.from_onnx, interpreted and
compiled for the CPU, against the expected outputs. A case passes unless
onnx_node_known.py lists it for the path, and a listed case must still
fail (the list only shrinks). docs/reference/onnx_node.md is the table."""
import pathlib

import pytest

import onnx_node

ROOT = pathlib.Path(__file__).resolve().parents[2]

if not onnx_node.available():
    pytest.skip("libonnx-testdata is not installed (the Makefile's "
                "BUILD_PACKAGES has it)", allow_module_level=True)

CASES = [c for c in onnx_node.cases() if onnx_node.scope(c) is None]


@pytest.mark.parametrize("case", CASES)
def test_node(case):
    result = onnx_node.run_case(case)
    for path, why in result.items():
        if case in onnx_node.KNOWN[path]:
            assert why, f"{case} passes on {path}: remove it from onnx_node_known.py"
        else:
            assert not why, f"{path}: {why}"


def test_scope_and_rate():
    """The suite is the 932 cases of ONNX 1.12, most of them in scope, and
    at least 80% of those pass on each path (issue 57's bar)."""
    assert len(onnx_node.cases()) == 932
    assert len(CASES) >= 850
    for path in ("interp", "cpu"):
        stale = set(onnx_node.KNOWN[path]) - set(CASES)
        assert not stale, f"onnx_node_known.py lists cases not in scope: {sorted(stale)}"
        assert len(CASES) - len(onnx_node.KNOWN[path]) >= 0.8 * len(CASES)


def test_table_is_current():
    table = ROOT / "docs" / "reference" / "onnx_node.md"
    assert table.read_text() == onnx_node.table(), \
        "docs/reference/onnx_node.md is stale: run 'make docs'"
