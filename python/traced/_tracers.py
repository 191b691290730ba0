"""The two tracers: torch.fx symbolic tracing, and concrete (example-based)
tracing through hooks, as MegEngine's trace_module and torch.jit.trace do."""
import contextlib
import linecache
import math
import hashlib
import inspect
import os
import re
import operator
import types

import torch
import torch.fx as fx
from torch.overrides import TorchFunctionMode

from . import _traced
from ._emit import EmitError, IRBuilder, symbol
from ._views import ViewTracker, check_overlap
from ._tracing import (GraphEmitter, _holds_tensor, aten_kwargs, aten_positional, aten_target, binary_extreme,
                       method_arguments,
                       caller_location, TracerWarning,
                       check_known,
                       class_name, frame_of_stack_trace, is_known_leaf, is_torch_leaf,
                       qualified_function_name, symbolize_modules, user_frame)
from .errors import TraceError
import torch.fx._symbolic_trace as _fx_symbolic


def _flatten_outputs(value):
    """A graph's outputs: the elements of a tuple or list, the values of a
    dict (torchvision's segmentation models return {"out": ...})."""
    if isinstance(value, dict):
        return list(value.values())
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _elements(value):
    """A tuple, or a dict as the tuple of its values."""
    return tuple(value.values()) if isinstance(value, dict) else value


def _hint(name):
    name = name.strip("_").rsplit(".", 1)[-1]
    return (name or "out") + "_out"


# ---------------------------------------------------------------------------
# Symbolic tracing (torch.fx)
# ---------------------------------------------------------------------------


def constant_cuts(target, args, kwargs, at, constant):
    """tensor_split's sections or indices given as a tensor made from
    constants (`torch.tensor([1, 3])`): its values, known when tracing (a
    traced tensor's values would decide the results' number and sizes: the
    op library refuses it). `constant(v)`: the constant tensor `v` stands
    for, or None; `at`: the position of the sections or indices."""
    if target.rsplit(".", 1)[-1] != "tensor_split":
        return args, kwargs

    def known(v):
        t = constant(v)
        if isinstance(t, torch.Tensor) and t.dim() <= 1 and \
                not t.dtype.is_floating_point and t.dtype != torch.bool:
            return t.tolist()
        return v
    args = list(args)
    if len(args) > at:
        args[at] = known(args[at])
    kwargs = {k: known(v) if k in ("indices_or_sections",
                                   "tensor_indices_or_sections") else v
              for k, v in kwargs.items()}
    return args, kwargs

class _OneLevelTracer(fx.Tracer):
    """Traces one module's forward; every submodule call stays a call."""

    def __init__(self, top):
        super().__init__()
        self.top = top
        self.record_stack_traces = True  # each node's user line

    def is_leaf_module(self, m, qualname):
        return m is not self.top

    def trace(self, root, concrete_args=None):
        with _augmented_assignments():
            return super().trace(root, concrete_args)


# `a += b` and the other augmented assignments, which torch.fx 1.13's Proxy
# does not define (Python then runs `a = a + b`, losing the write into a
# that aliases of a see), and the operator each one computes.
_AUGMENTED = {operator.iadd: operator.add, operator.isub: operator.sub,
              operator.imul: operator.mul, operator.itruediv: operator.truediv,
              operator.ifloordiv: operator.floordiv, operator.imod: operator.mod,
              operator.ipow: operator.pow, operator.iand: operator.and_,
              operator.ior: operator.or_, operator.ixor: operator.xor,
              operator.ilshift: operator.lshift, operator.irshift: operator.rshift,
              operator.imatmul: operator.matmul}


@contextlib.contextmanager
def _augmented_assignments():
    """While torch.fx traces, `a += b` on a Proxy records operator.iadd
    (which the recording run executes in place, as the module does)."""
    saved = {}
    for op in _AUGMENTED:
        name = f"__{op.__name__}__"
        saved[name] = fx.Proxy.__dict__.get(name)
        setattr(fx.Proxy, name, lambda self, other, op=op: self.tracer.create_proxy(
            "call_function", op, (self, other), {}))
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                delattr(fx.Proxy, name)
            else:
                setattr(fx.Proxy, name, old)


class _Recorder(fx.Interpreter):
    """Runs a traced graph on real inputs and keeps every node's value, and
    which tensor inputs each node wrote in place (their version counters
    moved)."""

    def __init__(self, gm):
        super().__init__(gm)
        self.values = {}
        self.mutations = {}

    def run_node(self, n):
        before = [(a, self.values[a], self.values[a]._version)
                  for a in n.all_input_nodes
                  if isinstance(self.values.get(a), torch.Tensor)]
        value = super().run_node(n)
        self.values[n] = value
        changed = [a for a, t, version in before if t._version != version]
        if changed:
            self.mutations[n] = changed
        return value


def _first_calls(root, inputs, wanted):
    """The positional arguments of the first call of each wanted module,
    their kinds then (`_kind_of`: a list argument may grow after the call,
    as DenseNet's does), and the root's result (on copies of the inputs,
    which a module may write)."""
    calls, kinds, handles = {}, {}, []

    def record(mod, args):
        if id(mod) not in calls:
            calls[id(mod)], kinds[id(mod)] = args, _kind_of(args)

    for m in root.modules():
        if wanted(m):
            handles.append(m.register_forward_pre_hook(record))
    try:
        with torch.no_grad():
            result = root(*[x.clone() if isinstance(x, torch.Tensor) else x
                            for x in inputs])
    finally:
        for h in handles:
            h.remove()
    return calls, kinds, result


