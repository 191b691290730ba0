"""TracedIR: traced PyTorch model graphs as an MLIR dialect.

Main entry points::

    import torch, torchvision, traced
    m = traced.trace(torchvision.models.resnet18().eval(),
                     torch.randn(1, 3, 224, 224))   # -> traced.Module
    print(m.graph)            # TracedModule-style graph of the root module
    m.summary()               # torchinfo-style table: shapes, parameters, MACs
    m.print_tabular()         # torch.fx print_tabular layout of the root graph
    m.save("resnet18.mlirbc") # .mlir text, .mlirbc bytecode or .json trace
    m2 = traced.load("resnet18.mlirbc")
    outs = m.interpret(x)     # reference interpreter, numpy in and out
    cm = traced.compile(m)    # native CPU code: cm(x) -> numpy arrays

- `trace`, `parse`, `load`: make a `Module`.
- `Module`, `ModuleView`, `Graph`, `Expr`, `Node`, `ExprList`: the IR and
  TracedModule's graph-surgery API.
- `Summary`, `SummaryRow`: what `Module.summary()` returns.
- `compile`, `CompiledModule`, `save_library`: native code.
- `Error` and its subclasses `TraceError`, `ParseError`, `VerifyError`,
  `PassError`, `InterpretError`, `CompileError`; `UnknownTargetWarning`.
- `python -m traced {trace,inspect,compile,draw} pkg.mod:factory`: the
  command line (`python -m traced --help`).

docs/python.md describes all of it.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Union

import torch

from . import _traced
from ._traced import Error
from .errors import (CompileError, InterpretError, ParseError, PassError,
                     TraceError, VerifyError, raising)
from .compiler import (CompiledModule, CudaCompiledModule, compile, compile_cuda,
                       save_library)
from .module import Expr, ExprList, Graph, Module, ModuleView, Node
from .summary import Summary, SummaryRow
from ._tracing import UnknownTargetWarning

__all__ = ["CompileError", "CompiledModule", "CudaCompiledModule", "Error",
           "Expr", "ExprList", "Graph",
           "InterpretError", "Module", "ModuleView", "Node", "ParseError",
           "PassError", "Summary", "SummaryRow", "TraceError",
           "UnknownTargetWarning", "VerifyError", "compile", "compile_cuda", "load", "parse",
           "save_library", "trace"]


def trace(module: torch.nn.Module, *example_inputs: Any, mode: str = "auto",
          leaf_functions: Iterable[Callable] = ()) -> Module:
    """Traces a torch.nn.Module on example inputs into a traced.Module.

    mode="symbolic": torch.fx, one graph per non-leaf module; "concrete":
    records one real run through hooks; "auto": symbolic, falling back to
    concrete when torch.fx cannot trace the model.

    Plain Python functions are traced through (also those registered with
    `torch.fx.wrap`); each function in `leaf_functions` is kept as one
    opaque `call_function` instead, as `torch.fx.wrap` would. A call whose
    target the op library does not know gives an UnknownTargetWarning with
    the user's source line; every expr carries that line as its location.

    Raises TraceError (a traced.Error) when the model cannot be recorded.
    """
    from . import _emit

    try:
        with raising(TraceError):
            return _trace(module, example_inputs, mode, tuple(leaf_functions))
    except _emit.EmitError as exc:  # a value the dialect cannot represent
        raise TraceError(str(exc)) from exc


def _trace(module, example_inputs, mode, leaf_functions):
    import warnings

    from . import _tracers

    if mode not in ("auto", "symbolic", "concrete"):
        raise Error(f"unknown tracing mode '{mode}' (auto, symbolic, concrete)")
    for f in leaf_functions:
        if not callable(f) or not hasattr(f, "__globals__"):
            raise Error(f"leaf_functions takes Python functions, not {f!r}")
    if mode in ("auto", "symbolic"):
        try:
            # Warnings wait until the tracer that is kept has finished.
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always", UnknownTargetWarning)
                builder = _tracers.trace_symbolic(module, example_inputs,
                                                  leaf_functions)
            for w in seen:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        except _tracers.TraceError:
            if mode == "symbolic":
                raise
            builder = _tracers.trace_concrete(module, example_inputs,
                                              leaf_functions)
    else:
        builder = _tracers.trace_concrete(module, example_inputs, leaf_functions)
    return Module(builder.build(f"<trace of {type(module).__name__}>"))


def parse(text: Union[str, bytes], name: str = "<string>") -> Module:
    """A Module from MLIR text (str or bytes) or bytecode; `name` is the
    file name diagnostics use. Raises ParseError with the diagnostics."""
    if isinstance(text, str):
        text = text.encode()
    with raising(ParseError):
        return Module(_traced.parse(text, name))


def load(path: Union[str, "os.PathLike[str]"]) -> Module:
    """Reads .mlir text, .mlirbc bytecode or a .json trace (by suffix), as
    `Module.save` writes them. Raises ParseError when the file does not
    parse or verify (OSError when it cannot be read)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    with raising(ParseError):
        if path.endswith(".json"):
            return Module(_traced.import_trace(
                data, path, os.path.dirname(os.path.abspath(path))))
        return Module(_traced.parse(data, path))
