"""What both tracers share: module symbols, leaf modules, and an emitter
that turns calls on traced values into traced exprs."""
import re
import os
import sys
import traceback
import types
import warnings

import torch

from . import _traced
from ._emit import GraphRecord, py_value, symbol, type_of, unique_name

_CONTAINERS = (torch.nn.Sequential, torch.nn.ModuleList, torch.nn.ModuleDict)


def class_name(module):
    cls = type(module)
    return f"{cls.__module__}.{cls.__qualname__}"


def is_known_leaf(module):
    """A module whose class the op library describes (Conv2d, ...), and
    which has no forward pre-hooks: a pre-hook (nn.utils.weight_norm's,
    spectral_norm's) computes what forward reads, so such a module is traced
    into like a user module."""
    return (_traced.is_known_module(class_name(module))
            and not getattr(module, "_forward_pre_hooks", None))


def is_torch_leaf(module):
    """torch.fx's notion of a leaf: a torch.nn module that is no container
    (torch.ao.nn's quantized modules too)."""
    return (type(module).__module__.startswith(("torch.nn", "torch.ao.nn"))
            and not isinstance(module, _CONTAINERS))


def qualified_function_name(func):
    """`torch.nn.functional.relu`, `operator.add`, `torch.flatten`."""
    if isinstance(func, str):
        return func
    module = getattr(func, "__module__", None)
    name = getattr(func, "__name__", None) or repr(func)
    if module in (None, "torch._C._VariableFunctions"):
        module = "torch"
    if module == "_operator":
        module = "operator"
    # torch.linalg.* and torch.special.* are bindings of torch._C._linalg
    # (`linalg_vector_norm`) and torch._C._special: their Python names.
    for private, public in (("torch._C._linalg", "linalg"),
                            ("torch._C._special", "special")):
        if module == private and name.startswith(public + "_"):
            return f"torch.{public}.{name[len(public) + 1:]}"
    # ATen overloads and packets: `torch.ops.aten.add.Tensor`, as spelled in
    # Python (their module is `torch._ops.aten`).
    if module and module.startswith("torch._ops."):
        module = "torch.ops." + module[len("torch._ops."):]
    return f"{module}.{name}"


def _fits(jit_type, value, is_tensor, fixed_size=None):
    """Whether `value` can bind a schema parameter of TorchScript type
    `jit_type` (its text: `Tensor`, `Optional[List[int]]`, `number`);
    `fixed_size`: the N of an `int[N]`, the only lists one int stands for."""
    if jit_type.startswith("Optional["):
        return value is None or _fits(jit_type[9:-1], value, is_tensor, fixed_size)
    if is_tensor(value):
        return jit_type in ("Tensor", "Any", "t")
    if jit_type.startswith("List["):
        inner = jit_type[5:-1]
        if isinstance(value, (list, tuple)):
            return all(_fits(inner, v, is_tensor) for v in value)
        # `int[2] stride=1`: a single int broadcasts to a fixed-size list.
        return inner == "int" and fixed_size is not None and \
            isinstance(value, int) and not isinstance(value, bool)
    if jit_type == "int":  # also ScalarType, Layout and MemoryFormat
        return (isinstance(value, int) and not isinstance(value, bool)) or \
            isinstance(value, (torch.dtype, torch.layout, torch.memory_format))
    if jit_type == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if jit_type == "number":
        return isinstance(value, (int, float, bool))
    if jit_type == "bool":
        return isinstance(value, bool)
    if jit_type == "str":
        return isinstance(value, str)
    return jit_type in ("Any", "t", "Device", "Generator")


def resolve_aten_packet(packet, args, kwargs, is_tensor):
    """The overload of an ATen packet (`torch.ops.aten.var`) that torch
    dispatches a call to: the first in registration order whose schema the
    arguments bind to (out and in-place overloads aside). None when no
    overload fits."""
    for overload in packet.overloads():
        schema = getattr(packet, overload)._schema
        if schema.is_mutable:
            continue
        params = schema.arguments
        positional = [a for a in params if not a.kwarg_only]
        if len(args) > len(positional):
            continue
        names = {a.name for a in params}
        if any(k not in names for k in kwargs):
            continue
        ok = True
        for i, a in enumerate(params):
            if i < len(args) and not a.kwarg_only:
                value = args[i]
            elif a.name in kwargs:
                value = kwargs[a.name]
            elif a.has_default_value() or str(a.type).startswith("Optional["):
                continue
            else:
                ok = False
                break
            if not _fits(str(a.type), value, is_tensor, a.N):
                ok = False
                break
        if ok:
            return overload
    return None