def _kind_of(value):
    """The dtypes and shapes of the tensors in `value`, in its structure
    (tuples and lists alike): a tensor is ("tensor", "float32[1, 4]"), any
    other value (not compared) ("value", its type's name)."""
    if isinstance(value, torch.Tensor):
        return ("tensor", f"{str(value.dtype).replace('torch.', '')}{list(value.shape)}")
    if isinstance(value, dict):
        return {k: _kind_of(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_kind_of(v) for v in value]
    return ("value", type(value).__name__)


def _same_kind(a, b):
    """Whether two `_kind_of`s hold tensors of the same dtypes and shapes in
    the same structure (other values are not compared)."""
    tensor = lambda k: isinstance(k, tuple) and k[0] == "tensor"
    if tensor(a) or tensor(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same_kind(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same_kind, a, b))
    return True


def _show_kind(kind):
    if isinstance(kind, tuple):
        return kind[1]
    if isinstance(kind, dict):
        return "{" + ", ".join(f"{k}: {_show_kind(v)}" for k, v in kind.items()) + "}"
    return "[" + ", ".join(map(_show_kind, kind)) + "]"


def _fx_error(module, exc):
    frame = user_frame(exc.__traceback__)
    where = f" at {frame.filename}:{frame.lineno}: {frame.line}" if frame else ""
    return TraceError(f"torch.fx cannot trace {class_name(module)}: "
                      f"{type(exc).__name__}: {exc}{where}")


def _known_wrapped_functions():
    """Functions registered with torch.fx.wrap that the op library
    describes (torchvision's stochastic_depth): they stay one call, as the
    library has their meaning; the other wrapped ones are traced through."""
    found = []
    for g, n in list(_fx_symbolic._wrapped_fns_to_patch):
        f = g.get(n)
        if callable(f) and hasattr(f, "__globals__") and \
                _traced.is_known_function(qualified_function_name(f)):
            found.append(f)
    return found


def with_known_leaves(leaf_functions):
    return tuple(leaf_functions) + tuple(
        f for f in _known_wrapped_functions() if f not in leaf_functions)


@contextlib.contextmanager
def _fx_wraps(leaf_functions):
    """torch.fx keeps every function registered with `torch.fx.wrap` opaque
    (torchvision wraps helpers such as swin's `_get_relative_position_bias`).
    A trace goes through them, as through any Python function: only the
    user's `leaf_functions` stay opaque while we trace."""
    saved = list(_fx_symbolic._wrapped_fns_to_patch)
    keep = [(g, n) for g, n in saved if g.get("__name__") == "torch.fx._symbolic_trace"]
    _fx_symbolic._wrapped_fns_to_patch[:] = keep + [
        (f.__globals__, f.__name__) for f in leaf_functions]
    try:
        yield
    finally:
        _fx_symbolic._wrapped_fns_to_patch[:] = saved


@contextlib.contextmanager
def _fx_code_forgotten():
    """Drops, on exit, the generated code torch.fx cached for the
    GraphModules made inside: torch 1.13 keeps every GraphModule's source in
    `torch.fx.graph_module._loader.eval_cache` and a `linecache` entry, for
    tracebacks, for the life of the process. The GraphModules here are the
    tracer's own and gone after the trace; without this, every trace kept
    about 2 KB (bench/soak.py, docs/reliability.md "Soak and threads")."""
    loader = getattr(fx.graph_module, "_loader", None)
    cache = getattr(loader, "eval_cache", None)
    before = set(cache) if isinstance(cache, dict) else None
    try:
        yield
    finally:
        if before is not None:
            for key in set(cache) - before:
                cache.pop(key, None)
                linecache.cache.pop(key, None)


def _refuse_data_sized(graph):
    """fx records one_hot(x) with num_classes=-1, and tensor_split by a
    tensor, as calls whose result sizes are the values'; the concrete
    tracer reads those values as Python numbers under a guard
    (`_read_data_arguments`), so the symbolic trace gives way to it."""
    for n in graph.nodes:
        if n.op not in ("call_function", "call_method"):
            continue
        name = n.target if isinstance(n.target, str) else getattr(n.target, "__name__", "")
        if name == "one_hot":
            num = n.args[1] if len(n.args) > 1 else n.kwargs.get("num_classes", -1)
            if num == -1:
                raise ValueError("one_hot with num_classes=-1 sizes its result by the values")
        if name == "tensor_split":
            t = n.args[1] if len(n.args) > 1 else n.kwargs.get("indices_or_sections")
            if isinstance(t, fx.Node):
                raise ValueError("tensor_split by a tensor sizes its results by the values")


def _check_one_graph_fits(node, callee, first, values):
    """A symbolic trace makes one graph of a module, typed with its first
    call's tensors: a call with tensors of other shapes or dtypes (a block
    reused on a feature map and on its pooled vector; the observer FX's QAT
    graphs share between an op and the average pooling after it) is
    refused, and "auto" traces concretely, a graph per distinct call."""
    now = _kind_of(list(fx.node.map_arg(node.args, lambda a: values[a])))
    if first is not None and not _same_kind(first, now):
        raise TraceError(
            f"submodule '{node.target}' ({class_name(callee)}) is called with "
            f"({_show_kind(first)[1:-1]}) and later with ({_show_kind(now)[1:-1]}): "
            f"a symbolic trace makes one graph of a module")


def _trace_graph_symbolic(builder, module, args, opaque, first_kinds):
    before = set(vars(module))
    try:
        graph = _OneLevelTracer(module).trace(module)
        _refuse_data_sized(graph)
        gm = fx.GraphModule(module, graph)
    except Exception as exc:  # fx raises many kinds
        raise _fx_error(module, exc) from exc
    finally:
        # fx parks tensor constants (`_tensor_constant0`) on the module it
        # traces; the GraphModule has them, the user's module should not.
        for name in set(vars(module)) - before:
            delattr(module, name)

    def state_of(target):
        """'parameter', 'buffer' or 'module' for a get_attr of the module's
        own attributes; None for a tensor constant fx attached."""
        parent, _, attr = target.rpartition(".")
        try:
            owner = module.get_submodule(parent) if parent else module
        except AttributeError:
            return None
        for kind, table in (("parameter", owner._parameters),
                            ("buffer", owner._buffers), ("module", owner._modules)):
            if attr in table:
                return kind
        return None

    # fx's tensor constants as the module made them: the recording run may
    # write them in place (`c[:2].copy_(x)` on a tensor built in forward).
    constants = {n.target: getattr(gm, n.target).clone()
                 for n in graph.nodes if n.op == "get_attr" and
                 state_of(n.target) is None and
                 isinstance(getattr(gm, n.target, None), torch.Tensor)}
    recorder = _Recorder(gm)
    try:
        with torch.no_grad():
            fx_result = recorder.run(*args)
    except Exception as exc:  # noqa: BLE001 - the module itself ran
        # torch.fx's graph fails where the module ran (a None input fx
        # proxied, so `if mask is None` took the other branch): a TraceError,
        # so that mode="auto" traces concretely.
        nones = [p for p, a in zip(_parameter_names(module, len(args)), args)
                 if a is None]
        hint = (f" (torch.fx takes the None input(s) {', '.join(nones)} for "
                f"tensors: mode='concrete' traces them, as mode='auto' does)"
                if nones else "")
        raise TraceError(f"torch.fx's graph of {class_name(module)} fails on "
                         f"inputs the module itself takes{hint}: "
                         f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
                         ) from exc
    values = recorder.values
    em = GraphEmitter(builder, module)

    def ref(v):
        if isinstance(v, fx.Node):
            if views.known(v):
                return views.current(v)
            return em.names[v]
        return None

    reading = [None]  # the line of the node being emitted
    views = ViewTracker(em, ref, lambda: reading[0])
    replays = {}  # node -> emits its call again: (name, type), or a list

    def is_traced_tensor(v):
        return isinstance(v, fx.Node) and isinstance(values.get(v), torch.Tensor)

    def value_of(v):
        return values.get(v) if isinstance(v, fx.Node) else v

    def tensor_args(n):
        return [(a, values[a]) for a in n.all_input_nodes
                if isinstance(values.get(a), torch.Tensor)]

    def element(parent, i, item):
        """Element i of a tuple-valued node, read again from the tuple
        (which the tracker makes again once when its base was written)."""
        def replay():
            entry = ref(parent)
            if isinstance(entry, list):
                return entry[i]
            return em.call("call_function", "operator.getitem", None,
                           [_Named(*entry), i], {}, item,
                           lambda v: (v.name, v.type) if isinstance(v, _Named) else ref(v),
                           "getitem_out")
        return replay

    def track(node, where, replay=None, index=None, setitem=False):
        """After a node's expr: the tensors it wrote in place, then the
        node's own tensor (a view of its input's memory, or not)."""
        value = values.get(node)
        changed = recorder.mutations.get(node, ())
        written = None
        for a in changed:
            if (value is values[a] and isinstance(value, torch.Tensor)) or \
                    (setitem and node.args and a is node.args[0]):
                written = a
                break
        if written is not None:
            region = values[written]
            if setitem and len(node.args) > 1:
                try:
                    region = region[fx.node.map_arg(node.args[1], lambda n: values[n])]
                except (IndexError, TypeError, RuntimeError):
                    pass
            for _, t in tensor_args(node):
                if t is not values[written]:  # (setitem reads the value)
                    check_overlap(region, t, where)
            views.mutated(written, em.names[node], where)
        for a in changed:
            if a is written or (written is not None and
                                _shares_memory(values[a], values[written])):
                continue
            views.poison(a, f"a tensor was written in place by a call"
                         f"{_at(where)} that does not return it; the graph "
                         f"has no value for it, so reading it again is refused")
        bases = tensor_args(node)
        if node.op == "call_function" and node.target is operator.getitem and \
                isinstance(values.get(node.args[0]), (tuple, list, dict)):
            parent = node.args[0]
            bases = tensor_args(parent)
            i = node.args[1]
            if isinstance(values[parent], dict):
                i = list(values[parent]).index(i)
            replay = element(parent, i, value) if views.known(parent) else None
        state = frozen = None
        if node.op == "get_attr":
            kind = state_of(node.target)
            if kind in ("parameter", "buffer"):
                state = f"{kind} '{node.target}'"
            elif kind is None:
                frozen = (
                    "a tensor torch.fx keeps as a constant (made in forward "
                    "from no traced value, or a view of a buffer): fx "
                    "computed what it could from it while tracing, before "
                    "the write; mode='concrete' (or 'auto') records the write")
        views.define(node, value, bases, replay, where, index=index,
                     state=state, frozen=frozen)

    def emit_method(node, method, receiver_node, margs, mkwargs, where):
        def emit():
            receiver = ref(receiver_node)
            if receiver is None:
                raise TraceError(f"method {method} called on a constant")
            return em.call("call_method", method, receiver, margs, mkwargs,
                           values[node], ref, _hint(node.target if isinstance(
                               node.target, str) else method), where=where)
        return emit

    for node in graph.nodes:
        where = reading[0] = frame_of_stack_trace(node.stack_trace)
        replay, index, setitem = None, None, False
        if node.op == "placeholder":
            em.add_input(node, node.name, values[node])
        elif node.op == "get_attr":
            if state_of(node.target) is not None:
                em.define(node, *em.getattr_chain(node.target))
            else:
                # A tensor constant fx attached to the GraphModule.
                em.define(node, *em.constant(constants.get(
                    node.target, getattr(gm, node.target)), "const_tensor"))
        elif node.op == "call_module":
            receiver = em.getattr_chain(node.target)
            callee = module.get_submodule(node.target)
            _check_one_graph_fits(node, callee, first_kinds.get(id(callee)), values)
            # A traced submodule returning a tuple returns its elements.
            flatten = (not is_torch_leaf(callee)
                       and isinstance(values[node], (tuple, dict)))

            def replay(node=node, receiver=receiver, flatten=flatten, where=where):
                return em.call("call_method", "forward", receiver, node.args,
                               node.kwargs, _elements(values[node]), ref,
                               receiver[0][1:] + "_out", flatten, where=where)
            result = replay()
            em.define(node, result) if flatten else em.define(node, *result)
        elif (node.op == "call_function" and node.target is operator.getitem
              and isinstance(node.args[1], str)
              and isinstance(values.get(node.args[0]), dict)):
            # d["key"]: the dict is a tuple of its values in the trace.
            index = list(values[node.args[0]]).index(node.args[1])
            entry = em.names[node.args[0]]
            if isinstance(entry, list):
                em.define(node, *entry[index])
            else:
                em.define(node, *em.call("call_function", "operator.getitem",
                                         None, [node.args[0], index], {},
                                         values[node], ref, "getitem_out"))
            index = None
        elif (node.op == "call_function" and node.target is operator.getitem
              and isinstance(em.names.get(node.args[0]), list)
              and isinstance(node.args[1], int)):
            em.define(node, *em.names[node.args[0]][node.args[1]])
        elif node.op == "call_function" and _is_namedtuple_class(node.target):
            # fx records a namedtuple built in forward (`return Out(a, b)`)
            # as a call of its class: a tuple of its fields, as concrete
            # traces see it (each field one graph output).
            entries = []
            for v in node.args:
                entry = ref(v) if isinstance(v, fx.Node) else em.constant(v, "const")
                if isinstance(entry, list):
                    raise TraceError(
                        f"{node.target.__qualname__} holds a tuple in a field; "
                        f"traced graphs return tensors, Python values and the "
                        f"tuples that calls return")
                entries.append(entry)
            em.define(node, entries)
        elif node.op == "call_method" or (
                node.op == "call_function" and node.target in _AUGMENTED and
                _keeps_dtype_apart(node, values)):
            # (`a += b` where `a + b` would promote: the in-place method,
            # which keeps a's dtype.)
            if node.op == "call_method":
                method = binary_extreme(node.target, node.args[1:], node.kwargs,
                                        is_traced_tensor)
            else:
                method = f"__{node.target.__name__}__"
            if ref(node.args[0]) is None:
                raise TraceError(f"method {method} called on a constant")
            check_known("call_method", method, where)
            _check_storage_view(method, node.args, node.kwargs, value_of, where)
            margs, mkwargs = method_arguments(method, node.args[1:], node.kwargs)
            margs, mkwargs = constant_cuts(
                method, margs, mkwargs, 0,
                lambda v: values.get(v) if isinstance(v, fx.Node) and
                v.op == "get_attr" else None)
            replay = emit_method(node, method, node.args[0], margs, mkwargs, where)
            em.define(node, *replay())
        elif node.op == "call_function":
            fn = _AUGMENTED.get(node.target, node.target)
            target = aten_target(fn, node.args, node.kwargs, is_traced_tensor)
            target = binary_extreme(target, node.args[1:], node.kwargs,
                                    is_traced_tensor)
            check_known("call_function", target, where, opaque)
            _check_storage_view(target, node.args, node.kwargs, value_of, where)
            # `x[i] = v` (operator.setitem) is a value: the updated x.
            setitem = target == "operator.setitem"
            value = values[node.args[0]] if setitem else values[node]
            call_args, call_kwargs = aten_positional(target, node.args, node.kwargs)
            call_args, call_kwargs = constant_cuts(
                target, call_args, call_kwargs, 1,
                lambda v: values.get(v) if isinstance(v, fx.Node) and
                v.op == "get_attr" else None)

            def replay(target=target, call_args=call_args, call_kwargs=call_kwargs,
                       value=value, where=where):
                return em.call("call_function", target, None, call_args,
                               aten_kwargs(target, call_kwargs), value, ref,
                               _hint(target), where=where)
            em.define(node, *replay())
            if target == "operator.getitem" and \
                    isinstance(values.get(node.args[0]), torch.Tensor):
                index = node.args[1]
            if setitem:
                replay = None
        if node.op != "output":
            if replay is not None:
                replays[node] = replay
            track(node, where, replay, index, setitem)
        elif node.op == "output":
            out = node.args[0]
            if isinstance(out, fx.Node) and \
                    isinstance(values.get(out), (tuple, list)) and \
                    not isinstance(em.names.get(out), list):
                # A call's tuple returned as it is (`return x.topk(3)`): its
                # elements are the graph's outputs, as in concrete traces.
                items = []
                for i, item in enumerate(values[out]):
                    n, t = em.call("call_function", "operator.getitem", None,
                                   [out, i], {}, item, ref, "getitem_out")
                    items.append((n, t))
                em.names[out] = items
            em.set_outputs(_flatten_outputs(out)
                           if isinstance(out, (tuple, list, dict)) else [out], ref)
    return fx_result


def _is_namedtuple_class(target):
    return isinstance(target, type) and issubclass(target, tuple) and \
        hasattr(target, "_fields")


def _check_storage_view(target, args, kwargs, value_of, where):
    """as_strided reads its input's storage, which a trace does not keep:
    the interpreter's and compiled code's tensors are contiguous copies, and
    their as_strided reads the copy. That is the same read only when every
    element the call reads sits at the same place in both (always for a
    contiguous tensor that owns its storage); otherwise (a transposed, sliced
    or expanded view, channels_last) the call is refused rather than read in
    another order. `args` start with the input; `value_of` gives an
    argument's value."""
    if "as_strided" not in target or not args:
        return
    x = value_of(args[0])
    if not isinstance(x, torch.Tensor):
        return
    names = ("size", "stride", "storage_offset")
    given = {n: value_of(a) for n, a in zip(names, args[1:])}
    given.update({k: value_of(v) for k, v in (kwargs or {}).items() if k in names})
    size, stride, offset = (given.get(n) for n in names)
    if x.is_contiguous() and x.storage_offset() == 0 and \
            x.storage().size() == x.numel():
        return
    ok = False
    try:
        size, stride = [int(v) for v in size], [int(v) for v in stride]
        start = x.storage_offset() if offset is None else int(offset)
        storage = torch.arange(x.storage().size())
        # Where torch reads, and where the copy's read lands in storage.
        reads = torch.as_strided(storage, size, stride, start).flatten()
        ours = reads - (x.storage_offset() if offset is None else 0)
        where_in_copy = torch.as_strided(storage, x.shape, x.stride(),
                                         x.storage_offset()).flatten()
        ok = bool(((ours >= 0) & (ours < x.numel())).all()) and \
            torch.equal(where_in_copy[ours.clamp(0, max(x.numel() - 1, 0))],
                        reads)
    except (TypeError, ValueError, RuntimeError):
        ok = False
    if ok:
        return
    at = f" at {where[0]}:{where[1]}" if where else ""
    raise TraceError(f"{target}{at}: its input is a view (strides {x.stride()}, "
                     f"storage offset {x.storage_offset()}) whose storage this "
                     f"as_strided reads in another order than the traced "
                     f"tensor's; as_strided is traced only where both agree")


def _keeps_dtype_apart(node, values):
    """Whether `a += b` (operator.iadd and the like, on a tensor `a`) keeps
    a dtype that `a + b` would not: the write casts to a's dtype."""
    a = values.get(node.args[0])
    if not isinstance(a, torch.Tensor) or len(node.args) < 2:
        return False
    b = node.args[1]
    b = values.get(b) if isinstance(b, fx.Node) else b
    try:
        return torch.result_type(a, b) != a.dtype
    except (TypeError, RuntimeError):
        return False


def trace_symbolic(root, inputs, leaf_functions=()):
    leaf_functions = with_known_leaves(leaf_functions)
    builder = IRBuilder()
    symbolize_modules(root, builder)
    # torch.nn modules the op library describes are leaf calls; the others
    # (nn.ConstantPad2d, ...) get graphs of their own, as user modules do.
    graphed = lambda m: m is root or not is_torch_leaf(m) or not is_known_leaf(m)
    calls, kinds, expected = _first_calls(root, inputs, graphed)
    # The root's graph runs on fresh copies: the eager run may have written
    # its inputs.
    calls[id(root)] = tuple(x.clone() if isinstance(x, torch.Tensor) else x
                            for x in inputs)
    opaque = {qualified_function_name(f) for f in leaf_functions}
    with _fx_wraps(leaf_functions), _fx_code_forgotten():
        for m in root.modules():
            if graphed(m) and id(m) in calls:
                got = _trace_graph_symbolic(builder, m, calls[id(m)], opaque, kinds)
                if m is root and not _same_kind(_kind_of(_flatten_outputs(got)),
                                                _kind_of(_flatten_outputs(expected))):
                    # torch.fx records `a += b` as `a + b`, which promotes
                    # where the in-place op keeps a's dtype.
                    raise TraceError(
                        "torch.fx's graph of the module computes results of "
                        "other dtypes or shapes than the module itself")
    return builder


# ---------------------------------------------------------------------------
# Sizes as values (concrete tracing with dynamic dims)
# ---------------------------------------------------------------------------

class SizeTracking:
    """What a concrete trace knows of the dynamic dims (docs/llm.md, "Sizes
    as values"). A trace with dynamic dims runs three times: once to log
    the shape of every tensor result in order (`log`), then twice with the
    log of the other size as `reference`: a result's dims that differ from
    the reference's are dynamic, and reading one (`x.size(1)`, `x.shape`,
    `len(x)`, `x.numel()`) gives a SymInt, an int whose expr is in the
    graph. `inputs` maps a root input's index to its dynamic dims."""

    def __init__(self, reference=None, inputs=None):
        self.reference = reference
        self.inputs = inputs or {}
        self.log = []

    @property
    def tracking(self):
        return self.reference is not None


def _sym_tracer(*values):
    for v in values:
        if isinstance(v, _SYMBOLIC):
            return v._tracer
    return None


def _plain(v):
    """A SymInt's or SymFloat's value as a plain int or float."""
    if isinstance(v, SymInt):
        return int(v)
    if isinstance(v, SymFloat):
        return float(v)
    return v


def _sym_arith(target, op, reflected=False):
    def method(self, other):
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        value = op(_plain(a), _plain(b))
        # An int result is a SymInt; a float one (true division, or an
        # operand that is a float) a SymFloat.
        kind = SymFloat if isinstance(value, float) else SymInt
        return self._tracer.sym_call(target, [a, b], value, kind)
    method.__name__ = f"__{'r' if reflected else ''}{op.__name__.strip('_')}__"
    return method


def _sym_compare(target, op):
    def method(self, other):
        if isinstance(other, bool) or not isinstance(other, (int, float)):
            return NotImplemented
        value = op(_plain(self), _plain(other))
        return self._tracer.sym_call(target, [self, other], value, SymBool)
    return method


def _sym_round(target, fn):
    def method(self):
        return self._tracer.sym_call(target, [self], fn(float(self)), SymInt)
    method.__name__ = f"__{fn.__name__}__"
    return method


class _SymArithmetic:
    """The arithmetic and comparisons SymInt and SymFloat share: each
    records `operator.*` on the graph's value; the result is a SymInt or a
    SymFloat as Python's own is an int or a float, a SymBool for a
    comparison."""

    __slots__ = ()
    __add__ = _sym_arith("operator.add", operator.add)
    __radd__ = _sym_arith("operator.add", operator.add, True)
    __sub__ = _sym_arith("operator.sub", operator.sub)
    __rsub__ = _sym_arith("operator.sub", operator.sub, True)
    __mul__ = _sym_arith("operator.mul", operator.mul)
    __rmul__ = _sym_arith("operator.mul", operator.mul, True)
    __truediv__ = _sym_arith("operator.truediv", operator.truediv)
    __rtruediv__ = _sym_arith("operator.truediv", operator.truediv, True)
    __floordiv__ = _sym_arith("operator.floordiv", operator.floordiv)
    __rfloordiv__ = _sym_arith("operator.floordiv", operator.floordiv, True)
    __mod__ = _sym_arith("operator.mod", operator.mod)
    __rmod__ = _sym_arith("operator.mod", operator.mod, True)
    __lt__ = _sym_compare("operator.lt", operator.lt)
    __le__ = _sym_compare("operator.le", operator.le)
    __gt__ = _sym_compare("operator.gt", operator.gt)
    __ge__ = _sym_compare("operator.ge", operator.ge)
    __eq__ = _sym_compare("operator.eq", operator.eq)
    __ne__ = _sym_compare("operator.ne", operator.ne)

    def __pos__(self):
        return self


class SymInt(_SymArithmetic, int):
    """An int of the trace computed from a dynamic size: this run's value,
    and (in the graph that made it) the expr that computes it. Arithmetic
    with ints records `operator.add` and the like (true division and
    floats give a SymFloat); comparisons give a SymBool, which Python
    control flow refuses."""

    def __new__(cls, value, tracer):
        obj = super().__new__(cls, value)
        obj._tracer = tracer
        return obj

    __hash__ = int.__hash__

    def __neg__(self):
        return self._tracer.sym_call("operator.neg", [self], -int(self))

    # (int's own would give a plain int: the expr would leave the trace.)
    def __ceil__(self):
        return self

    __floor__ = __trunc__ = __ceil__

    def __repr__(self):
        return f"SymInt({int(self)})"


class SymFloat(_SymArithmetic, float):
    """A float of the trace computed from dynamic sizes (`n / 2`,
    `n * 0.5`): this run's value and its expr, as SymInt. `math.ceil`,
    `math.floor` and `math.trunc` of it record those and give a SymInt, as
    torch.fx records them. (`int()`, `round()` and the math module's other
    functions read this run's value: a trace that depends on it differs at
    the other size and is refused.)"""

    def __new__(cls, value, tracer):
        obj = super().__new__(cls, value)
        obj._tracer = tracer
        return obj

    __hash__ = float.__hash__
    __ceil__ = _sym_round("math.ceil", math.ceil)
    __floor__ = _sym_round("math.floor", math.floor)
    __trunc__ = _sym_round("math.trunc", math.trunc)

    def __neg__(self):
        return self._tracer.sym_call("operator.neg", [self], -float(self),
                                     SymFloat)

    def __repr__(self):
        return f"SymFloat({float(self)})"


class SymBool:
    """A comparison of dynamic sizes: a value in the graph, which no Python
    branch may take (the trace would keep this run's branch for every
    size)."""

    def __init__(self, value, tracer):
        self.value = bool(value)
        self._tracer = tracer

    def __bool__(self):
        where = caller_location()
        raise TraceError(
            f"Python control flow on a dynamic size{_at(where)}: the trace "
            f"would keep this run's branch ({self.value}) for every size. "
            f"Compute it with tensor ops (torch.where, masks), or make the "
            f"dim static")

    def __repr__(self):
        return f"SymBool({self.value})"


_SYMBOLIC = (SymInt, SymFloat, SymBool)


def _holds_sym(value):
    if isinstance(value, _SYMBOLIC):
        return True
    if isinstance(value, dict):
        return any(_holds_sym(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_sym(v) for v in value)
    if isinstance(value, slice):
        return any(_holds_sym(v) for v in (value.start, value.stop, value.step))
    return False


# ---------------------------------------------------------------------------
# Concrete tracing (hooks)
# ---------------------------------------------------------------------------

_SPECIALIZED = {"__bool__", "__int__", "__float__", "__index__", "item",
                "tolist", "__len__", "__format__", "__repr__", "numpy"}
# The reads of a tensor's data (not its size, not its printing) that a
# guard checks (docs/python.md, "Guards").
_GUARDED = {"__bool__", "__int__", "__float__", "__index__", "item", "tolist",
            "numpy"}
# How close a floating-point value read as a Python number must come to
# the traced one: compiled code sums in another order than torch, so an
# exact comparison would refuse the traced input itself.
_GUARD_TOLERANCE = {torch.float64: (1e-9, 1e-12), torch.float32: (1e-4, 1e-6),
                    torch.float16: (1e-2, 1e-4), torch.bfloat16: (2e-2, 1e-3)}


def _takes_a_callable(func, args, kwargs):
    """Whether `func` is a Python function given a callable (a module or a
    function: F.triplet_margin_with_distance_loss's distance_function). A
    callable is no value of the graph, so such a call cannot be one op; its
    body, Python calling torch, is traced instead (the calls it makes,
    the callable's included, are recorded as if written in place). Builtins
    given callables (Tensor.apply_, register_hook) run code no trace
    sees, so they stay calls and are refused as before."""
    if not inspect.isfunction(func):
        return False
    values = list(args) + list(kwargs.values())
    return any(isinstance(a, torch.nn.Module) or inspect.isfunction(a) or
               inspect.ismethod(a) for a in values)


def _without_dispatch(func):
    """A copy of the Python function `func` whose has_torch_function checks
    answer False, so that its body runs instead of dispatching to
    __torch_function__ again (the calls it makes still dispatch)."""
    names = {"has_torch_function", "has_torch_function_unary",
             "has_torch_function_variadic"}
    scope = dict(func.__globals__)
    for name in names & scope.keys():
        scope[name] = lambda *a, **k: False
    copy = types.FunctionType(func.__code__, scope, func.__name__,
                              func.__defaults__, func.__closure__)
    copy.__kwdefaults__ = func.__kwdefaults__
    return copy


# Calls that return a Python value from a tensor's metadata, not its data.
_METADATA_READS = {"dim", "ndimension", "numel", "nelement", "size", "stride",
                   "storage_offset", "element_size", "get_device", "data_ptr",
                   "has_names", "_is_view", "__len__", "_nnz"}


def _where_text(where):
    return f"{os.path.basename(where[0])}:{where[1]}" if where else "unknown line"


class _ConcreteTracer(TorchFunctionMode):
    """Records the torch functions, Tensor methods and module calls one run
    makes. Only outermost calls are recorded: a depth counter keeps the
    calls made inside a recorded function or leaf module out (seed 004's
    nested-hook guard). Tensors are tracked by identity; other values are
    specialized to what this run saw."""

    def __init__(self, root, builder, opaque=(), sizes=None):
        super().__init__()
        self.root = root
        self.builder = builder
        self.opaque = opaque
        self.sizes = sizes  # SizeTracking, or None without dynamic dims
        self.dynamic = {}  # id(tensor) -> (tensor, frozenset of dynamic dims)
        self.depth = 0
        self.suspended = 0
        self.stack = []  # GraphEmitters, innermost last
        self.keep = []  # keeps traced tensors alive so ids stay unique
        self.constant_ids = set()  # tensors made from constants

    @contextlib.contextmanager
    def suspend(self):
        self.suspended += 1
        try:
            yield
        finally:
            self.suspended -= 1

    @property
    def emitter(self):
        return self.stack[-1]

    # -- tensors ---------------------------------------------------------------
    def ref(self, v):
        """(name, type) of a tensor in the current graph, making it a getattr
        or a constant when this graph has not seen it."""
        if isinstance(v, _SYMBOLIC):
            # (None in a graph that did not make it: its value is a
            # constant there, which the two sizes' traces then disagree on.)
            return self.emitter.names.get(("sym", id(v)))
        if not isinstance(v, torch.Tensor):
            if isinstance(v, torch.nn.Module):
                path = self.emitter.module_path(v)
                if path is None:
                    raise TraceError(f"module {class_name(v)} is not a "
                                     f"submodule of {class_name(self.emitter.module)}")
                return self.emitter.getattr_chain(path)
            return None
        em = self.emitter
        views = self.views
        if id(v) in em.names:
            if not views.known(id(v)):
                views.define(id(v), v)
            return views.current(id(v))
        path = em.tensor_path(v)
        if path is not None:
            entry = em.getattr_chain(path)
        else:
            entry = em.constant(v, "const_tensor")
        em.define(id(v), *entry)
        self.keep.append(v)
        kind = "parameter" if isinstance(v, torch.nn.Parameter) else "buffer"
        views.define(id(v), v, state=path and f"{kind} '{path}'")
        return entry

    @property
    def views(self):
        """The current graph's ViewTracker (in-place writes through views)."""
        em = self.emitter
        if not hasattr(em, "views"):
            em.views = ViewTracker(em, self.ref, caller_location)
        return em.views

    def _derived(self, result, args, kwargs, replay, where, index=None,
                 entry=None):
        """Registers a call's tensor results with the view tracker: a result
        sharing memory with a tensor argument is a view of it, which
        `replay` (emitting the call again) makes again after its base is
        written. A getitem's `index` makes setitem its inverse; `entry` is
        a tuple result's (name, type), or a traced module's list of them."""
        views = self.views
        bases = [(id(a), a) for a in _tensor_arguments(args, kwargs)]
        if index is not None:
            bases = bases[:1]
        if isinstance(result, torch.Tensor):
            if not any(result is a for _, a in bases):
                views.define(id(result), result, bases, replay, where, index)
        elif isinstance(result, (tuple, list)) and entry is not None:
            self.emitter.names[id(result)] = entry
            self.keep.append(result)
            views.define(id(result), result, bases, replay, where)

            def element(i, item):
                return lambda: self._element(views.current(id(result)), i, item)
            for i, item in enumerate(result):
                if isinstance(item, torch.Tensor) and \
                        not any(item is a for _, a in bases):
                    views.define(id(item), item, bases, element(i, item),
                                 where, what="an element of a split")

    def _element(self, entry, i, item):
        if isinstance(entry, list):  # a traced module's results
            return entry[i]
        return self.emitter.call(
            "call_function", "operator.getitem", None, [_Named(*entry), i], {},
            item, _named_ref,
            "getitem_out")

    def _wrote(self, args, kwargs, result, before, where, setitem=False):
        """After a recorded call: the tensor arguments it wrote in place
        (their version counters moved). The one it returns (or setitem's
        input) has the call's result as its new value, which is written
        back into the bases it is a view of; any other is no longer
        readable (the graph has no value for it)."""
        changed = [t for t, version in before if t._version != version]
        if not changed:
            return
        views = self.views
        written = None
        for t in changed:
            if result is t or (setitem and t is args[0]):
                written = t
                break
        if written is not None:
            region = written
            if setitem:
                try:
                    region = written[args[1]]
                except (IndexError, TypeError, RuntimeError):
                    pass
            for t in _tensor_arguments(args, kwargs):
                if t is not written:  # (setitem writes x[i], reads the value)
                    check_overlap(region, t, where)
        if written is not None and id(written) in self.emitter.names:
            views.mutated(id(written), self.emitter.names[id(written)], where)
        for t in changed:
            if t is written or id(t) not in self.emitter.names or (
                    written is not None and _shares_memory(t, written)):
                continue
            if not views.known(id(t)):
                views.define(id(t), t)
            views.poison(id(t), f"a tensor was written in place by a call"
                         f"{_at(where)} that does not return it; the graph "
                         f"has no value for it, so reading it again is refused")

    def bind_result(self, value, name, ty):
        """Tracks the tensors a call returned: the value itself, or the
        elements of a returned tuple or list through getitem exprs."""
        em = self.emitter
        if isinstance(value, torch.Tensor):
            em.define(id(value), name, ty)
            self.keep.append(value)
        elif isinstance(value, (tuple, list)):
            if all(isinstance(item, torch.Tensor) or (
                    isinstance(item, tuple) and item and all(
                        isinstance(x, torch.Tensor) for x in item))
                   for item in value):
                # The tuple itself, for a graph output that returns it as it
                # is (GraphEmitter.set_outputs); as an argument its elements
                # are read (torch.cat(x.chunk(2)) takes a list of tensors).
                em.tuple_values[id(value)] = (name, ty)
                self.keep.append(value)
            for i, item in enumerate(value):
                if isinstance(item, torch.Tensor):
                    n, t = em.call("call_function", "operator.getitem", None,
                                   [_Named(name, ty), i], {}, item,
                                   _named_ref,
                                   "getitem_out")
                    em.define(id(item), n, t)
                    self.keep.append(item)
                elif isinstance(item, tuple) and item and all(
                        isinstance(x, torch.Tensor) for x in item):
                    # A nested tuple of tensors (nn.LSTM's (h_n, c_n)).
                    n, t = em.call("call_function", "operator.getitem", None,
                                   [_Named(name, ty), i], {}, item,
                                   _named_ref, "getitem_out")
                    self.bind_result(item, n, t)

    # -- sizes as values ---------------------------------------------------------
    def note(self, result):
        """Logs the shapes of a call's tensor results (in call order, the
        same in every trace of the model) and, against the reference log,
        marks their dynamic dims."""
        sizes = self.sizes
        if sizes is None:
            return
        items = [result] if isinstance(result, torch.Tensor) else (
            list(result) if isinstance(result, (tuple, list)) else [])
        with self.suspend():
            for t in items:
                if isinstance(t, torch.Tensor):
                    self._note_one(t, tuple(int(n) for n in t.shape))

    def _note_one(self, t, shape):
        sizes = self.sizes
        k = len(sizes.log)
        sizes.log.append(shape)
        if not sizes.tracking:
            return
        other = sizes.reference[k] if k < len(sizes.reference) else None
        if other is not None and len(other) == len(shape):
            dims = frozenset(d for d, n in enumerate(shape) if other[d] != n)
            if dims:
                self.dynamic[id(t)] = (t, dims)
            else:
                self.dynamic.pop(id(t), None)

    def dynamic_dims(self, t):
        entry = self.dynamic.get(id(t))
        return entry[1] if entry is not None and entry[0] is t else frozenset()

    def sym_call(self, target, args, value, kind=None):
        """`target(*args)` on SymInts, recorded; its result is a SymInt (a
        SymBool for comparisons), or the plain value outside a trace."""
        kind = kind or SymInt
        if self.depth > 0 or self.suspended or not self.stack:
            return value
        em = self.emitter
        with self.suspend():
            if not any(self.ref(a) is not None for a in args):
                return value  # none of them is a value of this graph
            entry = em.call("call_function", target, None, args, {}, value,
                            self.ref, _hint(target), where=caller_location())
        return self._symbolic(value, entry, kind)

    def _symbolic(self, value, entry, kind=SymInt):
        """`value` as a SymInt (or SymBool) of the current graph, whose expr
        is `entry` ((name, type) of the call computing it)."""
        result = kind(value, self)
        self.emitter.names[("sym", id(result))] = entry
        self.keep.append(result)
        return result

    def read_size(self, tensor, dim):
        """`tensor.size(dim)` as a SymInt when the dim is dynamic."""
        value = tensor.shape[dim]
        if dim not in self.dynamic_dims(tensor) or id(tensor) not in self.emitter.names:
            return value
        em = self.emitter
        with self.suspend():
            receiver = self.ref(tensor)
            entry = em.call("call_method", "size", receiver, [dim], {}, value,
                            self.ref, "size", where=caller_location())
        return self._symbolic(value, entry)

    def read_sizes(self, tensor):
        """`tensor.size()` / `tensor.shape`, with SymInts at dynamic dims."""
        if not self.dynamic_dims(tensor):
            return tensor.shape
        return torch.Size([self.read_size(tensor, d) for d in range(tensor.dim())])

    def _size_read(self, name, args, kwargs):
        """A size read (`size`, `shape`, `__len__`, `numel`) of a tensor with
        dynamic dims, as SymInts; None for any other call."""
        if self.sizes is None or not self.sizes.tracking or not args or \
                not isinstance(args[0], torch.Tensor) or \
                not self.dynamic_dims(args[0]):
            return None
        x = args[0]
        if name == "size":
            dim = args[1] if len(args) > 1 else kwargs.get("dim")
            if dim is None:
                return self.read_sizes(x)
            if isinstance(dim, int) and -x.dim() <= dim < x.dim():
                return self.read_size(x, dim % x.dim())
            return None
        if name == "__len__" and x.dim() > 0:
            return self.read_size(x, 0)
        if name in ("numel", "nelement"):
            value = x.numel()
            em = self.emitter
            with self.suspend():
                entry = em.call("call_method", "numel", self.ref(x), [], {},
                                value, self.ref, "numel", where=caller_location())
            return self._symbolic(value, entry)
        return None

    # -- torch functions and Tensor methods ----------------------------------
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.depth > 0 or self.suspended or not self.stack:
            return func(*args, **kwargs)
        name = getattr(func, "__name__", "")
        if name == "__get__":
            prop = getattr(getattr(func, "__self__", None), "__name__", None)
            if prop == "shape":
                sized = self._size_read("size", args[:1], {})
                if sized is not None:
                    return sized
            result = func(*args, **kwargs)
            if isinstance(result, torch.Tensor):
                self.note(result)
            if isinstance(result, torch.Tensor) and prop and args and \
                    isinstance(args[0], torch.Tensor):
                # x.T, x.mT, x.data: a getattr the graph computes.
                with self.suspend():
                    self.record(func, (args[0], prop), {}, result,
                                target="builtins.getattr")
            # Other properties (x.shape, x.dtype) keep this run's value.
            return result
        sized = self._size_read(name, args, kwargs)
        if sized is not None:
            return sized
        if name in _SPECIALIZED:
            # A tensor's data read as a Python value (`if x.sum() > 0`):
            # this run's value is kept, and a guard checks on every call
            # that the input gives the same value.
            result = func(*args, **kwargs)
            if name in _GUARDED and args and isinstance(args[0], torch.Tensor):
                with self.suspend():
                    self.guard(args[0], name, result)
            return result
        args, kwargs = self._read_data_arguments(name, args, kwargs)
        if _takes_a_callable(func, args, kwargs):
            # torch pops this mode while its handler runs: pushed again, the
            # body's calls reach it; the body's own dispatch check (which
            # would come back here) is skipped.
            with self:
                return _without_dispatch(func)(*args, **kwargs)
        before = _versions(args, kwargs)
        self.depth += 1
        try:
            result = func(*args, **kwargs)
        finally:
            self.depth -= 1
        self.note(result)
        with self.suspend():
            self.record(func, args, kwargs, result)
            self._wrote(args, kwargs, result, before, caller_location())
        return result

    def _read_data_arguments(self, name, args, kwargs):
        """Arguments an op reads from a tensor's data to size its result,
        made Python values as user code would make them, so that the call
        has a static result shape and a guard checks the values on every
        call (docs/python.md, "Guards"): one_hot's class count when
        num_classes is -1 (`int(x.max()) + 1`, recorded and guarded), and
        tensor_split's indices or sections given as a tensor
        (`t.tolist()`)."""
        if name == "one_hot" and args and isinstance(args[0], torch.Tensor):
            rest = dict(zip(("num_classes",), args[1:]), **kwargs)
            x = args[0]
            if rest.get("num_classes", -1) == -1 and x.numel() > 0 and \
                    not x.is_floating_point() and x.dtype != torch.bool:
                with self:
                    n = int(x.max()) + 1
                return (x,), {"num_classes": n}
        if name == "tensor_split" and len(args) + len(kwargs) >= 2:
            params = ("input", "indices_or_sections", "dim")
            bound = dict(zip(params, args), **kwargs)
            t = bound.get("indices_or_sections")
            if isinstance(t, torch.Tensor) and t.dim() <= 1 and \
                    t.dtype == torch.int64:
                with self:
                    value = t.tolist()
                del bound["indices_or_sections"]
                bound["sections" if t.dim() == 0 else "indices"] = value
                return (bound.pop("input"),), bound
        return args, kwargs

    # -- guards ----------------------------------------------------------------
    def guard(self, tensor, name, value):
        """Records a check that `tensor`, read as the Python value `value`
        by `name` (`__bool__` of `if x.sum() > 0`, `item`, `int`), reads the
        same on every call: `torch._assert` of a tensor condition, which the
        interpreter and compiled code evaluate. Tensors not computed from the
        graph's inputs (constants) need none."""
        em = self.emitter
        if id(tensor) not in em.names or id(tensor) in self.constant_ids:
            return
        where = caller_location()

        def call(target, args, result, hint, kwargs=None):
            n, t = em.call("call_function", target, None, args, kwargs or {},
                           result, self.ref, hint, where=where)
            em.define(id(result), n, t)
            self.keep.append(result)
            return result

        t = tensor.detach()
        if name == "__bool__":
            cond = tensor if value else call("torch.logical_not", [tensor],
                                        torch.logical_not(t), "not_out")
            message = (f"this input takes a branch the trace did not see "
                       f"({_where_text(where)}); trace again")
        else:
            expected = torch.as_tensor(value if name != "numpy" else
                                       torch.from_numpy(value)).to(t.dtype)
            expected = expected.reshape(t.shape)
            read = tensor
            if t.dtype.is_floating_point and name in ("__int__", "__index__"):
                # int(x) truncates: any value with the same integer part
                # takes the same path.
                read = call("torch.trunc", [tensor], torch.trunc(t), "trunc_out")
                cond = call("torch.eq", [read, expected],
                            torch.eq(torch.trunc(t), expected), "eq_out")
            elif t.dtype.is_floating_point:
                rtol, atol = _GUARD_TOLERANCE.get(t.dtype, (1e-4, 1e-6))
                cond = call("torch.isclose", [tensor, expected],
                            torch.isclose(t, expected, rtol, atol, True),
                            "isclose_out",
                            {"rtol": rtol, "atol": atol, "equal_nan": True})
            else:
                cond = call("torch.eq", [tensor, expected],
                            torch.eq(t, expected), "eq_out")
            if cond.numel() != 1:
                cond = call("torch.all", [cond], torch.all(cond), "all_out")
            shown = repr(value) if t.numel() <= 4 else f"a {tuple(t.shape)} tensor"
            message = (f"this input changes a value the trace read as a "
                       f"Python number ({_where_text(where)}: {shown}); "
                       f"trace again")
        em.call("call_function", "torch._assert", None, [cond, message], {},
                None, self.ref, "guard", where=where)

    def guard_number_inputs(self, child, inputs):
        """Concrete tracing inlines the root's Python-number arguments
        (`forward(self, x, scale=2.0)`): each becomes a guard that the
        call passes the traced value."""
        for i, (name, a) in enumerate(inputs):
            if isinstance(a, (bool, int, float)) and not isinstance(a, torch.Tensor):
                entry = child.names[("arg", i)]
                eq = child.call("call_function", "operator.eq", None,
                                [_Named(*entry), a], {}, True,
                                _named_ref,
                                "eq_out")
                child.call("call_function", "torch._assert", None,
                           [_Named(*eq),
                            f"input '{name}' was {a!r} when traced, and "
                            f"concrete tracing made that value a constant of "
                            f"the graph; pass {a!r}, or trace with "
                            f"mode='symbolic' to make it an input"], {},
                           None,
                           _named_ref,
                           "guard")

    def record(self, func, args, kwargs, result, target=None):
        em = self.emitter
        if target is None and isinstance(result, (bool, int, float)) and \
                not _holds_tensor((args, kwargs)) and not _holds_sym((args, kwargs)):
            # A Python number computed from Python numbers alone
            # (`torch.ops.aten.ceil(float(x))`, `torch.ops.aten.sqrt(5)`):
            # its inputs are this run's values, so it is one too.
            return
        if target is None and isinstance(result, (bool, int, float)) and \
                not self._known(func, args):
            # A Python value computed from tensors by a call the op library
            # does not describe (torch.equal, torch.is_floating_point,
            # torch._nested_tensor_from_mask_left_aligned): as with
            # `if x.sum() > 0`, this run's value is kept. Calls that read
            # only metadata are what the trace fixes anyway; one that reads
            # the data (torch.equal) has no guard to check it: say so.
            fname = getattr(func, "__name__", "")
            if not (fname in _METADATA_READS or
                    (fname.startswith("is_") and fname != "is_nonzero")):
                import warnings
                where = caller_location()
                message = (f"{fname} reads tensor data as a Python value "
                           f"({result!r}) through a call the op library does "
                           f"not describe; the trace keeps this run's value "
                           f"without a guard: calls that read other values "
                           f"may be wrong")
                if where is None:
                    warnings.warn(message, TracerWarning, stacklevel=2)
                else:
                    warnings.warn_explicit(message, TracerWarning, where[0],
                                           where[1])
            return
        where = caller_location()
        if isinstance(result, torch.Tensor) and not _holds_tensor((args, kwargs)) \
                and not _holds_sym((args, kwargs)):
            # A tensor made from constants (torch.tensor([1.0]), torch.zeros
            # (3)) is a Constant expr, as in TracedModule.
            em.define(id(result), *em.constant(result.detach().clone(),
                                               "const_tensor", where))
            self.keep.append(result)
            self.constant_ids.add(id(result))
            return
        # A 0-d integer tensor made from constants in a list of ints
        # (`x.reshape([torch.mul(b, t), c])`, where torch.mul of two ints
        # makes a tensor) is the int torch reads from it.
        args = tuple(self._constant_ints(a) for a in args)
        kwargs = {k: self._constant_ints(v) for k, v in kwargs.items()}
        owner = getattr(func, "__objclass__", None)
        qual = getattr(func, "__qualname__", "")
        is_method = (owner is torch._C._TensorBase
                     or qual.startswith("Tensor.") or qual.startswith("_TensorBase."))
        if target in ("Tensor.__setitem__", "Tensor.__getitem__"):
            target, is_method = None, True
        if target is None and is_method and args and isinstance(args[0], torch.Tensor):
            receiver = self.ref(args[0])
            check_known("call_method", func.__name__, where)
            if func.__name__ == "__setitem__":
                # `x[i] = v` is a value, the updated x, which later uses of
                # x read.
                name, ty = em.call("call_method", "__setitem__", receiver,
                                   args[1:], kwargs, args[0], self.ref,
                                   "setitem_out", where=where)
                self.bind_result(args[0], name, ty)
                return
            method = binary_extreme(func.__name__, args[1:], kwargs,
                                    lambda v: isinstance(v, torch.Tensor))
            _check_storage_view(method, args, kwargs, lambda v: v, where)
            margs, mkwargs = method_arguments(method, args[1:], kwargs)
            margs, mkwargs = self._constant_cuts(method, margs, mkwargs, 0)
            name, ty = em.call("call_method", method, receiver, margs,
                               mkwargs, result, self.ref, _hint(func.__name__),
                               where=where)

            def replay():
                return em.call("call_method", method, self.ref(args[0]), margs,
                               mkwargs, result, self.ref, _hint(func.__name__),
                               where=where)
            index = args[1] if func.__name__ == "__getitem__" else None
        else:
            target = target or binary_extreme(
                aten_target(func, args, kwargs, lambda v: isinstance(v, torch.Tensor)),
                args[1:], kwargs, lambda v: isinstance(v, torch.Tensor))
            _check_storage_view(target, args, kwargs, lambda v: v, where)
            check_known("call_function", target, where, self.opaque)
            call_args, call_kwargs = aten_positional(target, args, kwargs)
            call_args, call_kwargs = self._constant_cuts(target, call_args,
                                                         call_kwargs, 1)
            name, ty = em.call("call_function", target, None, call_args,
                               aten_kwargs(target, call_kwargs),
                               result, self.ref, _hint(target), where=where)

            def replay(target=target):
                return em.call("call_function", target, None, call_args,
                               aten_kwargs(target, call_kwargs),
                               result, self.ref, _hint(target), where=where)
            index = None
        self.bind_result(result, name, ty)
        self._derived(result, args, kwargs, replay, where, index, (name, ty))

    def _constant_cuts(self, target, args, kwargs, at):
        return constant_cuts(
            target, args, kwargs, at,
            lambda v: v if isinstance(v, torch.Tensor) and
            id(v) in self.constant_ids else None)

    def _constant_ints(self, value):
        if not isinstance(value, (list, tuple)):
            return value
        def one(v):
            if isinstance(v, torch.Tensor) and id(v) in self.constant_ids and \
                    v.dim() == 0 and not v.dtype.is_floating_point and \
                    v.dtype != torch.bool:
                return int(v)
            return v
        return type(value)(one(v) for v in value)

    @staticmethod
    def _known(func, args):
        owner = getattr(func, "__objclass__", None)
        qual = getattr(func, "__qualname__", "")
        if (owner is torch._C._TensorBase or qual.startswith("Tensor.")
                or qual.startswith("_TensorBase.")) and args and \
                isinstance(args[0], torch.Tensor):
            return _traced.is_known_function(f"Tensor.{func.__name__}")
        return _traced.is_known_function(qualified_function_name(func))

    def leaf_call(self, func, target, args, kwargs):
        """A user leaf function: run unrecorded inside, recorded as one
        call_function of `target`."""
        if self.depth > 0 or self.suspended or not self.stack:
            return func(*args, **kwargs)
        with self.suspend():
            before = _versions(args, kwargs)
        self.depth += 1
        try:
            result = func(*args, **kwargs)
        finally:
            self.depth -= 1
        self.note(result)
        with self.suspend():
            self.record(func, args, kwargs, result, target=target)
            self._wrote(args, kwargs, result, before, caller_location(),
                        setitem=target == "Tensor.__setitem__")
        return result

    # -- modules -----------------------------------------------------------------
    def module_call(self, original, module, args, kwargs):
        if self.depth > 0 or self.suspended or not self.stack:
            return original(module, *args, **kwargs)
        em = self.emitter
        if em.module_path(module) is None:
            # A module outside the traced hierarchy (passed as an argument,
            # F.triplet_margin_with_distance_loss's distance_function, or
            # kept in a plain list or a global) is no submodule to call:
            # its forward is traced in place, its tensors constants of the
            # graph, as torch.jit.trace records such a module.
            return original(module, *args, **kwargs)
        with self.suspend():
            receiver = self.ref(module)
            where = caller_location()
            before = _versions(args, kwargs)
        # Leaves the op library describes run unrecorded; any other module
        # (user modules, containers, torch.nn modules the library does not
        # know) is traced into a graph, at every call: a second call may
        # trace differently (other Python arguments, other shapes), so it
        # gets its own graph unless it traced to one the module has.
        if is_known_leaf(module):
            result = self._run_hidden(original, module, args, kwargs)
            method = "forward"
        else:
            result, method = self._trace_into(original, module, args, kwargs)
        self.note(_elements(result))
        with self.suspend():
            flatten = (not is_known_leaf(module)) and isinstance(result, (tuple, dict))
            named = em.call("call_method", method, receiver, args, kwargs,
                            _elements(result), self.ref, receiver[0][1:] + "_out",
                            flatten)

            def replay():
                return em.call("call_method", method, receiver, args, kwargs,
                               _elements(result), self.ref,
                               receiver[0][1:] + "_out", flatten)
            if flatten:
                # A traced module's tuple (or dict) comes back element by
                # element.
                for item, entry in zip(_elements(result), named):
                    if isinstance(item, torch.Tensor):
                        em.define(id(item), *entry)
                        self.keep.append(item)
            else:
                self.bind_result(result, *named)
            self._derived(_elements(result) if flatten else result, args,
                          kwargs, replay, where, entry=named)
            self._wrote(args, kwargs, result, before, where)
        return result

    def _run_hidden(self, original, module, args, kwargs):
        self.depth += 1
        try:
            return original(module, *args, **kwargs)
        finally:
            self.depth -= 1

    def _trace_into(self, original, module, args, kwargs):
        """Traces one call of `module` into a graph; returns the result and
        the graph's (method) name: `forward` for the first trace, the name
        of an identical earlier trace, or `forward_<n>` for a new one."""
        graphs = self.builder.modules[self.builder.module_symbols[id(module)]].graphs
        graph_name = "forward" if not graphs else f"forward_{len(graphs)}"
        blobs_before = set(self.builder.blobs)
        with self.suspend():
            child = GraphEmitter(self.builder, module, graph_name)
            names = _parameter_names(module, len(args))
            # Positional arguments, then keyword arguments: the graph's
            # inputs carry the forward's parameter names, so the call binds.
            inputs = list(zip(names, args)) + list(kwargs.items())
            for i, (name, a) in enumerate(inputs):
                if isinstance(a, torch.Tensor):
                    if id(a) not in child.names:
                        child.add_input(id(a), name, a)
                    else:  # the same tensor twice (q, k, v): one more input
                        child.add_input(("arg", i), name, a)
                    self.keep.append(a)
                else:
                    child.add_input(("arg", i), name, a)
                    if isinstance(a, _SYMBOLIC):
                        child.names[("sym", id(a))] = child.names[("arg", i)]
                    if isinstance(a, (list, tuple, dict)):
                        self._read_elements(child, child.names[("arg", i)],
                                            _elements(a))
        self.stack.append(child)
        try:
            result = original(module, *args, **kwargs)
        finally:
            self.stack.pop()
        with self.suspend():
            self.stack.append(child)
            try:
                if module is self.root:
                    self.guard_number_inputs(child, inputs)
                # (The root's list result is its outputs too, as in
                # symbolic traces.)
                flat = isinstance(result, (tuple, dict)) or (
                    isinstance(result, list) and module is self.root)
                outputs = _flatten_outputs(result) if flat else [result]
                for v in outputs:
                    # A tuple of views (torch.split's) whose base was
                    # written since: made again.
                    if isinstance(v, (tuple, list)) and self.views.known(id(v)):
                        entry = self.views.current(id(v))
                        if not isinstance(entry, list):
                            child.tuple_values[id(v)] = entry
                child.set_outputs(outputs, self.ref)
            finally:
                self.stack.pop()
        if graph_name == "forward":
            return result, graph_name
        new_blobs = set(self.builder.blobs) - blobs_before
        same = self._same_graph(child.graph, graphs)
        if same is None:
            return result, graph_name
        del graphs[graph_name]
        for blob in new_blobs:  # (constants only the dropped trace made)
            del self.builder.blobs[blob]
        return result, same

    def _same_graph(self, graph, graphs):
        """The name of an earlier graph in `graphs` that `graph` equals, up
        to its own name and the names of the constants it made (compared by
        content), or None."""
        def key(g):
            text = g.text().replace(f"graph {symbol(g.name)}(", "graph @_(", 1)

            def content(m):
                b = m.group(1)
                a = self.builder.blobs[b]
                return f"dense_resource<{a.dtype}{a.shape}{hashlib.sha1(a.tobytes()).hexdigest()}>"
            return re.sub(r"dense_resource<([A-Za-z0-9_]+)>", content, text)
        mine = key(graph)
        for other_name, other in graphs.items():
            if other is not graph and key(other) == mine:
                return other_name
        return None


    def _read_elements(self, child, entry, value):
        """The tensors in a list or tuple input (DenseNet's layers take a
        list) are read with `operator.getitem(input, i)` in the callee, so
        its exprs use the input rather than constants of this run's values."""
        entry = _Named(*entry)
        for i, item in enumerate(value):
            if isinstance(item, torch.Tensor) and id(item) not in child.names:
                n, t = child.call("call_function", "operator.getitem", None,
                                  [entry, i], {}, item,
                                  _named_ref,
                                  "getitem_out")
                child.define(id(item), n, t)
                self.keep.append(item)


def _parameter_names(module, count):
    """The forward's parameter names, for the graph's inputs."""
    try:
        params = [p.name for p in inspect.signature(module.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"arg{i}" for i in range(count)]


class _Named:
    """A value already named in the graph (a tuple result being unpacked)."""

    def __init__(self, name, type_):
        self.name, self.type = name, type_


def _named_ref(v):
    """The `ref` of GraphEmitter.call for arguments that are _Named values."""
    return (v.name, v.type) if isinstance(v, _Named) else None


def _tensor_arguments(args, kwargs):
    """The tensors among a call's arguments (and in its lists), in order."""
    found = []
    for a in list(args) + list((kwargs or {}).values()):
        for t in (a if isinstance(a, (list, tuple)) else [a]):
            if isinstance(t, torch.Tensor) and not any(t is f for f in found):
                found.append(t)
    return found


def _versions(args, kwargs):
    """(tensor, version counter) of a call's tensor arguments."""
    return [(t, t._version) for t in _tensor_arguments(args, kwargs)]


def _shares_memory(a, b):
    try:
        return a.storage().data_ptr() == b.storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return False


def _at(where):
    return f" at {where[0]}:{where[1]}" if where else ""


@contextlib.contextmanager
def _patched_leaf_functions(tracer, root, leaf_functions):
    """Rebinds each leaf function, wherever module-level code can see it
    (every loaded module's globals that bind it: its own module, packages
    re-exporting it such as torchvision.ops, the user's modules), to a
    wrapper that records one call."""
    import sys
    if not leaf_functions:
        yield
        return
    spaces = {id(f.__globals__): f.__globals__ for f in leaf_functions}
    for module in list(sys.modules.values()):
        g = getattr(module, "__dict__", None)
        if isinstance(g, dict):
            spaces[id(g)] = g
    wrappers = {}
    for f in leaf_functions:
        def wrapper(*args, __f=f, __target=qualified_function_name(f), **kwargs):
            return tracer.leaf_call(__f, __target, args, kwargs)
        wrappers[id(f)] = (f, wrapper)
    # One pass over every namespace (not one per leaf function: a trace
    # would otherwise cost milliseconds per leaf with torch loaded).
    saved = []
    for g in spaces.values():
        for name, value in list(g.items()):
            hit = wrappers.get(id(value))
            if hit is not None and hit[0] is value:
                saved.append((g, name, value))
                g[name] = hit[1]
    try:
        yield
    finally:
        for g, name, value in reversed(saved):
            g[name] = value


@contextlib.contextmanager
def _sym_extremes(tracer):
    """While a trace with dynamic dims runs, Python's builtin max and min
    of SymInts record `torch.ops.prim.max`/`min` (pairwise, left to right),
    as sizes computed with them (`max(n - 2, 1)`) stay values; on anything
    else they are the builtins. (Left alone, they compare the sizes, a
    SymBool that no Python branch may take.)"""
    import builtins
    originals = builtins.max, builtins.min

    def extreme(original, target):
        def wrapper(*args, **kwargs):
            items = args[0] if len(args) == 1 and not isinstance(args[0], int) \
                else args
            if kwargs or not isinstance(items, (tuple, list)) or \
                    not any(isinstance(v, SymInt) for v in items) or \
                    not all(isinstance(v, int) and not isinstance(v, bool)
                            for v in items):
                return original(*args, **kwargs)
            result = items[0]
            for v in items[1:]:
                value = original(int(result), int(v))
                result = tracer.sym_call(target, [result, v], value) \
                    if isinstance(result, SymInt) or isinstance(v, SymInt) \
                    else value
            return result
        return wrapper

    builtins.max = extreme(originals[0], "torch.ops.prim.max")
    builtins.min = extreme(originals[1], "torch.ops.prim.min")
    try:
        yield
    finally:
        builtins.max, builtins.min = originals


def trace_concrete(root, inputs, leaf_functions=(), sizes=None):
    # The run may write its inputs (`a += b`): it gets copies.
    inputs = tuple(x.clone() if isinstance(x, torch.Tensor) else x
                   for x in inputs)
    leaf_functions = with_known_leaves(leaf_functions)
    builder = IRBuilder()
    symbolize_modules(root, builder)
    opaque = {qualified_function_name(f) for f in leaf_functions}
    tracer = _ConcreteTracer(root, builder, opaque, sizes)
    if sizes is not None and sizes.tracking:
        for i, dims in sizes.inputs.items():
            if isinstance(inputs[i], torch.Tensor):
                tracer.dynamic[id(inputs[i])] = (inputs[i], frozenset(dims))
    original = torch.nn.Module.__call__

    def patched(module, *args, **kwargs):
        return tracer.module_call(original, module, args, kwargs)

    # torch 1.13 calls no __torch_function__ for `x[1]`, `x[:, 0]` or
    # `x[i] = tensor` (its fast paths): indexing is recorded through
    # Tensor.__getitem__ and __setitem__ themselves.
    had = {n: n in vars(torch.Tensor) for n in ("__getitem__", "__setitem__")}
    original_getitem = torch.Tensor.__getitem__
    original_setitem = torch.Tensor.__setitem__

    def getitem(tensor, index):
        return tracer.leaf_call(original_getitem, "Tensor.__getitem__",
                                (tensor, index), {})

    def setitem(tensor, index, value):
        tracer.leaf_call(original_setitem, "Tensor.__setitem__",
                         (tensor, index, value), {})

    # (Named as the methods they replace: a call of the original slot that
    # torch dispatches to __torch_function__, `Tensor.__getitem__(x, [1,
    # 2])`, reaches the tracer with these as its function.)
    for f, n in ((getitem, "__getitem__"), (setitem, "__setitem__")):
        f.__name__, f.__qualname__ = n, f"Tensor.{n}"
    torch.nn.Module.__call__ = patched
    torch.Tensor.__getitem__ = getitem
    torch.Tensor.__setitem__ = setitem
    try:
        with torch.no_grad(), tracer, _patched_leaf_functions(
                tracer, root, leaf_functions), (
                _sym_extremes(tracer) if sizes is not None and sizes.tracking
                else contextlib.nullcontext()):
            tracer._trace_into(original, root, inputs, {})
    except EmitError as exc:
        raise TraceError(str(exc)) from exc
    finally:
        torch.nn.Module.__call__ = original
        for n, f in (("__getitem__", original_getitem),
                     ("__setitem__", original_setitem)):
            if had[n]:
                setattr(torch.Tensor, n, f)
            else:
                delattr(torch.Tensor, n)
    return builder
