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
    traced.trace(fn, x, mask=am)  # functions too, and keyword inputs

- `trace`, `parse`, `load`: make a `Module`.
- `Module`, `ModuleView`, `Graph`, `Expr`, `Node`, `ExprList`: the IR and
  TracedModule's graph-surgery API; `FxNode`, `NodeList`: torch.fx's view of
  the same graphs (`for node in graph.nodes`).
- `Summary`, `SummaryRow`: what `Module.summary()` returns.
- `compile`, `CompiledModule`, `save_library`: native code.
- `Error` and its subclasses `TraceError`, `ParseError`, `VerifyError`,
  `PassError`, `InterpretError`, `CompileError`, `SurgeryError`,
  `InputError` (and `InterpretInputError`); `TracerWarning`,
  `UnknownTargetWarning`.
- `python -m traced {trace,inspect,compile,draw} pkg.mod:factory` (or a
  saved .mlir/.mlirbc/.json): the command line (`python -m traced --help`).

docs/python.md describes all of it.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Union

import torch

from . import _tools, _traced
from ._traced import Error
from .errors import (CompileError, InputError, InterpretError,
                     InterpretInputError, ParseError, PassError, ResourceError,
                     SurgeryError, TraceError, VerifyError, raising)
from ._limits import get_limits, limits, set_limits
from ._threads import get_num_threads, set_num_threads
from .compiler import (CompiledModule, CudaCompiledModule, compile, compile_cuda,
                       save_library)
from .module import Expr, ExprList, FxNode, Graph, Module, ModuleView, Node, NodeList
from .generate import generate
from .summary import Summary, SummaryRow
from ._tracing import TracerWarning, UnknownTargetWarning
from ._tracing import class_name as _class_name

__all__ = ["CompileError", "CompiledModule", "CudaCompiledModule", "Error",
           "Expr", "ExprList", "FxNode", "Graph", "InputError",
           "InterpretError", "InterpretInputError", "Module", "ModuleView",
           "Node", "NodeList", "ParseError", "PassError", "ResourceError",
           "Summary",
           "SummaryRow", "SurgeryError", "TraceError", "TracerWarning",
           "UnknownTargetWarning", "VerifyError", "compile", "compile_cuda",
           "from_onnx", "generate", "get_limits", "get_num_threads", "limits",
           "load", "parse", "save_library", "set_limits", "set_num_threads",
           "trace"]