def aten_target(func, args, kwargs, is_tensor):
    """The traced target of a call to `func`: for an ATen packet, the
    overload torch dispatches to, when the op library knows it (the packet
    `torch.ops.aten.var` binds differently per overload). A torch function
    the op library does not know by name but whose ATen op it knows is that
    ATen overload (`torch.fliplr(x)` is `torch.ops.aten.fliplr.default`, an
    entry with a parameter fixed: the Python function is the binding of
    that op, so they compute the same)."""
    name = qualified_function_name(func)
    if not isinstance(func, torch._ops.OpOverloadPacket):
        return _aten_of_unknown(func, name, args, kwargs, is_tensor) or name
    overload = resolve_aten_packet(func, args, kwargs or {}, is_tensor)
    if overload is None:
        return name
    resolved = f"{name}.{overload}"
    if _traced.is_known_function(resolved) or not _traced.is_known_function(name):
        return resolved
    return name


def _aten_of_unknown(func, name, args, kwargs, is_tensor):
    """For a function of torch's own bindings (torch._C._VariableFunctions)
    that the op library does not know, the ATen overload its arguments
    bind to when the op library knows that one; else None."""
    if not isinstance(func, types.BuiltinFunctionType) \
            or not name.startswith("torch.") or name.count(".") != 1 \
            or _traced.is_known_function(name):
        return None
    packet = getattr(torch.ops.aten, name[len("torch."):], None)
    if not isinstance(packet, torch._ops.OpOverloadPacket):
        return None
    overload = resolve_aten_packet(packet, args, kwargs or {}, is_tensor)
    resolved = f"torch.ops.aten.{name[len('torch.'):]}.{overload}"
    return resolved if overload and _traced.is_known_function(resolved) else None


_BINARY_EXTREMES = {"max": "maximum", "min": "minimum"}


def binary_extreme(name, args, kwargs, is_tensor):
    """torch.max / torch.min (and the methods) called with a tensor `other`
    are their `max.other` overloads, torch.maximum / torch.minimum: the name
    to record. `args` follow the input (the receiver of a method)."""
    short = name.rsplit(".", 1)[-1]
    if short not in _BINARY_EXTREMES or name not in ("torch.max", "torch.min", short):
        return name
    other = args[0] if args else (kwargs or {}).get("other")
    if other is None or not is_tensor(other):
        return name
    return name[:-len(short)] + _BINARY_EXTREMES[short]


# ATen's ScalarType codes, which torch.ops.aten calls may pass for `dtype`.
_SCALAR_TYPES = {0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32,
                 4: torch.int64, 5: torch.float16, 6: torch.float32,
                 7: torch.float64, 11: torch.bool, 15: torch.bfloat16}


def aten_kwargs(target, kwargs):
    """An ATen call's keywords with a `dtype` given as a ScalarType code
    (`torch.ops.aten.cumsum(x, 1, dtype=6)`) spelled as the torch.dtype."""
    dtype = (kwargs or {}).get("dtype")
    if not target.startswith("torch.ops.aten.") or isinstance(dtype, bool) or \
            not isinstance(dtype, int) or dtype not in _SCALAR_TYPES:
        return kwargs
    return {**kwargs, "dtype": _SCALAR_TYPES[dtype]}


def deprecated_alpha(args, kwargs, first):
    """`torch.add(x, 3, 2)` binds torch's deprecated overload `add(Tensor
    input, Number alpha, Tensor other)`: x + 3 * 2. `args` start at the
    input's position (`first` is 1 for functions, 0 for methods, whose
    receiver is apart); the call is respelled `add(x, 2, alpha=3)`."""
    kwargs = kwargs or {}
    if len(args) != first + 2 or "alpha" in kwargs or "other" in kwargs:
        return args, kwargs
    alpha = args[first]
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        return args, kwargs
    return tuple(args[:first]) + (args[first + 1],), {**kwargs, "alpha": alpha}


def method_arguments(method, args, kwargs):
    """A method call's arguments after the receiver, as the op library
    binds them: `x.add(3, 2)` is the deprecated overload (`deprecated_alpha`)."""
    if method in ("add", "sub", "add_", "sub_"):
        return deprecated_alpha(args, kwargs, 0)
    return args, kwargs


