"""PyTorch's op_db and module_db as conformance samples (op_db.py): every
in-scope op entry runs its first samples per dtype, and every module its
first inputs, on the interpreter and compiled for the CPU, against torch
element by element at assert_close's tolerances.

An entry passes every sample unless op_db_known.py lists it for the path,
and a listed entry must still fail (so the list only shrinks as the library
grows). TRACED_OP_DB_PATHS=interp (or cpu) runs one path only.
"""
import os
import pathlib
import warnings

import pytest

import op_db

OPS = op_db.entries()
MODULES = op_db.module_entries()
PATHS = os.environ.get("TRACED_OP_DB_PATHS", "interp,cpu").split(",")
ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("entry", sorted(OPS))
def test_op_db(entry):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TracerWarnings of concrete traces
        failures, ran = op_db.run_entry(OPS[entry], PATHS)
    assert (ran == 0) == (entry in op_db.NO_SAMPLES), \
        f"{entry}: torch computes {ran} samples (op_db_known.NO_SAMPLES says " \
        f"{'none' if entry in op_db.NO_SAMPLES else 'some'})"
    for path in PATHS:
        known = op_db.KNOWN[path].get(entry)
        if known is None:
            assert not failures[path], f"{path}: " + "\n".join(failures[path][:10])
        else:
            assert failures[path], (f"{entry} passes every sample on {path}: "
                                    f"remove it from op_db_known.py")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_db(module):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failures, ran = op_db.run_entry(MODULES[module], PATHS)
    assert ran > 0, f"{module}: torch computes none of its inputs"
    for path in PATHS:
        known = op_db.MODULE_KNOWN[path].get(module)
        if known is None:
            assert not failures[path], f"{path}: " + "\n".join(failures[path][:10])
        else:
            assert failures[path], (f"{module} passes every input on {path}: "
                                    f"remove it from op_db_known.py")


def test_known_lists_name_entries_in_scope():
    for path in ("interp", "cpu"):
        stale = set(op_db.KNOWN[path]) - set(OPS)
        assert not stale, f"op_db_known.py lists entries not in scope: {sorted(stale)}"
        stale = set(op_db.MODULE_KNOWN[path]) - set(MODULES)
        assert not stale, f"op_db_known.py lists unknown modules: {sorted(stale)}"
    assert op_db.NO_SAMPLES <= set(OPS)


def test_table_is_current():
    table = ROOT / "docs" / "reference" / "op_db.md"
    assert table.read_text() == op_db.table(), \
        "docs/reference/op_db.md is stale: run 'make docs'"
