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

__all__ = ["CompiledModule", "Error", "Expr", "ExprList", "Graph", "Module", "ModuleView",
           "Node", "compile", "load", "parse", "save_library", "trace"]


def trace(module, *example_inputs, mode="auto"):
    """Traces a torch.nn.Module on example inputs into a traced.Module.

    mode="symbolic": torch.fx, one graph per non-leaf module; "concrete":
    records one real run through hooks; "auto": symbolic, falling back to
    concrete when torch.fx cannot trace the model.
    """
    from . import _tracers

    if mode not in ("auto", "symbolic", "concrete"):
        raise Error(f"unknown tracing mode '{mode}' (auto, symbolic, concrete)")
    if mode in ("auto", "symbolic"):
        try:
            builder = _tracers.trace_symbolic(module, example_inputs)
        except _tracers.TraceError:
            if mode == "symbolic":
                raise
            builder = _tracers.trace_concrete(module, example_inputs)
    else:
        builder = _tracers.trace_concrete(module, example_inputs)
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