#: Python functions of `*tensors`: one tensor given alone is a list of one
#: (the op library takes a traced value bound to `*tensors` alone as the
#: list itself, which it is when it is a traced tuple).
STAR_TENSORS = {f"torch.{m}{n}" for m in ("", "functional.")
                for n in ("meshgrid", "cartesian_prod", "block_diag",
                          "broadcast_tensors")}


def aten_positional(target, args, kwargs):
    """An ATen overload's call with its keyword arguments for positional
    parameters moved into place (`upsample_nearest2d.vec(x,
    output_size=s, scale_factors=None)`): the op library binds an overload
    by its own parameter names, which may differ from ATen's (`self` is
    `input`, `output_size` interpolate's `size`), and positions are the
    same in both. (args, kwargs). torch.add and torch.sub's deprecated
    `(input, alpha, other)` overload is spelled with `alpha=`."""
    if target in STAR_TENSORS and len(args) == 1 and isinstance(args[0], torch.Tensor):
        return [list(args)], kwargs
    if target in ("torch.add", "torch.sub"):
        args, kwargs = deprecated_alpha(args, kwargs, 1)
    if not target.startswith(("torch.ops.aten.", "torch.ops.prims.")):
        return args, kwargs
    parts = target.split(".")
    if len(parts) != 5:
        return args, kwargs
    packet = getattr(getattr(torch.ops, parts[2]), parts[3], None)
    overload = getattr(packet, parts[4], None) if packet is not None else None
    schema = getattr(overload, "_schema", None)
    if schema is None:
        return args, kwargs
    args, kwargs = list(args), dict(kwargs or {})
    for i, a in enumerate(schema.arguments):
        if a.kwarg_only or i < len(args):
            continue
        if a.name not in kwargs:
            break
        args.append(kwargs.pop(a.name))
    # ScalarType parameters given as ATen's codes (`input_dtype=6`) are
    # spelled as the torch.dtype.
    text = str(schema)  # (TorchScript types a ScalarType as int)
    for i, a in enumerate(schema.arguments):
        if not re.search(r"ScalarType\??\s+" + re.escape(a.name) + r"\b", text):
            continue
        def spelled(v):
            return _SCALAR_TYPES.get(v, v) if isinstance(v, int) and \
                not isinstance(v, bool) else v
        if not a.kwarg_only and i < len(args):
            args[i] = spelled(args[i])
        elif a.name in kwargs:
            kwargs[a.name] = spelled(kwargs[a.name])
    return tuple(args), kwargs


def user_frame(tb_or_stack):
    """The innermost frame outside torch and traced: the user's line."""
    frames = (traceback.extract_tb(tb_or_stack)
              if not isinstance(tb_or_stack, list) else tb_or_stack)
    for frame in reversed(frames):
        if not _is_internal(frame.filename):
            return frame
    return frames[-1] if frames else None


def caller_location():
    """(file, line, column) of the innermost frame of the running stack
    outside torch and traced (the user's call being recorded)."""
    f = sys._getframe(1)
    while f is not None:
        code = f.f_code
        if not _is_internal(code.co_filename):
            col = 0
            try:
                positions = list(code.co_positions())
                pos = positions[f.f_lasti // 2] if f.f_lasti >= 0 else None
                if pos and pos[2] is not None:
                    col = pos[2] + 1
            except (AttributeError, IndexError):
                pass
            return code.co_filename, f.f_lineno, col
        f = f.f_back
    return None


class TracerWarning(UserWarning):
    """traced.trace() specialized something it could not record as it is:
    mode="auto" fell back to concrete tracing (torch.fx's reason in the
    message), so data-dependent Python control flow became guards."""


class UnknownTargetWarning(UserWarning):
    """A traced call whose target the op library does not describe: the
    trace keeps it, but the interpreter and the compilers will refuse it."""


# Targets a trace may hold that are no op-library entries: calls the
# verifier resolves itself.
_STRUCTURAL = {"operator.getitem", "builtins.getattr"}

_FRAME = re.compile(r'File "(.+)", line (\d+), in ')


def frame_of_stack_trace(text):
    """The user's frame in an fx node's `stack_trace`, as (file, line)."""
    if not text:
        return None
    # fx walks the stack from the user's frame outwards: innermost first.
    frames = _FRAME.findall(text)
    for path, line in frames:
        if not _is_internal(path):
            return path, int(line), 0
    return None


# torch's own Python (F.embedding calling torch.embedding, torch._assert
# dispatching to __torch_function__) is never the user's line.
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)).replace("\\", "/") + "/"


