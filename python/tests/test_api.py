"""The public API: the exception hierarchy, docstrings, type hints."""
import inspect
import pydoc
import typing

import numpy as np
import pytest
import torch
import torch.nn as nn

import traced
from traced import _traced
from models import SimpleModule

SUBCLASSES = [traced.TraceError, traced.ParseError, traced.VerifyError,
              traced.PassError, traced.InterpretError, traced.CompileError]


def test_hierarchy():
    assert traced.Error is _traced.Error
    for cls in SUBCLASSES:
        assert issubclass(cls, traced.Error) and cls is not traced.Error
        assert cls.__module__ == "traced.errors"
        assert getattr(traced, cls.__name__) is cls
    assert len(set(SUBCLASSES)) == len(SUBCLASSES)


class Branchy(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return -x


def raises(cls, fn, match=None):
    """fn() raises exactly `cls`, which `except traced.Error` also catches."""
    with pytest.raises(cls, match=match) as info:
        fn()
    assert type(info.value) is cls
    try:
        fn()
    except traced.Error as exc:   # what existing callers write
        return exc
    raise AssertionError("no error the second time")


def test_trace_errors():
    raises(traced.TraceError, lambda: traced.trace(Branchy(), torch.ones(3),
                                                   mode="symbolic"), "control flow")
    raises(traced.TraceError, lambda: traced.trace(Branchy(), torch.ones(3),
                                                   mode="magic"), "unknown tracing mode")
    raises(traced.TraceError, lambda: traced.trace(
        Branchy(), torch.ones(3), leaf_functions=[1]), "leaf_functions")
    # A dtype the dialect has no type for: was a bare EmitError before.
    for mode in ("auto", "symbolic", "concrete"):
        raises(traced.TraceError, lambda: traced.trace(
            nn.Identity(), torch.ones(2, dtype=torch.complex64), mode=mode),
            "complex64 are not supported")


def test_parse_and_load_errors(tmp_path):
    raises(traced.ParseError, lambda: traced.parse("traced.module @M class 1 {}"),
           r"<string>:1:\d+: error: ")
    raises(traced.ParseError, lambda: traced.parse(b"\x00\x01garbage"))
    for suffix in ("mlir", "mlirbc", "json"):
        bad = tmp_path / f"bad.{suffix}"
        bad.write_bytes(b"{ not a model")
        raises(traced.ParseError, lambda: traced.load(bad))
    with pytest.raises(OSError):
        traced.load(tmp_path / "missing.mlir")


def test_verify_error_wraps_the_verifier():
    tm = traced.trace(SimpleModule(), torch.zeros(3, 4))
    tm.verify()   # valid IR: nothing raised

    # The Python API checks every edit, so invalid IR only comes from below
    # it; a state whose verifier fails stands in for that.
    class Broken:
        def verify(self):
            raise _traced.Error("error: 'traced.graph' op broken")

    object.__setattr__(tm, "_state", Broken())
    raises(traced.VerifyError, tm.verify, "op broken")


def test_pass_interpret_and_compile_errors():
    tm = traced.trace(SimpleModule(), torch.zeros(3, 4))
    raises(traced.PassError, lambda: tm.run_passes("no-such-pass"))
    # An input the graph does not take: an InputError, and from interpret
    # an InterpretError too.
    exc = raises(traced.InterpretInputError,
                 lambda: tm.interpret(np.zeros((3, 4), np.complex64)),
                 "has dtype complex64")
    assert isinstance(exc, traced.InterpretError) and isinstance(exc, traced.InputError)
    raises(traced.InterpretError, lambda: tm.interpret(np.zeros((3, 4), np.float32),
                                                       graph="nope"))
    raises(traced.CompileError, lambda: traced.compile(tm, target="gpu"),
           "unknown target")
    raises(traced.CompileError, lambda: traced.compile(tm, entry="nope"))

    class Poisson(nn.Module):
        def forward(self, x):
            return torch.poisson(x)

    with pytest.warns(traced.UnknownTargetWarning):
        unknown = traced.trace(Poisson(), torch.rand(3))
    raises(traced.InterpretError, lambda: unknown.interpret(np.ones(3, np.float32)),
           "torch.poisson")
    raises(traced.CompileError, lambda: traced.compile(unknown))


def test_other_misuse_stays_a_plain_error():
    tm = traced.trace(SimpleModule(), torch.zeros(3, 4))
    exc = raises(traced.Error, lambda: tm.graph.get_expr_by_id(999).as_unique())
    assert type(exc) is traced.Error


def _public_members(cls):
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        yield name, member


def test_every_public_name_has_a_docstring():
    missing = []
    for name in traced.__all__:
        obj = getattr(traced, name)
        if not (obj.__doc__ or "").strip():
            missing.append(name)
    for cls in (traced.Module, traced.Graph, traced.Node, traced.Expr,
                traced.FxNode, traced.NodeList,
                traced.ModuleView, traced.ExprList, traced.CompiledModule,
                traced.Summary, traced.SummaryRow):
        for name, member in _public_members(cls):
            if isinstance(member, property):
                doc = member.fget.__doc__
            elif callable(member) or isinstance(member, (staticmethod, classmethod)):
                doc = getattr(member, "__doc__", None)
            else:
                continue
            if not (doc or "").strip():
                missing.append(f"{cls.__name__}.{name}")
    assert missing == []
    assert traced.Module.summary.__doc__ and traced.Graph.print_tabular.__doc__


def test_help_lists_the_entry_points():
    text = pydoc.render_doc(traced, renderer=pydoc.plaintext)
    for entry in ("traced.trace(", "traced.load(", "traced.compile(", "m.summary()",
                  "m.print_tabular()", "python -m traced", "TraceError"):
        assert entry in text, entry


def test_public_signatures_have_type_hints():
    for fn in (traced.trace, traced.parse, traced.load, traced.compile,
               traced.save_library, traced.Module.summary, traced.Module.interpret,
               traced.Module.save, traced.Graph.exprs, traced.Graph.print_tabular):
        hints = typing.get_type_hints(fn)
        assert "return" in hints, fn.__qualname__
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.name != "self" and p.kind is not p.VAR_KEYWORD]
        assert all(p.name in hints for p in params), fn.__qualname__
    assert typing.get_type_hints(traced.Module.summary)["return"] is traced.Summary
