"""The user-facing objects: Module, the module views it hands out, and the
TracedModule-style graph-surgery API (Graph, Expr, Node)."""
from __future__ import annotations

import contextlib
import os
from typing import IO, Any, Dict, Iterator, List, Optional, Tuple, Union

import numpy as np

from . import _traced
from ._traced import Error
from .errors import InterpretError, PassError, VerifyError, raising
from .summary import Summary

_NUMPY_DTYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16,
    "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
    "uint8": np.uint8, "bool": np.bool_,
}


def _contiguous(x):
    """A C-contiguous numpy array of `x`; unlike np.ascontiguousarray, a 0-d
    array stays 0-d."""
    return np.asarray(x, order="C")


def _input_arg(x):
    """(bytes, dtype name, shape) of an array-like: numpy arrays, or torch
    tensors (the only way to pass bfloat16, which numpy lacks)."""
    if hasattr(x, "detach"):  # a torch tensor
        x = x.detach().cpu()
        if str(x.dtype) == "torch.bfloat16":
            return (x.contiguous().view(dtype=__import__("torch").int16).numpy().tobytes(),
                    "bfloat16", list(x.shape))
        x = x.numpy()
    array = _contiguous(x)
    dtype = {v: k for k, v in _NUMPY_DTYPES.items()}.get(array.dtype.type)
    if dtype is None:
        raise Error(f"cannot interpret a numpy array of dtype {array.dtype}")
    return (array.tobytes(), dtype, list(array.shape))


def _to_numpy(data, dtype, shape):
    if dtype == "bfloat16":
        raw = np.frombuffer(data, dtype=np.uint16).astype(np.uint32) << 16
        return raw.view(np.float32).reshape(shape)
    return np.frombuffer(data, dtype=_NUMPY_DTYPES[dtype]).reshape(shape).copy()


