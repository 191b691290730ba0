"""TracedIR: traced model graphs as an MLIR dialect.

    import traced
    m = traced.trace(torchvision.models.resnet18().eval(), torch.randn(1, 3, 224, 224))
    print(m.graph)            # TracedModule-style graph
    m.save("resnet18.mlirbc")
"""
import os

from . import _traced
from ._traced import Error
from .compiler import CompiledModule, compile, save_library
from .module import Expr, ExprList, Graph, Module, ModuleView, Node
from ._tracing import UnknownTargetWarning

__all__ = ["CompiledModule", "Error", "Expr", "ExprList", "Graph", "Module", "ModuleView",
           "Node", "UnknownTargetWarning", "compile", "load", "parse",
           "save_library", "trace"]


def trace(module, *example_inputs, mode="auto", leaf_functions=()):
    """Traces a torch.nn.Module on example inputs into a traced.Module.

    mode="symbolic": torch.fx, one graph per non-leaf module; "concrete":
    records one real run through hooks; "auto": symbolic, falling back to
    concrete when torch.fx cannot trace the model.

    Plain Python functions are traced through (also those registered with
    `torch.fx.wrap`); each function in `leaf_functions` is kept as one
    opaque `call_function` instead, as `torch.fx.wrap` would. A call whose
    target the op library does not know gives an UnknownTargetWarning with
    the user's source line; every expr carries that line as its location.
    """
    import warnings

    from . import _tracers

    if mode not in ("auto", "symbolic", "concrete"):
        raise Error(f"unknown tracing mode '{mode}' (auto, symbolic, concrete)")
    leaf_functions = tuple(leaf_functions)
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


def parse(text, name="<string>"):
    """A Module from MLIR text or bytecode."""
    if isinstance(text, str):
        text = text.encode()
    return Module(_traced.parse(text, name))


def load(path):
    """Reads .mlir text, .mlirbc bytecode or a .json trace."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".json"):
        return Module(_traced.import_trace(data, path, os.path.dirname(os.path.abspath(path))))
    return Module(_traced.parse(data, path))