def _is_internal(path):
    path = path.replace("\\", "/")
    return path.startswith(_TORCH_DIR) or "/traced/_" in path


def frame_location(frame):
    """(file, line, column) of a traceback FrameSummary."""
    if frame is None:
        return None
    col = getattr(frame, "colno", None)
    return frame.filename, frame.lineno, (col + 1) if col is not None else 0


def mlir_location(where, scope):
    """` loc(...)`: a file:line:col location, inside a NameLoc with the
    module path (`layer1.0`) when the call is made in a submodule's graph."""
    if where is None:
        return ""
    file, line, col = where
    file = file.replace("\\", "\\\\").replace('"', '\\"')
    inner = f'"{file}":{line}:{col}'
    if scope:
        scope = scope.replace('"', '\\"')
        return f' loc("{scope}"({inner}))'
    return f" loc({inner})"


def check_known(kind, target, where, opaque=()):
    """Warns, with the user's source line, when a call's target is unknown
    to the op library (user leaf functions in `opaque` are meant to be)."""
    if target in opaque or target in _STRUCTURAL:
        return
    name = target if kind == "call_function" else f"Tensor.{target}"
    if _traced.is_known_function(name):
        return
    message = (f"unknown target '{name}': the op library does not describe "
               f"it, so the interpreter and the compilers will refuse it")
    if where is None:
        warnings.warn(message, UnknownTargetWarning, stacklevel=2)
    else:  # reported at the user's line
        warnings.warn_explicit(message, UnknownTargetWarning, where[0], where[1])


def symbolize_modules(root, builder):
    """Gives every module instance under `root` a symbol: the root's class
    name, and the attribute path for the others (`layer1_0_conv1`)."""
    used = set()

    def unique(name):
        return unique_name(name or "module", used, digit_prefix="m")

    records = {}
    for path, module in root.named_modules():
        if id(module) in builder.module_symbols:
            continue  # a shared instance keeps its first symbol
        builder.module_paths[id(module)] = path
        sym = unique(type(root).__name__ if path == "" else path)
        records[id(module)] = (module, builder.declare_module(module, sym,
                                                              root=path == ""))
    for module, rec in records.values():
        builder.declare_attributes(module, rec)
    return records