def trace(module: Union[torch.nn.Module, Callable[..., Any]], *example_inputs: Any,
          mode: str = "auto",
          leaf_functions: Iterable[Callable] = (),
          dynamic_dims: Union[Dict[int, str], Dict[str, Dict[int, str]],
                              Sequence[Optional[Dict[int, str]]], None] = None,
          **example_kwargs: Any) -> Module:
    """Traces a torch.nn.Module (or a Python function) on example inputs
    into a traced.Module.

    The example inputs bind to the forward's parameters as in a call:
    `traced.trace(model, ids, attention_mask=am)`; the graph's inputs are
    the forward's parameters in its order, up to the last one given (a
    parameter skipped in between takes its default, usually None). A
    single tuple is the inputs, as with torch.jit.trace (`trace(m, (x,))`
    is `trace(m, x)`), unless the forward's first parameter is annotated as
    a tuple, list or Sequence or the tuple's elements do not bind to the
    forward's parameters; to pass one tuple to a forward that takes one,
    write `trace(m, ((a, b),))`. Keyword inputs cannot be named `mode`,
    `leaf_functions` or `dynamic_dims` (pass those positionally).

    `module` may also be a plain Python function (or a bound method of a
    module): it is traced as the forward of a module named after it, its
    parameters naming the graph's inputs. A `torch.jit.script` module is
    traced through the Python class it was scripted from (rebuilt from its
    parameters, buffers, submodules and attributes); a module that has
    none (`torch.jit.load`, `torch.jit.trace`) raises TraceError.

    mode="symbolic": torch.fx, one graph per non-leaf module; "concrete":
    records one real run through hooks; "auto": symbolic, falling back to
    concrete when torch.fx cannot trace the model.

    Plain Python functions are traced through (also those registered with
    `torch.fx.wrap`); each function in `leaf_functions` is kept as one
    opaque `call_function` instead, as `torch.fx.wrap` would. A call whose
    target the op library does not know gives an UnknownTargetWarning with
    the user's source line; every expr carries that line as its location.

    `dynamic_dims` marks input dims as dynamic (`?` in the types), by name:
    `{0: "batch"}` for a single input, a list with a dict (or None) per
    input, or a dict by the forward's parameter names (`{"ids": {1:
    "seq"}, "attention_mask": {1: "seq"}}`); dims with one name have one
    size at run time. The model is traced twice, at the example's sizes
    and with each dynamic dim one larger, and the two graphs must be the
    same but for those sizes: a graph that depends on them (a constant
    computed from `x.shape`, Python control flow on it) raises TraceError
    instead of being silently specialized, and so does a dim the model
    fixes (a Linear's in_features), naming the dim and the line that
    refuses another size. The result rules then carry the `?` through the
    graph, the interpreter runs any size, and `traced.compile` builds code
    for every size.

    Raises TraceError (a traced.Error) when the model cannot be recorded
    or the example inputs do not fit it.
    """
    from . import _emit

    try:
        leaf_functions = tuple(leaf_functions)
    except TypeError:
        raise TraceError(f"leaf_functions takes a list of Python functions, "
                         f"not {type(leaf_functions).__name__}") from None
    try:
        with raising(TraceError):
            original, module = module, _as_module(module)
            inputs, names = _example_inputs(module, example_inputs,
                                            example_kwargs)
            dims = _dynamic_dim_list(inputs, names, dynamic_dims)
            from ._tracers import SizeTracking
            probe = SizeTracking() if dims else None
            try:
                traced = _trace(module, inputs, mode, leaf_functions, probe)
            except AttributeError as exc:
                if not isinstance(original, torch.jit.ScriptModule):
                    raise
                raise TraceError(
                    f"{type(module).__name__} was rebuilt from its TorchScript "
                    f"module, which did not keep an attribute its forward "
                    f"reads ({exc}): trace the torch.nn.Module itself") from exc
            if dims and traced._trace_mode == "concrete":
                # Sizes as values (docs/llm.md): the grown trace reads the
                # dims that differ from the first trace's shapes as SymInts,
                # then the first trace again against the grown one's.
                by_input = {}
                for i, d, _ in dims:
                    by_input.setdefault(i, set()).add(d)
                grown = SizeTracking(probe.log, by_input)
                other = _grown_trace(module, inputs, names, dims, "concrete",
                                     leaf_functions, grown)
                traced = _trace(module, inputs, "concrete", leaf_functions,
                                SizeTracking(grown.log, by_input))
                traced._state.merge_dynamic(other._state, dims)
            elif dims:
                other = _grown_trace(module, inputs, names, dims, mode,
                                     leaf_functions)
                traced._state.merge_dynamic(other._state, dims)
            return traced
    except _emit.EmitError as exc:  # a value the dialect cannot represent
        raise TraceError(str(exc)) from exc


# -- what traced.trace takes ---------------------------------------------------------

def _as_module(obj):
    """The torch.nn.Module to trace for what the user passed: a module, a
    scripted module's Python original, or a module around a function."""
    if isinstance(obj, torch.jit.ScriptFunction):
        raise TraceError(
            f"{obj.name} is a TorchScript function (torch.jit.script), which "
            f"keeps no Python to trace: trace the Python function itself")
    if isinstance(obj, torch.jit.ScriptModule):
        return _unscripted(obj, {})
    if isinstance(obj, torch.nn.Module):
        return obj
    if callable(obj):
        return _function_module(obj)
    raise TraceError(f"traced.trace takes a torch.nn.Module or a Python "
                     f"function, not {type(obj).__name__}")


