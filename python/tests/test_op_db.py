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


def _check(name, info, known):
    """Runs one database entry; every path passes unless `known` (a path's
    {name: reason}) lists it, and a listed one must still fail. Returns the
    number of samples torch computes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TracerWarnings of concrete traces
        failures, ran = op_db.run_entry(info, PATHS)
    for path in PATHS:
        if name not in known[path]:
            assert not failures[path], f"{path}: " + "\n".join(failures[path][:10])
        else:
            assert failures[path], (f"{name} passes every sample on {path}: "
                                    f"remove it from op_db_known.py")
    return ran


@pytest.mark.parametrize("entry", sorted(OPS))
def test_op_db(entry):
    ran = _check(entry, OPS[entry], op_db.KNOWN)
    assert (ran == 0) == (entry in op_db.NO_SAMPLES), \
        f"{entry}: torch computes {ran} samples (op_db_known.NO_SAMPLES says " \
        f"{'none' if entry in op_db.NO_SAMPLES else 'some'})"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_db(module):
    assert _check(module, MODULES[module], op_db.MODULE_KNOWN) > 0, \
        f"{module}: torch computes none of its inputs"


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