class GraphEmitter:
    """Emits the exprs of one graph: values are tracked by a key chosen by
    the tracer (an fx node, or a live tensor's id)."""

    def __init__(self, builder, module, graph_name="forward"):
        self.builder = builder
        self.module = module
        self.sym = builder.module_symbols[id(module)]
        self.graph = GraphRecord(graph_name, self.sym)
        builder.modules[self.sym].graphs[graph_name] = self.graph
        self.self_name = self.graph.add_input("self", f"!traced.module<{symbol(self.sym)}>")
        self.scope = builder.module_paths.get(id(module), "")
        self.names = {}  # key -> (ssa name, type)
        self.tuple_values = {}  # id(tuple a call returned) -> (ssa name, type)
        self._getattr_cache = {}
        self._paths = None

    # -- values ------------------------------------------------------------
    def add_input(self, key, hint, value):
        ty = type_of(value, self.builder.module_symbols)
        name = self.graph.add_input(hint, ty)
        self.names[key] = (name, ty)
        return name

    def define(self, key, name, ty=None):
        # `name` may be a list of (name, type): a graph call's results.
        self.names[key] = name if ty is None else (name, ty)

    # -- attribute paths -------------------------------------------------------
    def module_path(self, target):
        """The attribute path from this graph's module to `target`."""
        if self._paths is None:
            self._paths = {}
            for path, m in self.module.named_modules():
                self._paths.setdefault(id(m), path)
        return self._paths.get(id(target))

    def tensor_path(self, tensor):
        """The path of a parameter or buffer of this module's subtree."""
        for path, m in self.module.named_modules():
            for table in (m._parameters, m._buffers):
                for name, t in table.items():
                    if t is tensor:
                        return f"{path}.{name}" if path else name
        return None

    def getattr_chain(self, path):
        """`self.a.b.c` as a chain of getattr exprs; returns (name, type)."""
        if path == "":
            return self.self_name, f"!traced.module<{symbol(self.sym)}>"
        if path in self._getattr_cache:
            return self._getattr_cache[path]
        parent_path, _, attr = path.rpartition(".")
        parent_name, parent_type = self.getattr_chain(parent_path)
        owner = self.module.get_submodule(parent_path) if parent_path else self.module
        value = getattr(owner, attr)
        ty = type_of(value, self.builder.module_symbols)
        name = self.graph.fresh(attr if not attr[0].isdigit() else f"{owner.__class__.__name__}_{attr}")
        self.graph.emit(f"{name} = getattr {parent_name}[\"{attr}\"] : {parent_type} -> {ty}")
        self._getattr_cache[path] = (name, ty)
        return name, ty

    def constant(self, value, hint="const", where=None):
        loc = mlir_location(where, self.scope)
        if isinstance(value, torch.Tensor):
            blob = self.builder.blob(f"{self.sym}_{hint}", value)
            ty = type_of(value, {})
            name = self.graph.fresh(hint)
            self.graph.emit(f"{name} = constant dense_resource<{blob}> : {ty}{loc}")
            return name, ty
        ty = type_of(value, self.builder.module_symbols)
        name = self.graph.fresh(hint)
        self.graph.emit(f"{name} = constant {py_value(value, lambda v: None)} : {ty}{loc}")
        return name, ty

    # -- calls -----------------------------------------------------------------
    def call(self, kind, target, receiver, args, kwargs, result, ref, hint,
             flatten=False, where=None):
        """Emits a call; `ref(v)` returns (name, type) for traced values in
        the arguments (a list of them for a graph call's several results), or
        None for constants. Returns the result's (name, type); with
        `flatten` (a call of a graph returning a tuple) a list of them, one
        per element, as the graph returns them."""
        operands, operand_types = [], []

        def name_of(v):
            r = ref(v)
            if r is None:
                return None
            entries = r if isinstance(r, list) else [r]
            for n, t in entries:
                operands.append(n)
                operand_types.append(t)
            if isinstance(r, list):
                return "(" + "".join(n + ", " for n, _ in entries) + ")"
            return r[0]

        parts = [py_value(a, name_of) for a in args]
        parts += [f"{k}={py_value(v, name_of)}" for k, v in kwargs.items()]
        results = list(result) if flatten else [result]
        result_types = [type_of(r, self.builder.module_symbols) for r in results]
        name = self.graph.fresh(hint)
        if kind == "call_function":
            head = f"call_function \"{target}\""
            in_types = operand_types
        else:
            head = f"call_method {receiver[0]}[\"{target}\"]"
            in_types = [receiver[1]] + operand_types
        lhs = name if len(results) == 1 else f"{name}:{len(results)}"
        if not results:
            lhs = None
        self.graph.emit((f"{lhs} = " if lhs else "") +
                        f"{head}({', '.join(parts)}) : "
                        f"({', '.join(in_types)}) -> ({', '.join(result_types)})"
                        + mlir_location(where, self.scope))
        if not flatten:
            return name, result_types[0]
        if len(results) == 1:
            return [(name, result_types[0])]
        return [(f"{name}#{i}", t) for i, t in enumerate(result_types)]

    def set_outputs(self, values, ref):
        outputs = []
        for i, v in enumerate(values):
            r = ref(v)
            if r is None and isinstance(v, (tuple, list)):
                # A call's tuple result (torch.split) returned as it is.
                r = self.tuple_values.get(id(v))
            if r is None and _holds_tensor(v):
                # A tuple, list or dict built in Python around traced
                # tensors: no expr builds one, and a constant of it would
                # hold the example's values (silently wrong on any other
                # input).
                from .errors import TraceError
                kind = ("dict" if isinstance(v, dict) else
                        "list" if isinstance(v, list) else "tuple")
                raise TraceError(
                    f"output #{i} of the graph is a {kind} built "
                    f"in Python that holds tensors; traced graphs return "
                    f"tensors, Python values and the tuples that calls return "
                    f"(torch.split): return its tensors as separate outputs")
            if r is None:
                r = self.constant(v, "out")
            outputs.extend(r if isinstance(r, list) else [r])
        self.graph.outputs = outputs


def _holds_tensor(value):
    """Whether a Python value holds a torch tensor, or a torch.fx node of the
    symbolic tracer (in tuples, lists, dicts)."""
    import torch.fx
    if isinstance(value, (torch.Tensor, torch.fx.Node)):
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds_tensor(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_tensor(v) for v in value.values())
    return False