def _unscripted(scripted, memo):
    """A torch.jit.script module as an instance of the Python class it was
    scripted from, holding its parameters, buffers, submodules (rebuilt in
    turn) and attributes."""
    if id(scripted) in memo:
        return memo[id(scripted)]
    concrete = getattr(scripted, "_concrete_type", None)
    cls = getattr(concrete, "py_class", None)
    name = getattr(scripted, "original_name", type(scripted).__name__)
    if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)) or \
            cls.__module__.startswith("torch.jit"):
        how = ("torch.jit.trace" if isinstance(scripted, torch.jit.TopLevelTracedModule)
               or (isinstance(cls, type) and cls.__module__.startswith("torch.jit"))
               else "torch.jit.load")
        raise TraceError(
            f"{name} is a TorchScript module ({how}) without the Python class "
            f"it came from, so there is no Python to trace: trace the "
            f"torch.nn.Module itself (a torch.jit.script module of a class "
            f"defined in this process is traced through that class)")
    module = cls.__new__(cls)
    torch.nn.Module.__init__(module)
    memo[id(scripted)] = module
    for key, value in scripted._parameters.items():
        module._parameters[key] = value
    for key, value in scripted._buffers.items():
        module._buffers[key] = value
    for key, value in scripted._modules.items():
        module._modules[key] = (_unscripted(value, memo)
                                if isinstance(value, torch.jit.ScriptModule)
                                else value)
    taken = set(module._parameters) | set(module._buffers) | set(module._modules)
    for key, value in concrete.get_constants().items():
        module.__dict__[key] = value
    for key in concrete.get_attributes():
        if key not in taken and key != "training":
            try:
                module.__dict__[key] = getattr(scripted, key)
            except AttributeError:
                pass
    module.training = scripted.training
    return module


def _function_module(fn):
    """A torch.nn.Module whose forward calls `fn` with the same parameters,
    its class named after the function (the root traced.module's symbol).
    A bound method of a module keeps that module as the submodule
    `model`, so its parameters stay parameters."""
    import builtins
    import inspect
    import re

    name = re.sub(r"\W", "_", getattr(fn, "__name__", "") or "").strip("_")
    if not name or name[0].isdigit():
        name = "function"
    owner = getattr(fn, "__self__", None)
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature
        sig = None
    namespace = {"_fn": fn, "_defaults": {}}
    params, call = ["_self_"], []
    if sig is None:
        params.append("*args")
        call.append("*args")
    else:
        kinds = inspect.Parameter
        slash = False
        star = False
        for p in sig.parameters.values():
            text = p.name
            if p.default is not p.empty:
                namespace["_defaults"][p.name] = p.default
                text += f"=_defaults[{p.name!r}]"
            if p.kind is kinds.POSITIONAL_ONLY:
                slash = True
            elif slash:
                params.append("/")
                slash = False
            if p.kind is kinds.VAR_POSITIONAL:
                params.append("*" + p.name)
                call.append("*" + p.name)
                star = True
                continue
            if p.kind is kinds.VAR_KEYWORD:
                params.append("**" + p.name)
                call.append("**" + p.name)
                continue
            if p.kind is kinds.KEYWORD_ONLY:
                if not star:
                    params.append("*")
                    star = True
                call.append(f"{p.name}={p.name}")
            else:
                call.append(p.name)
            params.append(text)
        if slash:
            params.append("/")
    target = "_fn"
    if isinstance(owner, torch.nn.Module):
        # (self.model.<method>: the module stays the forward's submodule.)
        target = f"_self_.model.{fn.__name__}"
    source = (f"def forward({', '.join(params)}):\n"
              f"    return {target}({', '.join(call)})\n")
    # A file name inside the package: the tracers' source locations skip
    # this wrapper for the function's own lines.
    filename = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            f"_function_{name}.py")
    exec(builtins.compile(source, filename, "exec"), namespace)
    module_name = getattr(fn, "__module__", None) or "traced"
    if module_name.startswith("torch"):
        module_name = "traced.function"
    cls = type(name, (torch.nn.Module,), {
        "forward": namespace["forward"], "__module__": module_name,
        "__doc__": f"traced.trace's module around {name}."})
    cls.__qualname__ = getattr(fn, "__qualname__", name).replace(".", "_") \
        if owner is None else name
    module = cls()
    if isinstance(owner, torch.nn.Module):
        module.model = owner
        module.train(owner.training)
    else:
        module.eval()
    return module


