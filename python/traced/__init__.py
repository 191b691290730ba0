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
    outs = m.interpret(x)     # reference interpreter: torch in, torch out
    cm = traced.compile(m)    # native CPU code: cm(x) -> a tensor (numpy in: numpy)

- `trace`, `parse`, `load`: make a `Module`.
- `Module`, `ModuleView`, `Graph`, `Expr`, `Node`, `ExprList`: the IR and
  TracedModule's graph-surgery API.
- `Summary`, `SummaryRow`: what `Module.summary()` returns.
- `compile`, `CompiledModule`, `save_library`: native code.
- `Error` and its subclasses `TraceError`, `ParseError`, `VerifyError`,
  `PassError`, `InterpretError`, `CompileError`, `InputError` (and
  `InterpretInputError`); `UnknownTargetWarning`.
- `python -m traced {trace,inspect,compile,draw} pkg.mod:factory`: the
  command line (`python -m traced --help`).

docs/python.md describes all of it.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Union

import torch

from . import _traced
from ._traced import Error
from .errors import (CompileError, InputError, InterpretError,
                     InterpretInputError, ParseError, PassError, TraceError,
                     VerifyError, raising)
from .compiler import (CompiledModule, CudaCompiledModule, compile, compile_cuda,
                       save_library)
from .module import Expr, ExprList, Graph, Module, ModuleView, Node
from .summary import Summary, SummaryRow
from ._tracing import UnknownTargetWarning

__all__ = ["CompileError", "CompiledModule", "CudaCompiledModule", "Error",
           "Expr", "ExprList", "Graph", "InputError",
           "InterpretError", "InterpretInputError", "Module", "ModuleView", "Node", "ParseError",
           "PassError", "Summary", "SummaryRow", "TraceError",
           "UnknownTargetWarning", "VerifyError", "compile", "compile_cuda", "load", "parse",
           "save_library", "trace"]


def trace(module: torch.nn.Module, *example_inputs: Any, mode: str = "auto",
          leaf_functions: Iterable[Callable] = (),
          dynamic_dims: Union[Dict[int, str],
                              Sequence[Optional[Dict[int, str]]], None] = None
          ) -> Module:
    """Traces a torch.nn.Module on example inputs into a traced.Module.

    mode="symbolic": torch.fx, one graph per non-leaf module; "concrete":
    records one real run through hooks; "auto": symbolic, falling back to
    concrete when torch.fx cannot trace the model.

    Plain Python functions are traced through (also those registered with
    `torch.fx.wrap`); each function in `leaf_functions` is kept as one
    opaque `call_function` instead, as `torch.fx.wrap` would. A call whose
    target the op library does not know gives an UnknownTargetWarning with
    the user's source line; every expr carries that line as its location.

    `dynamic_dims` marks input dims as dynamic (`?` in the types), by name:
    `{0: "batch"}` for a single input, or a list with a dict (or None) per
    input; dims with one name have one size at run time. The model is traced
    twice, at the example's sizes and with each dynamic dim one larger, and
    the two graphs must be the same but for those sizes: a graph that
    depends on them (a constant computed from `x.shape`, Python control
    flow on it) raises TraceError instead of being silently specialized.
    The result rules then carry the `?` through the graph, the interpreter
    runs any size, and `traced.compile` builds code for every size.

    Raises TraceError (a traced.Error) when the model cannot be recorded.
    """
    from . import _emit

    leaf_functions = tuple(leaf_functions)
    try:
        with raising(TraceError):
            dims = _dynamic_dim_list(example_inputs, dynamic_dims)
            traced = _trace(module, example_inputs, mode, leaf_functions)
            if dims:
                other = _trace(module, _grown_inputs(example_inputs, dims),
                               mode, leaf_functions)
                traced._state.merge_dynamic(other._state, dims)
            return traced
    except _emit.EmitError as exc:  # a value the dialect cannot represent
        raise TraceError(str(exc)) from exc


def _dynamic_dim_list(example_inputs, dynamic_dims):
    """`dynamic_dims` as a list of (input, dim, name), dims normalized;
    raises TraceError when it does not fit the example inputs."""
    if dynamic_dims is None:
        return []
    n = len(example_inputs)
    if isinstance(dynamic_dims, dict):
        if n != 1:
            raise TraceError(
                f"dynamic_dims is one dict, but the model takes {n} inputs: "
                f"give a list with a dict (or None) for each input")
        per_input = [dynamic_dims]
    elif isinstance(dynamic_dims, (list, tuple)):
        if len(dynamic_dims) != n:
            raise TraceError(
                f"dynamic_dims has {len(dynamic_dims)} entries for {n} inputs")
        per_input = list(dynamic_dims)
    else:
        raise TraceError("dynamic_dims takes a dict {dim: name} or a list of "
                         f"them, one per input, not {type(dynamic_dims).__name__}")
    dims, sizes = [], {}
    for i, (x, spec) in enumerate(zip(example_inputs, per_input)):
        if not spec:
            continue
        if not isinstance(spec, dict):
            raise TraceError(f"dynamic_dims[{i}] must be a dict {{dim: name}}")
        if not isinstance(x, torch.Tensor):
            raise TraceError(f"input {i} is a {type(x).__name__}; only the "
                             f"dims of tensor inputs can be dynamic")
        for d, name in spec.items():
            if isinstance(d, bool) or not isinstance(d, int) or \
                    not -x.dim() <= d < x.dim():
                raise TraceError(f"input {i} has {x.dim()} dims; dynamic dim "
                                 f"{d!r} is not one of them")
            if not isinstance(name, str) or not name.isidentifier():
                raise TraceError(f"dynamic dim {d} of input {i} needs a name "
                                 f"(an identifier), not {name!r}")
            d %= x.dim()
            size = x.shape[d]
            if size == 0:
                raise TraceError(f"dim {d} of input {i} is empty in the "
                                 f"example; trace a dynamic dim at size 1 or more")
            if sizes.setdefault(name, size) != size:
                raise TraceError(f"the dims named '{name}' have sizes "
                                 f"{sizes[name]} and {size} in the example")
            dims.append((i, d, name))
    return dims


def _grown_inputs(example_inputs, dims):
    """The example inputs with every dynamic dim one element longer (its
    first slice repeated), for the second trace."""
    grown = list(example_inputs)
    for i, d, _ in dims:
        x = grown[i]
        grown[i] = torch.cat([x, x.narrow(d, 0, 1)], d)
    return tuple(grown)


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