class Module:
    """A traced model: an MLIR module of `traced.module`s.

    `str(m)` is the MLIR text; `m.graph` the root's forward graph; `m.conv`
    the submodule `conv` (its parameters read and written as numpy arrays).
    """

    def __init__(self, state):
        object.__setattr__(self, "_state", state)

    # -- the IR as a whole -----------------------------------------------------
    def __str__(self) -> str:
        """The MLIR text (weights as hex `dense_resource` blobs)."""
        return self._state.to_text()

    def to_string(self, debuginfo: bool = False) -> str:
        """The MLIR text; with `debuginfo`, each expr's location (the user's
        Python file:line, inside the module path that made the call)."""
        return self._state.to_text(debuginfo=debuginfo)

    def verify(self) -> None:
        """Raises VerifyError (a traced.Error) with the verifier's
        diagnostics when the IR is invalid."""
        with raising(VerifyError):
            self._state.verify()

    def run_passes(self, pipeline: str) -> None:
        """Runs a traced-opt pipeline in place, e.g. "canonicalize,cse";
        raises PassError when the pipeline does not parse or a pass fails."""
        with raising(PassError):
            self._state.run_passes(pipeline)

    #: The suffixes `save` and `traced.load` know, and what they write.
    _SAVE_FORMATS = {".mlir": "MLIR text", ".mlirbc": "MLIR bytecode",
                    ".json": "a JSON trace"}

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes .mlir text, .mlirbc bytecode or a .json trace, by suffix;
        any other suffix raises traced.Error (nothing is written)."""
        path = os.fspath(path)
        suffix = os.path.splitext(path)[1]
        if suffix not in self._SAVE_FORMATS:
            known = [f"{k} ({v})" for k, v in self._SAVE_FORMATS.items()]
            raise Error(f"cannot save '{path}': Module.save writes "
                        f"{', '.join(known[:-1])} or {known[-1]}, by suffix, "
                        f"not '{suffix or path}' (for a .pt file, torch.save "
                        f"the nn.Module, or m.to_torch() of this one)")
        if suffix == ".mlirbc":
            data = self._state.to_bytecode()
        elif suffix == ".json":
            data = self._state.to_trace_json().encode()
        else:
            data = str(self).encode()
        with open(path, "wb") as f:
            f.write(data)

    def interpret(self, *inputs: Any, module: Optional[str] = None,
                  graph: str = "forward", cast: bool = False,
                  **named: Any) -> List[Any]:
        """Runs a graph (the root's forward by default) with the reference
        interpreter; returns one value per graph output.

        Inputs bind like a call of the traced forward: positionally or by
        its parameter names (`m.interpret(ids, attention_mask=am)`), and
        trailing inputs the trace saw as None may be left out. Tensor
        inputs are numpy arrays, torch tensors or what np.asarray takes, of
        the graph's dtype (`cast=True` converts other dtypes) and shape (a
        dynamic dim takes any size); Python numbers pass as they are. The
        outputs are torch tensors when an input is a torch tensor, else
        numpy arrays (bfloat16: torch.bfloat16 tensors); Python values for
        the graph's non-tensor outputs.

        Raises InterpretInputError (an InputError and an InterpretError)
        for inputs the graph does not take, and InterpretError when the
        graph does not exist or the interpreter fails. The rules are those
        of compiled modules (docs/python.md, "Calling a traced module")."""
        from . import _calls
        from .errors import InputError, InterpretInputError

        with raising(InterpretError):
            sym = module or self.root_name
            target = Graph(self._state, sym, graph)
            where = f"@{sym}::{graph}"
            try:
                specs = _calls.specs_of_graph(target)
                bound = _calls.bind(specs, inputs, named, where)
                args = []
                for spec, x in zip(specs, bound):
                    if spec.kind == "tensor":
                        a = _calls.tensor_array(spec, x, cast, where)
                        args.append((a.tobytes(), spec.dtype, list(a.shape)))
                    elif spec.kind == "none":
                        _calls.check_none(spec, x, where)
                        args.append(None)
                    elif x is not None and not isinstance(x, (int, float, bool)):
                        # Python numbers pass as they are; arrays as data.
                        args.append(_input_arg(x))
                    else:
                        args.append(x)
            except InputError as exc:
                if type(exc) is InputError:
                    raise InterpretInputError(*exc.args) from None
                raise
            # (Trailing None inputs are left out, as the interpreter allows.)
            while args and args[-1] is None and specs[len(args) - 1].kind == "none":
                args.pop()
            results = self._state.interpret(args, module or "", graph)
        results = [_from_runtime(r) for r in results]
        return _calls.to_torch(results) if _calls.wants_torch(
            list(inputs) + list(named.values())) else results

    def to_bytecode(self):
        """The MLIR bytecode as bytes (what `save("x.mlirbc")` writes)."""
        return self._state.to_bytecode()

    def to_dot(self, depth=None, params=False):
        """The root's forward graph in Graphviz's DOT language: each traced
        submodule call a cluster, drawn `depth` levels deep (None: every
        level; 1: the root graph with its submodule calls as boxes); edges
        labelled with shape and dtype; parameters, buffers and tensor
        constants drawn when `params` is true."""
        from . import draw
        return draw.to_dot(self._state, depth, params)

    def draw(self, path, depth=None, params=False, format=None):
        """Renders `to_dot(depth, params)` with Graphviz's `dot` into
        `path`: .svg, .png or .pdf by suffix (or `format=`), .dot for the
        text. Returns the path."""
        from . import draw
        return draw.draw(self._state, path, depth, params, format)

    def clone(self):
        """A deep copy (its own IR and weights): a Module."""
        return Module(self._state.clone())

    # -- summaries ---------------------------------------------------------------
    def summary(self, print: bool = True, depth: Optional[int] = None,
                file: Optional[IO[str]] = None) -> Summary:
        """A torchinfo-style Summary of the module: a row per module call in
        call order (path, class, output shapes and dtypes, parameters,
        MACs) and exact totals. Prints its table to `file` (stdout) unless
        `print` is False; `depth` limits the printed rows (docs/python.md)."""
        from .summary import summarize
        result = summarize(self, depth)
        if print:
            _print(result, file=file)
        return result

    def print_tabular(self, file: Optional[IO[str]] = None) -> None:
        """Prints the root graph in torch.fx's print_tabular layout
        (`Graph.print_tabular`)."""
        self.graph.print_tabular(file)

    # -- back to Python (codegen.py) ---------------------------------------------
    @property
    def code(self):
        """Python source for the module tree: one class per traced.module
        (leaf torch.nn modules are constructed); what to_torch() runs."""
        from . import codegen
        return codegen.python_code(self._state)

    def to_torch(self):
        """A torch.nn.Module that runs `self.code`, with the parameters,
        buffers and tensor constants of this module."""
        from . import codegen
        return codegen.to_torch(self._state)

    # -- structure -----------------------------------------------------------------
    @property
    def root_name(self) -> str:
        """The symbol of the root traced.module (its class name)."""
        root = self._state.root()
        if root is None:
            raise Error("the module has no root traced.module")
        return root

    @property
    def graph(self) -> Graph:
        """The root module's forward graph."""
        return Graph(self._state, self.root_name, "forward")

    def module(self, name: str) -> ModuleView:
        """The view of the traced.module named `name`."""
        return ModuleView(self._state, name)

    def modules(self) -> List[ModuleView]:
        """Views of every traced.module, in the IR's order (root first)."""
        return [ModuleView(self._state, name) for name in self._state.modules()]

    def __getattr__(self, name):
        return getattr(ModuleView(self._state, self.root_name), name)

    def __setattr__(self, name, value):
        setattr(ModuleView(self._state, self.root_name), name, value)