def _forward_signature(module):
    import inspect
    try:
        return inspect.signature(module.forward)
    except (TypeError, ValueError):
        return None


def _takes_sequence(param):
    """Whether a parameter is annotated as a tuple, list or Sequence."""
    import collections.abc
    import typing
    ann = param.annotation
    if ann is param.empty:
        return False
    if isinstance(ann, str):
        return ann.replace("typing.", "").split("[")[0].strip() in (
            "tuple", "Tuple", "list", "List", "Sequence")
    origin = typing.get_origin(ann) or ann
    return origin in (tuple, list, collections.abc.Sequence, typing.Sequence)


def _example_inputs(module, args, kwargs):
    """The example inputs in the forward's order, and their names (the
    forward's parameters): keyword inputs go to their parameters, a
    skipped parameter takes its default, and a single tuple is the inputs
    when forward does not take a tuple (torch.jit.trace's convention)."""
    import inspect

    sig = _forward_signature(module)
    cls = _class_name(module)
    if sig is None:
        if kwargs:
            raise TraceError(f"{cls}.forward has no signature to bind keyword "
                             f"inputs to: pass them positionally")
        return tuple(args), [f"arg{i}" for i in range(len(args))]
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                  p.POSITIONAL_OR_KEYWORD)]
    if len(args) == 1 and not kwargs and type(args[0]) is tuple and not (
            positional and _takes_sequence(positional[0])):
        try:
            sig.bind(*args[0])
            args = args[0]
        except TypeError:
            pass  # one tuple input (a forward that takes a tuple)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as exc:
        listing = ", ".join(str(p) for p in params)
        raise TraceError(f"the example inputs do not fit {cls}.forward"
                         f"({listing}): {exc}") from None
    given = bound.arguments
    inputs, names = [], []
    last = max((i for i, p in enumerate(params) if p.name in given), default=-1)
    for i, p in enumerate(params[:last + 1]):
        if p.kind is p.VAR_POSITIONAL:
            values = given.get(p.name, ())
            inputs.extend(values)
            names.extend(f"{p.name}_{k}" for k in range(len(values)))
        elif p.kind is p.VAR_KEYWORD or p.kind is p.KEYWORD_ONLY:
            if p.name in given:
                raise TraceError(
                    f"{cls}.forward takes '{p.name}' by keyword only"
                    f"{' (**' + p.name + ')' if p.kind is p.VAR_KEYWORD else ''}; "
                    f"traced graphs take positional inputs: give forward a "
                    f"positional parameter for it, or trace a function that "
                    f"passes it")
        else:
            inputs.append(given[p.name] if p.name in given else p.default)
            names.append(p.name)
    return tuple(inputs), names


def _dynamic_dim_list(example_inputs, names, dynamic_dims):
    """`dynamic_dims` as a list of (input, dim, name), dims normalized;
    raises TraceError when it does not fit the example inputs."""
    from ._calls import label
    if dynamic_dims is None:
        return []
    n = len(example_inputs)
    if isinstance(dynamic_dims, dict) and dynamic_dims and \
            all(isinstance(k, str) for k in dynamic_dims):
        unknown = [k for k in dynamic_dims if k not in names]
        if unknown:
            raise TraceError(f"dynamic_dims names '{unknown[0]}', which is no "
                             f"input (the inputs: {', '.join(names)})")
        per_input = [dynamic_dims.get(name) for name in names]
    elif isinstance(dynamic_dims, dict):
        if n != 1:
            raise TraceError(
                f"dynamic_dims is one dict, but the model takes {n} inputs: "
                f"give a list with a dict (or None) for each input, or a "
                f"dict by input name")
        per_input = [dynamic_dims]
    elif isinstance(dynamic_dims, (list, tuple)):
        if len(dynamic_dims) != n:
            raise TraceError(
                f"dynamic_dims has {len(dynamic_dims)} entries for {n} inputs")
        per_input = list(dynamic_dims)
    else:
        raise TraceError("dynamic_dims takes a dict {dim: name}, a list of "
                         "them (one per input) or a dict of them by input "
                         f"name, not {type(dynamic_dims).__name__}")
    dims, sizes = [], {}
    for i, (x, spec) in enumerate(zip(example_inputs, per_input)):
        if not spec:
            continue
        which = label(i + 1, names[i])
        if not isinstance(spec, dict):
            raise TraceError(f"dynamic_dims for {which} must be a dict "
                             f"{{dim: name}}")
        if not isinstance(x, torch.Tensor):
            raise TraceError(f"{which} is a {type(x).__name__}; only the "
                             f"dims of tensor inputs can be dynamic")
        for d, name in spec.items():
            if isinstance(d, bool) or not isinstance(d, int) or \
                    not -x.dim() <= d < x.dim():
                raise TraceError(f"{which} has {x.dim()} dims; dynamic dim "
                                 f"{d!r} is not one of them")
            if not isinstance(name, str) or not name.isidentifier():
                raise TraceError(f"dynamic dim {d} of {which} needs a name "
                                 f"(an identifier), not {name!r}")
            d %= x.dim()
            size = x.shape[d]
            if size == 0:
                raise TraceError(f"dim {d} of {which} is empty in the "
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


def _grown_trace(module, inputs, names, dims, mode, leaf_functions, sizes=None):
    """The second trace of a dynamic_dims trace. The model's own error at
    the grown sizes (a Linear whose in_features a dynamic dim feeds) is a
    TraceError naming the dim the model fixes and the user's line."""
    try:
        return _trace(module, _grown_inputs(inputs, dims), mode, leaf_functions,
                      sizes)
    except Error:
        raise
    except Exception as exc:  # the model's own code refused the sizes
        raise _fixed_dim_error(module, inputs, names, dims, exc) from exc


def _fixed_dim_error(module, inputs, names, dims, exc):
    from ._calls import label
    from ._tracing import user_frame

    # The dims of each name grow together; the first name whose dims alone
    # make the model fail is the culprit (else all of them together).
    by_name = {}
    for dim in dims:
        by_name.setdefault(dim[2], []).append(dim)
    def refusal(group):
        try:
            with torch.no_grad():
                module(*[x.clone() if isinstance(x, torch.Tensor) else x
                         for x in _grown_inputs(inputs, group)])
        except Exception as e:  # noqa: BLE001 - the model's refusal
            return e
        return None

    culprit, error = None, None
    for group in list(by_name.values()) + [list(dims)]:
        error = refusal(group)
        if error is not None:
            culprit = group
            break
    if culprit is None:  # the model runs at those sizes; the tracer did not
        return TraceError(
            f"the second trace, with the dynamic dims one larger, failed: "
            f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}")
    frame = user_frame(error.__traceback__)
    where = (f"{frame.filename}:{frame.lineno}" +
             (f" ({frame.line.strip()})" if frame.line else "") + " raises ") \
        if frame else "the model raises "
    what = " and ".join(f"dim {d} ('{name}') of {label(i + 1, names[i])}"
                        for i, d, name in culprit)
    first = culprit[0]
    size = inputs[first[0]].shape[first[1]]
    message = (str(error).strip().splitlines() or [""])[0]
    return TraceError(
        f"{what} cannot be dynamic: the model fixes its size, {size}. At "
        f"{size + 1}, {where}{type(error).__name__}: {message}")


def _trace(module, example_inputs, mode, leaf_functions, sizes=None):
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
            ran = "symbolic"
        except _tracers.TraceError as exc:
            if mode == "symbolic":
                raise
            warnings.warn(
                f"torch.fx cannot trace {type(module).__name__} symbolically "
                f"({_first_line(exc)}); traced it concretely instead: "
                f"Python control flow on tensors follows this run and is "
                f"checked by guards, Python numbers are constants (but "
                f"sizes of dynamic dims, which stay values) "
                f"(docs/python.md, \"Guards\")", TracerWarning, stacklevel=3)
            builder = _tracers.trace_concrete(module, example_inputs,
                                              leaf_functions, sizes)
            ran = "concrete"
    else:
        builder = _tracers.trace_concrete(module, example_inputs, leaf_functions,
                                          sizes)
        ran = "concrete"
    traced = Module(builder.build(f"<trace of {type(module).__name__}>"))
    object.__setattr__(traced, "_trace_mode", ran)
    return traced


def _first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _sandbox_tool() -> str:
    """The tool that parses untrusted bytes in a child process first
    (docs/reliability.md, "Untrusted input"): $TRACED_SANDBOX_TOOL, else
    the package's own traced-opt (traced/bin, `pip install .`), else the
    traced-opt of the build this package's extension belongs to
    (build/python/traced/_traced*.so -> build/bin/traced-opt)."""
    tool = os.environ.get("TRACED_SANDBOX_TOOL")
    if tool:
        return tool
    return _tools.tool_path("traced-opt")


def parse(text: Union[str, bytes], name: str = "<string>", *,
          trusted: bool = False) -> Module:
    """A Module from MLIR text (str or bytes) or bytecode; `name` is the
    file name diagnostics use. Raises ParseError with the diagnostics.

    Bytecode is untrusted (docs/reliability.md, "Untrusted input"): bytes
    carrying TracedIR's integrity stamp must match it, and every bytecode
    input is parsed first by traced-opt in a child process with memory,
    CPU-time and stack limits, so that a file MLIR's reader crashes or
    hangs on raises ParseError instead. `trusted=True` skips the child for
    bytecode whose stamp verified (files `Module.save` wrote, unchanged)."""
    if isinstance(text, str):
        text = text.encode()
    with raising(ParseError):
        return Module(_traced.parse(text, name, _sandbox_tool(), trusted))


def from_onnx(source, constant_inputs: Optional[Dict[str, Any]] = None
              ) -> Module:
    """Reads an ONNX model (a path, or its bytes) as a traced module
    (docs/onnx.md): a root module whose parameters are the initializers
    and whose forward graph calls op-library entries for the nodes, so
    that interpret, compile and the surgery passes take it as any trace.
    `constant_inputs` maps graph input names to values (arrays, tensors)
    for inputs the graph uses as shapes, axes or sizes: an input that a
    node needs as a constant is replaced by its value and leaves the
    graph's inputs. Raises ParseError for a model that is malformed or
    uses what TracedIR does not import, naming the node."""
    from . import _onnx
    with raising(ParseError):
        return Module(_onnx.from_onnx(source, constant_inputs))


def load(path: Union[str, "os.PathLike[str]"], *,
         trusted: bool = False) -> Module:
    """Reads .mlir text, .mlirbc bytecode or a .json trace (by suffix), as
    `Module.save` writes them. Raises ParseError when the file does not
    parse or verify (OSError when it cannot be read). Bytecode is checked
    and parsed in a sandboxed child first, as in `parse` (`trusted`
    likewise)."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    with raising(ParseError):
        if path.endswith(".json"):
            return Module(_traced.import_trace(
                data, path, os.path.dirname(os.path.abspath(path))))
        return Module(_traced.parse(data, path, _sandbox_tool(), trusted))