_print = print  # (Module.summary's `print` argument hides the builtin)


def _from_runtime(value):
    if isinstance(value, tuple) and len(value) == 4 and isinstance(value[0], bytes):
        data, storage, shape, dtype = value
        array = np.frombuffer(data, dtype=np.dtype(storage)).reshape(shape)
        if dtype == "bfloat16":
            # numpy has no bfloat16: a torch.bfloat16 tensor, as compiled
            # modules return (the float32 storage holds bfloat16 values).
            import torch
            return torch.from_numpy(array.copy()).to(torch.bfloat16)
        return array.astype(_NUMPY_DTYPES[dtype])
    if isinstance(value, list):
        return [_from_runtime(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_from_runtime(v) for v in value)
    return value


class ModuleView:
    """One traced.module: attribute access like the nn.Module it came from."""

    def __init__(self, state, sym):
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_sym", sym)

    @property
    def name(self) -> str:
        """The traced.module's symbol ("layer1_0_conv1")."""
        return self._sym

    @property
    def info(self) -> Dict[str, Any]:
        """{"class", "root", "attributes": [(name, kind, detail)], "graphs"}:
        kind is "submodule" (detail: its symbol), "parameter" or "buffer"
        (detail: the tensor type) or "attribute" (detail: the value)."""
        return self._state.module_info(self._sym)

    @property
    def class_name(self) -> str:
        """The nn.Module class ("torch.nn.modules.conv.Conv2d")."""
        return self.info["class"]

    def graph_named(self, name: str = "forward") -> Graph:
        """The module's graph `name` ("forward", "forward_1", ...)."""
        return Graph(self._state, self._sym, name)

    @property
    def graph(self) -> Graph:
        """The module's forward graph (leaf modules have none)."""
        return self.graph_named("forward")

    def _attribute(self, name):
        for attr_name, kind, detail in self.info["attributes"]:
            if attr_name == name:
                return kind, detail
        return None, None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        kind, detail = self._attribute(name)
        if kind == "submodule":
            return ModuleView(self._state, detail)
        if kind in ("parameter", "buffer"):
            return _to_numpy(*self._state.get_tensor(self._sym, name))
        if kind == "attribute":
            return detail
        raise AttributeError(f"traced module @{self._sym} ({self.class_name}) "
                             f"has no attribute '{name}'")

    def __setattr__(self, name, value):
        kind, _ = self._attribute(name)
        if kind not in ("parameter", "buffer"):
            raise Error(f"only parameters and buffers can be assigned; "
                        f"'{name}' of @{self._sym} is {kind or 'not an attribute'}")
        array = _contiguous(value)
        dtype = {v: k for k, v in _NUMPY_DTYPES.items()}.get(array.dtype.type)
        if dtype is None:
            raise Error(f"cannot store a numpy array of dtype {array.dtype}")
        self._state.set_tensor(self._sym, name, array.tobytes(), dtype,
                               list(array.shape))

    def __repr__(self):
        return f"<traced module @{self._sym} ({self.class_name})>"


class Node:
    """A value of a graph (TracedModule's TensorNode / ModuleNode)."""

    def __init__(self, graph, value):
        self._graph = graph
        self._value = value

    @property
    def name(self) -> str:
        """The value's name in the graph ("conv1_out")."""
        return self._value.name

    @property
    def shape(self) -> Optional[Tuple[int, ...]]:
        """A tensor's shape as recorded on the example inputs ((1, 64, 112,
        112); () for 0-d; None for a dynamic dim); None for non-tensors
        (modules, None, numbers, tuples, lists)."""
        return self._value.shape

    @property
    def dtype(self) -> Optional[str]:
        """A tensor's dtype as torch spells it ("float32", "bfloat16",
        "bool"); None for non-tensors."""
        return self._value.dtype

    @property
    def type(self) -> Any:
        """The MLIR type (str() gives "tensor<1x64xf32>", "!traced.none")."""
        return self._value.type

    @property
    def expr(self) -> Optional[Expr]:
        """The expr that produced this node; None for graph inputs."""
        owner = self._value.owner
        return Expr(self._graph, owner) if owner is not None else None

    @property
    def users(self) -> List[Expr]:
        """The exprs that use this node."""
        return [Expr(self._graph, op) for op in self._value.users]

    def __eq__(self, other):
        return isinstance(other, Node) and self._value == other._value

    def __hash__(self):
        return hash(self._value)

    def __repr__(self):
        return self.name


class Expr:
    """One expr of a graph: Constant, GetAttr, CallMethod or CallFunction."""

    _KINDS = {"constant": "Constant", "getattr": "GetAttr",
              "call_method": "CallMethod", "call_function": "CallFunction",
              "output": "Output"}

    def __init__(self, graph, op):
        self._graph = graph
        self._op = op

    @property
    def kind(self) -> str:
        """"Constant", "GetAttr", "CallMethod", "CallFunction" or "Output"."""
        return self._KINDS.get(self._op.kind, self._op.kind)

    @property
    def id(self) -> int:
        """TracedModule's expr id: the `%N` of `print(graph)`."""
        return self._op.index + len(self._graph.inputs)

    @property
    def target(self) -> Optional[str]:
        """The callee (CallFunction), method (CallMethod) or attribute name."""
        return self._op.target

    @property
    def inputs(self) -> List[Node]:
        """The input nodes; for a CallMethod the receiver comes first."""
        return [Node(self._graph, v) for v in self._op.operands]

    @property
    def outputs(self) -> List[Node]:
        """The nodes this expr defines."""
        return [Node(self._graph, v) for v in self._op.results]

    @property
    def args(self) -> Optional[Tuple[List[Any], Dict[str, Any]]]:
        """(positional, keyword) arguments, traced values as Nodes."""
        found = self._op.arguments
        if found is None:
            return None
        wrap = lambda v: Node(self._graph, v) if isinstance(v, _traced.Value) else v
        positional, named = found
        return [wrap(v) for v in positional], {k: wrap(v) for k, v in named.items()}

    @property
    def value(self) -> Any:
        """A Constant's value (numpy array for tensors)."""
        v = self._op.value
        if isinstance(v, tuple) and len(v) == 3 and isinstance(v[0], bytes):
            return _to_numpy(*v)
        return v

    def __eq__(self, other):
        return isinstance(other, Expr) and self._op == other._op

    def __hash__(self):
        return hash(self._op)

    def __repr__(self):
        line = str(self._op).strip()
        return f"%{self.id}: {line}"


class ExprList(list):
    """A query result with TracedModule's filters."""

    def as_list(self) -> List[Any]:
        """The matches as a plain list."""
        return list(self)

    def as_unique(self) -> Any:
        """The one match; raises traced.Error unless there is exactly one."""
        if len(self) != 1:
            raise Error(f"expected exactly one match, found {len(self)}")
        return self[0]

    def as_dict(self) -> Dict[int, Any]:
        """{expr id: expr} of the matches."""
        return {e.id: e for e in self}


class Graph:
    """A traced.graph: TracedModule's InternalGraph, over the IR."""

    def __init__(self, state, module, name="forward"):
        self._state = state
        self._module = module
        self._name = name

    @property
    def module(self) -> ModuleView:
        """The traced.module this graph belongs to."""
        return ModuleView(self._state, self._module)

    @property
    def inputs(self) -> List[Node]:
        """The graph's inputs; inputs[0] is the module itself (`self`)."""
        return [Node(self, v) for v in self._state.graph_inputs(self._module, self._name)]

    @property
    def outputs(self) -> List[Node]:
        """The nodes the graph returns."""
        return [Node(self, v) for v in self._state.graph_outputs(self._module, self._name)]

    def exprs(self, recursive: bool = True) -> ExprList:
        """The exprs in execution order; with `recursive`, those of the
        traced submodules' graphs this graph calls follow each call."""
        found = ExprList()
        seen = set()

        def walk(graph):
            for op in graph._state.graph_ops(graph._module, graph._name):
                if op.kind == "output":
                    continue
                expr = Expr(graph, op)
                found.append(expr)
                if recursive and op.kind == "call_method":
                    receiver = op.operands[0].module_name
                    if receiver and (receiver, op.target) not in seen and \
                            op.target in graph._state.module_info(receiver)["graphs"]:
                        seen.add((receiver, op.target))
                        walk(Graph(graph._state, receiver, op.target))

        walk(self)
        return found

    def nodes(self, recursive: bool = False) -> List[Node]:
        """The inputs and every expr's outputs, in order (`recursive`: also
        those of the called submodules' graphs)."""
        found = list(self.inputs)
        for e in self.exprs(recursive):
            found.extend(e.outputs)
        return found

    # -- lookups ---------------------------------------------------------------
    def get_function_by_type(self, target: Any, recursive: bool = True) -> ExprList:
        """CallFunction exprs of `target` (a name like "torch.nn.functional.relu",
        or the Python function itself)."""
        name = target if isinstance(target, str) else _function_name(target)
        return ExprList(e for e in self.exprs(recursive)
                        if e.kind == "CallFunction" and e.target == name)

    def get_method_by_type(self, method: str, recursive: bool = True) -> ExprList:
        """CallMethod exprs calling `method` ("__add__", "view", "forward")."""
        return ExprList(e for e in self.exprs(recursive)
                        if e.kind == "CallMethod" and e.target == method)

    def get_module_by_type(self, cls: Any, recursive: bool = True) -> ExprList:
        """Calls of modules of a class (the nn.Module class or its name)."""
        if isinstance(cls, type):
            cls = f"{cls.__module__}.{cls.__qualname__}"
        found = ExprList()
        for e in self.exprs(recursive):
            if e.kind != "CallMethod":
                continue
            receiver = e._op.operands[0].module_name
            if receiver is None:
                continue
            class_name = self._state.module_info(receiver)["class"]
            if class_name == cls or class_name.rsplit(".", 1)[-1] == cls:
                found.append(e)
        return found

    def get_expr_by_id(self, expr_id: int) -> ExprList:
        """The expr of this graph whose id is `expr_id` (a one-element list)."""
        return ExprList(e for e in self.exprs(recursive=False) if e.id == expr_id)

    def get_node_by_name(self, name: str, recursive: bool = False) -> ExprList:
        """The nodes named `name`."""
        return ExprList(n for n in self.nodes(recursive) if n.name == name)

    # -- editing ---------------------------------------------------------------
    def replace_node(self, mapping: Dict[Node, Node]) -> None:
        """Makes every user of each key node use the value node instead."""
        for old, new in mapping.items():
            old._value.replace_all_uses_with(new._value)

    def compile(self) -> int:
        """Removes the exprs whose outputs nobody uses (TracedModule's
        graph.compile()); returns how many were removed."""
        return self._state.erase_dead(self._module, self._name)

    @contextlib.contextmanager
    def insert_exprs(self, after: Union[Expr, Node, None] = None) -> Iterator[Any]:
        """Inserts new exprs after `after` (an Expr or a Node; by default
        just before the graph's output)::

            with graph.insert_exprs(relu_expr) as b:
                y = b.call_function("torch.nn.functional.gelu", x)
        """
        yield _Inserter(self, after)

    def print_tabular(self, file: Optional[IO[str]] = None) -> None:
        """Prints the graph in torch.fx's print_tabular layout: columns
        opcode, name, target, args, kwargs; a row per input (placeholder),
        per expr and for the output (docs/python.md)."""
        from .summary import print_tabular
        print_tabular(self, file)

    def __str__(self) -> str:
        """TracedModule's print of the graph."""
        return self._state.graph_text(self._module, self._name)

    def __repr__(self):
        return f"<traced graph @{self._module}::{self._name}>"


class _Inserter:
    """What `Graph.insert_exprs` yields: builds exprs at one place."""

    def __init__(self, graph, after):
        self._graph = graph
        self._before = None
        if after is not None:
            ops = graph._state.graph_ops(graph._module, graph._name)
            if isinstance(after, Node):
                owner = after._value.owner
                index = -1 if owner is None else owner.index
            else:
                index = after._op.index
            self._before = ops[index + 1]

    def _wrap(self, op):
        results = [Node(self._graph, v) for v in op.results]
        return results[0] if len(results) == 1 else results

    def call_function(self, target, *args, result_types=None, **kwargs):
        """A CallFunction of `target` (name or function); returns its
        output Node (a list for several)."""
        op = self._graph._state.create_call(
            self._graph._module, self._graph._name, "call_function",
            target if isinstance(target, str) else _function_name(target), None,
            [_unwrap(a) for a in args],
            [(k, _unwrap(v)) for k, v in kwargs.items()],
            self._before, result_types)
        return self._wrap(op)

    def call_method(self, receiver, method, *args, result_types=None, **kwargs):
        """A CallMethod of `method` on `receiver` (a tensor or module Node)."""
        op = self._graph._state.create_call(
            self._graph._module, self._graph._name, "call_method", method,
            receiver._value, [_unwrap(a) for a in args],
            [(k, _unwrap(v)) for k, v in kwargs.items()],
            self._before, result_types)
        return self._wrap(op)

    def getattr(self, receiver, name):
        """A GetAttr of `name` (submodule, parameter, buffer) of `receiver`."""
        op = self._graph._state.create_getattr(
            self._graph._module, self._graph._name, receiver._value, name,
            self._before)
        return self._wrap(op)

    def constant(self, value, type=None):
        """A Constant: a numpy array, or a Python value (typed by `type`)."""
        if isinstance(value, np.ndarray):
            array = _contiguous(value)
            dtype = {v: k for k, v in _NUMPY_DTYPES.items()}[array.dtype.type]
            op = self._graph._state.create_constant(
                self._graph._module, self._graph._name,
                (array.tobytes(), dtype, list(array.shape)), "tensor", self._before)
        else:
            op = self._graph._state.create_constant(
                self._graph._module, self._graph._name, _unwrap(value), type,
                self._before)
        return self._wrap(op)


def _unwrap(v):
    if isinstance(v, Node):
        return v._value
    if isinstance(v, list):
        return [_unwrap(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_unwrap(x) for x in v)
    return v


def _function_name(f):
    from ._tracing import qualified_function_name
    return qualified_function_name(f)
