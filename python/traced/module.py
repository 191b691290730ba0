"""The user-facing objects: Module, the module views it hands out, the
TracedModule-style graph-surgery API (Graph, Expr, Node), and torch.fx's
API over the same graphs (FxNode, NodeList; Module's nn.Module-like
calls and introspection)."""
from __future__ import annotations

import contextlib
import os
from typing import IO, Any, Dict, Iterator, List, NamedTuple, Optional, Tuple, Union

import numpy as np

from . import _traced
from ._traced import Error
from .errors import InterpretError, PassError, SurgeryError, VerifyError, raising
from .summary import Summary, _module_path
from ._arrays import _NUMPY_DTYPES, _contiguous, _input_arg, _to_numpy

class _IncompatibleKeys(NamedTuple):
    """What `load_state_dict` returns, as torch's does."""
    missing_keys: List[str]
    unexpected_keys: List[str]


class _ModuleTree:
    """torch.nn.Module's introspection over the traced module tree, shared
    by Module (from the root) and ModuleView (from its module): the names
    and orders are torch's (`named_modules()` in pre-order, each module
    once; `state_dict()` keys `layer1.0.conv1.weight`), tensors come out as
    torch tensors (copies: assign `m.conv.weight = w` or call
    `load_state_dict` to change the IR's)."""

    # Set by the subclasses: the module's state and traced.module symbol.
    _state: Any

    @property
    def _tree_sym(self) -> str:
        raise NotImplementedError

    def __call__(self, *inputs: Any, **named: Any) -> Any:
        """Runs the module's forward graph with the reference interpreter,
        as calling the nn.Module would (`m(x)`, `m.layer1(x)`): inputs by
        position or by the graph's input names, an omitted `None` input
        (`mask=None` at trace time) passed as None. Returns the single
        output, or a tuple of them; torch tensors when any input is one,
        numpy arrays otherwise. Raises InterpretError (a traced.Error)
        like `interpret`."""
        sym = self._tree_sym
        params = self._state.graph_inputs(sym, "forward")[1:] \
            if "forward" in self._state.module_info(sym)["graphs"] else None
        if params is None:
            raise InterpretError(f"@{sym} ({self._state.module_info(sym)['class']}) "
                                 "has no forward graph to run (a leaf module)")
        args = list(inputs)
        if len(args) > len(params):
            raise InterpretError(f"@{sym}::forward takes {len(params)} inputs, "
                                 f"{len(args)} given")
        names = [p.name for p in params]
        for key in named:
            if key not in names:
                raise InterpretError(f"@{sym}::forward has no input '{key}' "
                                     f"(its inputs: {', '.join(names)})")
            if names.index(key) < len(args):
                raise InterpretError(f"input '{key}' of @{sym}::forward given twice")
        for i in range(len(args), len(params)):
            if names[i] in named:
                args.append(named[names[i]])
            elif params[i].type == "!traced.none":
                args.append(None)
            else:
                raise InterpretError(f"@{sym}::forward: missing input '{names[i]}'")
        from . import _calls
        results = Module(self._state).interpret(*args, module=sym)
        if any(hasattr(a, "detach") and hasattr(a, "numpy") for a in args):
            results = [_calls.to_torch(r) for r in results]
        return results[0] if len(results) == 1 else tuple(results)

    def forward(self, *inputs: Any, **named: Any) -> Any:
        """`self(*inputs, **named)`, as nn.Module.forward is called."""
        return self(*inputs, **named)

    # -- modules -----------------------------------------------------------------
    def named_modules(self, memo: Optional[set] = None, prefix: str = "",
                      remove_duplicate: bool = True) -> List[Tuple[str, "ModuleView"]]:
        """(path, ModuleView) of this module ("" or `prefix`) and every
        submodule, in torch's order (pre-order, attributes in declaration
        order); a module reachable by two paths comes once, under its first
        (unless `remove_duplicate` is False)."""
        state = self._state
        memo = set() if memo is None else memo
        found = []

        def visit(sym, path, active):
            view = ModuleView(state, sym)
            if remove_duplicate:
                if view in memo:
                    return
                memo.add(view)
            found.append((path, view))
            for name, kind, detail in state.module_info(sym)["attributes"]:
                if kind == "submodule" and detail not in active:
                    visit(detail, f"{path}.{name}" if path else name, active | {detail})

        visit(self._tree_sym, prefix, frozenset({self._tree_sym}))
        return found

    def modules(self) -> List["ModuleView"]:
        """The ModuleViews of `named_modules()`: this module first, then
        every submodule once, in torch's order."""
        return [view for _, view in self.named_modules()]

    def named_children(self) -> List[Tuple[str, "ModuleView"]]:
        """(attribute name, ModuleView) of the direct submodules, each
        module once."""
        found, seen = [], set()
        for name, kind, detail in self._state.module_info(self._tree_sym)["attributes"]:
            if kind == "submodule" and detail not in seen:
                seen.add(detail)
                found.append((name, ModuleView(self._state, detail)))
        return found

    def children(self) -> List["ModuleView"]:
        """The direct submodules' ModuleViews."""
        return [view for _, view in self.named_children()]

    def get_submodule(self, target: str) -> "ModuleView":
        """The submodule at the dotted path `target` ("layer1.0.conv1"; ""
        is this module), as torch's get_submodule; AttributeError if there
        is none."""
        sym, rest = _walk_path(self._state, self._tree_sym, target)
        if rest:
            raise AttributeError(f"@{self._tree_sym} has no submodule '{target}'")
        return ModuleView(self._state, sym)

    # -- parameters and buffers -------------------------------------------------
    def _tensors(self, kind, prefix, recurse, remove_duplicate):
        state = self._state
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, ModuleView(state, self._tree_sym))]
        entries = [(path, view._sym, name, detail) for path, view in modules
                   for name, k, detail in state.module_info(view._sym)["attributes"]
                   if k == kind]
        keys = {}
        if remove_duplicate and kind == "parameter":
            from .summary import _parameter_keys
            keys = _parameter_keys(state, {(s, n): t for _, s, n, t in entries})
        found, seen = [], set()
        for path, sym, name, _ in entries:
            key = keys.get((sym, name), (sym, name))
            if remove_duplicate:
                if key in seen:
                    continue
                seen.add(key)
            found.append((f"{path}.{name}" if path else name, _torch_tensor(state, sym, name)))
        return found

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> List[Tuple[str, Any]]:
        """(name, torch tensor) of every parameter, named and ordered as
        torch's named_parameters (`layer1.0.conv1.weight`); a tensor that
        several attributes hold (tied weights) comes once, under its first
        name; `recurse=False`: this module's own only."""
        return self._tensors("parameter", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> List[Any]:
        """The tensors of `named_parameters()`
        (`sum(p.numel() for p in m.parameters())`)."""
        return [t for _, t in self.named_parameters(recurse=recurse)]

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> List[Tuple[str, Any]]:
        """(name, torch tensor) of every buffer (`bn1.running_mean`,
        `bn1.num_batches_tracked`), as torch's named_buffers."""
        return self._tensors("buffer", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> List[Any]:
        """The tensors of `named_buffers()`."""
        return [t for _, t in self.named_buffers(recurse=recurse)]

    def _state_entries(self, prefix=""):
        """[(state_dict key, module symbol, name, declared type)] in torch's
        state_dict order: a module's parameters, its buffers, then its
        submodules' entries (a shared module or tied weight under each of
        its names, as torch's state_dict has them)."""
        state = self._state
        found = []

        def visit(sym, pre, active):
            attributes = state.module_info(sym)["attributes"]
            for wanted in ("parameter", "buffer"):
                found.extend((pre + name, sym, name, detail)
                             for name, kind, detail in attributes if kind == wanted)
            for name, kind, detail in attributes:
                if kind == "submodule" and detail not in active:
                    visit(detail, f"{pre}{name}.", active | {detail})

        visit(self._tree_sym, prefix, frozenset({self._tree_sym}))
        return found

    def state_dict(self, destination: Optional[Dict[str, Any]] = None,
                   prefix: str = "", keep_vars: bool = False) -> Dict[str, Any]:
        """An OrderedDict {key: torch tensor} with torch's keys and order
        (`conv1.weight`, `bn1.running_mean`, ..., `fc.bias`), which
        `torch_model.load_state_dict` takes. Every buffer is included:
        the IR does not record `persistent=False`. Tensor constants (the
        weights conv-bn fusion writes) are not module state and are not
        included."""
        import collections
        found = collections.OrderedDict() if destination is None else destination
        for key, sym, name, _ in self._state_entries(prefix):
            found[key] = _torch_tensor(self._state, sym, name)
        return found

    def load_state_dict(self, state_dict: Dict[str, Any],
                        strict: bool = True) -> _IncompatibleKeys:
        """Writes the tensors (torch or numpy) of a state_dict into the IR's
        parameters and buffers, cast to their declared dtypes, as torch's
        load_state_dict copies them; with `strict`, a missing or unexpected
        key raises traced.Error before anything is written. A wrong shape
        raises traced.Error. Returns (missing_keys, unexpected_keys)."""
        entries = {key: (sym, name, detail)
                   for key, sym, name, detail in self._state_entries()}
        missing = [k for k in entries if k not in state_dict]
        unexpected = [k for k in state_dict if k not in entries]
        if strict and (missing or unexpected):
            raise Error(f"load_state_dict: missing keys {missing}, unexpected "
                        f"keys {unexpected}")
        for key, value in state_dict.items():
            if key not in entries:
                continue
            sym, name, declared = entries[key]
            data, dtype, shape = _input_arg(_cast_to(value, declared))
            self._state.set_tensor(sym, name, data, dtype, shape)
        return _IncompatibleKeys(missing, unexpected)


def _walk_path(state, sym, path):
    """(symbol, unresolved parts) of the submodule at a dotted path, read
    greedily: an attribute whose own name has dots (`fc.weight` on the
    root after traced-flatten) matches as a whole."""
    parts = path.split(".") if path else []
    while parts:
        attributes = {n: (k, d) for n, k, d in state.module_info(sym)["attributes"]}
        for n in range(len(parts), 0, -1):
            kind, detail = attributes.get(".".join(parts[:n]), (None, None))
            if kind == "submodule":
                sym, parts = detail, parts[n:]
                break
        else:
            break
    return sym, parts


def _torch_tensor(state, sym, name):
    """A parameter or buffer as a torch tensor (bfloat16 stays bfloat16)."""
    import torch
    data, dtype, shape = state.get_tensor(sym, name)
    tensor = torch.from_numpy(_to_numpy(data, dtype, shape))
    return tensor.to(torch.bfloat16) if dtype == "bfloat16" else tensor


def _cast_to(value, declared):
    """`value` (torch or numpy) cast to a declared tensor type's dtype."""
    from .summary import _tensor_type
    found = _tensor_type(declared)
    dtype = _ELEMENT_DTYPES.get(found[1]) if found else None
    if dtype is None:
        return value
    if hasattr(value, "detach"):
        import torch
        return value.detach().to(getattr(torch, dtype))
    if dtype == "bfloat16":
        import torch
        return torch.from_numpy(np.asarray(value, np.float32)).to(torch.bfloat16)
    return np.asarray(value).astype(_NUMPY_DTYPES[dtype])


_ELEMENT_DTYPES = {"f32": "float32", "f64": "float64", "f16": "float16",
                   "bf16": "bfloat16", "i64": "int64", "i32": "int32",
                   "i16": "int16", "i8": "int8", "ui8": "uint8", "i1": "bool"}


class Module(_ModuleTree):
    """A traced model: an MLIR module of `traced.module`s.

    `str(m)` is the MLIR text; `m.graph` the root's forward graph; `m.conv`
    the submodule `conv` (its parameters read and written as numpy arrays);
    `m(x)` runs the interpreter; `m.state_dict()`, `m.named_modules()` and
    the like answer as the nn.Module would.
    """

    def __init__(self, state):
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_trace_mode", None)

    @property
    def trace_mode(self) -> Optional[str]:
        """How traced.trace() recorded this module: "symbolic" (torch.fx)
        or "concrete" (one run; mode="auto" falls back to it with a
        TracerWarning); None for a module parsed or loaded from a file."""
        return self._trace_mode

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
        any other suffix raises traced.Error (nothing is written). Bytecode
        carries TracedIR's integrity stamp, which traced.load checks
        (docs/reliability.md, "Untrusted input"); it stays plain MLIR
        bytecode."""
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
                    elif spec.kind == "quantized":
                        args.append(_calls.quantized_input(spec, x, where))
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

    def to_onnx(self, path, opset: int = 17, external_data=None,
                locations: bool = True) -> str:
        """Writes the root forward graph as an ONNX model (docs/onnx.md):
        a flattened copy, one or a few default-domain nodes per call,
        parameters and buffers as initializers, each node's doc_string its
        source line (`locations`). `external_data`: None writes the weights
        into the model unless they pass protobuf's 2 GiB (then to
        `<path>.data`), True always to `<path>.data`, a file name (next to
        the model) there, False never. Raises traced.Error naming the call
        and its source line for a call with no ONNX form. Returns the
        path."""
        from . import _onnx
        return _onnx.to_onnx(self._state, path, opset, external_data,
                             locations)

    def view(self, path, serve=False, port=0):
        """Writes a graph explorer of the module to `path`: one
        self-contained HTML file (no network needed to view it) with the
        module tree as collapsible groups, each op's target, shapes,
        dtypes, quantization parameters and source line, a search box and
        the summary table (docs/python.md, "Viewing a graph in the
        browser"). With `serve`, serves it on localhost (`port`, 0: a free
        one), prints the URL and blocks until Ctrl-C. Returns the path."""
        from . import view
        return view.view(self, path, serve=serve, port=port)

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
        """The view of the traced.module named `name` (its symbol,
        "layer1_0_conv1"; `get_submodule("layer1.0.conv1")` goes by path)."""
        return ModuleView(self._state, name)

    @property
    def _tree_sym(self) -> str:
        return self.root_name

    def recompile(self) -> None:
        """torch.fx's GraphModule.recompile(): here the IR is the program
        (`m.code`, `m(x)` and the compilers read it as it is), so this only
        checks it: raises VerifyError when an edit left it invalid."""
        self.verify()

    def __getattr__(self, name):
        return getattr(ModuleView(self._state, self.root_name), name)

    def __setattr__(self, name, value):
        setattr(ModuleView(self._state, self.root_name), name, value)


_print = print  # (Module.summary's `print` argument hides the builtin)


def _quantized_tensor(data, storage, shape, qparams):
    """A torch quantized tensor of the interpreter's storage integers and
    parameters (numpy has no quantized arrays)."""
    return quantized_from_ints(np.frombuffer(data, dtype=np.dtype(storage)).reshape(shape),
                               qparams)


def quantized_from_ints(array, qparams):
    """A torch quantized tensor of storage integers `array` (numpy) and
    `qparams` (a value's `qparams`: its dtype, and scale and zero point or
    scales, zero points and axis)."""
    import torch
    ints = torch.from_numpy(np.array(array, order="C", copy=True))
    ints = ints.to({"quint8": torch.uint8, "qint8": torch.int8,
                    "qint32": torch.int32}[qparams["dtype"]])
    if "scale" in qparams:
        return torch._make_per_tensor_quantized_tensor(
            ints, qparams["scale"], qparams["zero_point"])
    return torch._make_per_channel_quantized_tensor(
        ints, torch.tensor(qparams["scales"], dtype=torch.float64),
        torch.tensor(qparams["zero_points"], dtype=torch.int64), qparams["axis"])


def _from_runtime(value):
    if isinstance(value, tuple) and len(value) == 5 and isinstance(value[0], bytes):
        data, storage, shape, _, qparams = value
        return _quantized_tensor(data, storage, shape, qparams)
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


class ModuleView(_ModuleTree):
    """One traced.module: attribute access like the nn.Module it came from."""

    def __init__(self, state, sym):
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_sym", sym)

    @property
    def name(self) -> str:
        """The traced.module's symbol ("layer1_0_conv1")."""
        return self._sym

    @property
    def _tree_sym(self) -> str:
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

    def __eq__(self, other):
        return isinstance(other, ModuleView) and self._state is other._state \
            and self._sym == other._sym

    def __hash__(self):
        return hash(self._sym)

    def __repr__(self):
        return f"<traced module @{self._sym} ({self.class_name})>"


class Node:
    """A value of a graph (TracedModule's TensorNode / ModuleNode). torch.fx
    calls an operation a node: that is `FxNode` (`graph.nodes`,
    `node.fx_node`)."""

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
    def dims(self) -> Optional[Tuple[Any, ...]]:
        """The shape with each dynamic dim as what it is: the input's dim
        name ("seq"), or its size as an expression of those names ("past +
        seq", docs/llm.md "Relations between sizes"); None for a dynamic
        dim of no such expression; None for non-tensors."""
        return self._value.dims

    @property
    def dtype(self) -> Optional[str]:
        """A tensor's dtype as torch spells it ("float32", "bfloat16",
        "bool", "quint8"); None for non-tensors."""
        return self._value.dtype

    @property
    def qparams(self) -> Optional[Dict[str, Any]]:
        """A quantized tensor's parameters (docs/quantization.md): its
        dtype, and "scale" and "zero_point", or "scales", "zero_points" and
        "axis" per channel; None for other values."""
        return self._value.qparams

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

    @property
    def fx_node(self) -> FxNode:
        """The torch.fx node that defines this value: its expr's, or the
        placeholder of a graph input."""
        return self._graph._fx_node(self._value)

    def replace_all_uses_with(self, new: Union[Node, FxNode]) -> List[Expr]:
        """`graph.replace_node({self: new})`: returns the exprs changed."""
        return self._graph.replace_node({self: new})

    def __eq__(self, other):
        return isinstance(other, Node) and self._value == other._value

    def __hash__(self):
        return hash(self._value)

    def __repr__(self):
        return self.name


class Expr:
    """One expr of a graph: Constant, GetAttr, CallMethod or CallFunction
    (torch.fx's node; `expr.fx_node` is that view of it)."""

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
        """(positional, keyword) arguments as the tracer normalized them
        (mostly keywords), traced values as Nodes; `fx_node.args` and
        `fx_node.kwargs` are them as Python code passes them."""
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

    @property
    def fx_node(self) -> FxNode:
        """This expr as a torch.fx node (op, target, args, kwargs, users)."""
        return FxNode(self._graph, self._op)

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


class FxNode:
    """One node of a graph as torch.fx has it: one operation, with `op`
    ("placeholder", "get_attr", "call_function", "call_method",
    "call_module", "output"; "constant" for a Constant expr, which fx does
    not have), `target`, `args`, `kwargs`, `users`, `name`.

    TracedModule's vocabulary names values Nodes and operations Exprs;
    torch.fx's names operations nodes. `graph.nodes` iterates FxNodes,
    `graph.nodes()` returns the value Nodes; `fx_node.expr` and
    `fx_node.result` lead to the other vocabulary, `expr.fx_node` and
    `node.fx_node` back. A module call is one `call_module` node, as in
    fx: the IR's getattr of the module (`conv1 = getattr(self, "conv1")`)
    is folded into its `target` ("conv1"), unless the module value is
    used otherwise (then it is a `get_attr` node)."""

    def __init__(self, graph, op=None, value=None):
        self._graph = graph
        self._op = op          # the _traced.Op; None for a placeholder
        self._input = value    # a placeholder's graph input

    # -- what torch.fx's Node has -------------------------------------------------
    @property
    def op(self) -> str:
        """"placeholder", "get_attr", "call_function", "call_method",
        "call_module", "output", or "constant"."""
        if self._op is None:
            return "placeholder"
        kind = self._op.kind
        if kind == "getattr":
            return "get_attr"
        if kind == "call_method" and self._op.operands[0].module_name is not None:
            return "call_module"
        return kind

    @property
    def target(self) -> Any:
        """As in torch.fx: the Python function of a call_function (the
        recorded dotted name when it does not import), the method name of a
        call_method, the attribute path of a call_module or get_attr
        ("layer1.0.conv1"; a module's other graph as "inner.forward_1"),
        the input's name of a placeholder, "output"; a constant's name."""
        op = self.op
        if op == "call_function":
            found = _resolved(self._op.target)
            return found if found is not None else self._op.target
        return self.target_name

    @property
    def target_name(self) -> str:
        """`target` as text: call_function targets as their recorded dotted
        name ("torch.nn.functional.relu")."""
        op = self.op
        if op == "placeholder":
            return self._input.name
        if op == "output":
            return "output"
        if op == "constant":
            return self.name
        if op == "get_attr":
            return _module_path(self._op.results[0], "") or self._op.target
        if op == "call_module":
            receiver = self._op.operands[0]
            path = _module_path(receiver, "") or receiver.module_name
            return path if self._op.target == "forward" else f"{path}.{self._op.target}"
        return self._op.target

    @property
    def args(self) -> Tuple[Any, ...]:
        """The positional arguments as Python code passes them (fx's
        `args`): `(x, 1)` for `torch.flatten(x, 1)`, the receiver first
        for a call_method, the module's inputs for a call_module, `(out,)`
        (a tuple for several outputs) for the output; traced values as
        FxNodes."""
        return self._arguments()[0]

    @property
    def kwargs(self) -> Dict[str, Any]:
        """The keyword arguments as Python code passes them
        (`{"inplace": True}` for `F.relu(x, inplace=True)`)."""
        return self._arguments()[1]

    @property
    def all_input_nodes(self) -> List[FxNode]:
        """The FxNodes this node reads (in args and kwargs), each once."""
        found = {}
        operands = self._op.operands if self._op is not None else []
        if self.op in ("call_module", "get_attr"):
            operands = operands[1:]
        for v in operands:
            found[self._graph._fx_node(v)] = None
        return list(found)

    @property
    def users(self) -> Dict[FxNode, None]:
        """{user: None} of the nodes that read this one, in graph order
        (torch.fx's dict)."""
        found = {}
        for v in self._results():
            for op in v.users:
                found[self._graph._fx_node_of_op(op)] = None
        return found

    @property
    def name(self) -> str:
        """The name of the value it defines ("conv1_out"); "output" for
        the output."""
        if self._op is None:
            return self._input.name
        if self._op.kind == "output":
            return "output"
        results = self._op.results
        return results[0].name if results else f"{self._op.kind}_{self._op.index}"

    @property
    def graph(self) -> Graph:
        """The Graph this node belongs to."""
        return self._graph

    @property
    def prev(self) -> Optional[FxNode]:
        """The node before this one in `graph.nodes` (None for the first)."""
        nodes = self._graph._fx_nodes()
        i = nodes.index(self)
        return nodes[i - 1] if i > 0 else None

    @property
    def next(self) -> Optional[FxNode]:
        """The node after this one in `graph.nodes` (None after the
        output)."""
        nodes = self._graph._fx_nodes()
        i = nodes.index(self)
        return nodes[i + 1] if i + 1 < len(nodes) else None

    def replace_all_uses_with(self, replace_with: Union[FxNode, Node]) -> List[FxNode]:
        """Makes every user of this node use `replace_with` instead, as
        torch.fx does, and returns those users; users that `replace_with`
        is itself computed from keep this node. Raises SurgeryError (a
        traced.Error) when it cannot: `replace_with` is defined after a
        user it would have to reach, belongs to another graph, or has
        another type (graph.replace_node's rules)."""
        changed = self._graph.replace_node({self: replace_with})
        return [e.fx_node for e in changed]

    # -- the TracedModule side ------------------------------------------------------
    @property
    def expr(self) -> Optional[Expr]:
        """The Expr of this node; None for a placeholder."""
        return Expr(self._graph, self._op) if self._op is not None else None

    @property
    def result(self) -> Optional[Node]:
        """The value Node this node defines (the graph input of a
        placeholder); None for the output or an op without one result."""
        results = self._results()
        if len(results) != 1 or (self._op is not None and self._op.kind == "output"):
            return None
        return Node(self._graph, results[0])

    @property
    def shape(self) -> Optional[Tuple[int, ...]]:
        """`result.shape`: the recorded shape (fx's meta["tensor_meta"])."""
        result = self.result
        return result.shape if result is not None else None

    @property
    def dtype(self) -> Optional[str]:
        """`result.dtype`: the recorded dtype ("float32")."""
        result = self.result
        return result.dtype if result is not None else None

    def _results(self):
        if self._op is None:
            return [self._input]
        if self._op.kind == "output":
            return []
        return self._op.results

    def _arguments(self):
        op = self.op
        if op in ("placeholder", "get_attr", "constant"):
            return (), {}
        wrap = self._graph._fx_argument
        if op == "output":
            outs = tuple(wrap(v) for v in self._op.operands)
            return ((outs[0] if len(outs) == 1 else (outs or None)),), {}
        found = self._op.arguments
        if found is None:
            positional = self._op.operands[1:] if op != "call_function" else self._op.operands
            named = {}
        else:
            positional, named = found
        if op == "call_method":
            from .codegen import method_arguments
            positional, named = method_arguments(self._op.target, positional, named)
            positional = [self._op.operands[0]] + list(positional)
        elif op == "call_function":
            from .codegen import function_arguments
            positional, named = function_arguments(self._op.target, positional, named)
        return (tuple(wrap(v) for v in positional),
                {k: wrap(v) for k, v in named.items()})

    def __eq__(self, other):
        if not isinstance(other, FxNode) or (self._op is None) != (other._op is None):
            return False
        return self._op == other._op if self._op is not None else self._input == other._input

    def __hash__(self):
        return hash(self._op if self._op is not None else self._input)

    def __repr__(self):
        return self.name


class NodeList:
    """`graph.nodes`, in both vocabularies: iterating it gives torch.fx's
    nodes (FxNodes: placeholders, get_attrs, calls, the output), as
    `for node in graph.nodes:` expects; calling it, `graph.nodes(recursive=
    False)`, is TracedModule's: the value Nodes (inputs and every expr's
    outputs) as an ExprList."""

    def __init__(self, graph):
        self._graph = graph

    def __iter__(self) -> Iterator[FxNode]:
        return iter(self._graph._fx_nodes())

    def __reversed__(self) -> Iterator[FxNode]:
        return reversed(self._graph._fx_nodes())

    def __len__(self) -> int:
        return len(self._graph._fx_nodes())

    def __contains__(self, node) -> bool:
        return node in self._graph._fx_nodes()

    def __call__(self, recursive: bool = False) -> ExprList:
        """TracedModule's graph.nodes(): the inputs and every expr's
        outputs, in order (`recursive`: also those of the called
        submodules' graphs)."""
        found = ExprList(self._graph.inputs)
        for e in self._graph.exprs(recursive):
            found.extend(e.outputs)
        return found

    def __repr__(self):
        return f"<nodes of {self._graph!r}: {len(self)}>"


class Graph:
    """A traced.graph: TracedModule's InternalGraph, over the IR, with
    torch.fx's Graph API beside it (`nodes`, `lint`, `erase_node`,
    `inserting_after`, `call_function`, ...; docs/python.md, "For torch.fx
    users")."""

    def __init__(self, state, module, name="forward"):
        self._state = state
        self._module = module
        self._name = name

    @property
    def module(self) -> ModuleView:
        """The traced.module this graph belongs to."""
        return ModuleView(self._state, self._module)

    owning_module = module

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

    @property
    def nodes(self) -> NodeList:
        """torch.fx's `graph.nodes` when iterated (FxNodes, one per
        operation), TracedModule's `graph.nodes()` when called (value
        Nodes): see NodeList."""
        return NodeList(self)

    # -- the fx view ---------------------------------------------------------------
    def _fx_nodes(self) -> List[FxNode]:
        inputs = self._state.graph_inputs(self._module, self._name)
        found = [FxNode(self, value=v) for v in inputs[1:]]
        for op in self._state.graph_ops(self._module, self._name):
            if op.kind == "getattr" and _folded_module_getattr(op):
                continue
            found.append(FxNode(self, op))
        return found

    def _fx_node(self, value) -> FxNode:
        owner = value.owner
        return FxNode(self, value=value) if owner is None else FxNode(self, owner)

    def _fx_node_of_op(self, op) -> FxNode:
        return FxNode(self, op)

    def _fx_argument(self, v):
        if isinstance(v, _traced.Value):
            return self._fx_node(v)
        if isinstance(v, list):
            return [self._fx_argument(x) for x in v]
        if isinstance(v, tuple):
            return tuple(self._fx_argument(x) for x in v)
        if isinstance(v, dict):
            return {k: self._fx_argument(x) for k, x in v.items()}
        return v

    def _same(self, other) -> bool:
        return (self._state is other._state and self._module == other._module
                and self._name == other._name)

    def _where(self) -> str:
        return f"@{self._module}::{self._name}"

    def lint(self) -> None:
        """torch.fx's lint: checks the graph, and the module around it,
        with the MLIR verifier (which checks what fx's lint does: every
        value defined before it is used and in this graph, getattrs naming
        attributes their module declares, module calls naming a graph or
        method the callee has; and the types). Raises VerifyError (a
        traced.Error) with the diagnostics and their source lines."""
        with raising(VerifyError):
            self._state.verify()

    # -- lookups ---------------------------------------------------------------
    def get_function_by_type(self, target: Any, recursive: bool = True) -> ExprList:
        """Calls of a function: `target` is the function (F.relu,
        torch.relu, operator.mul) or its dotted name. Any spelling the op
        library knows for the same entry matches, functions and Tensor
        methods alike: torch.relu finds `F.relu(x)`, `x.relu()` and
        `x.relu_()`; operator.mul finds `x * y`, `x.mul(y)`, `torch.mul`.
        A target the library does not know matches its own spelling."""
        name = target if isinstance(target, str) else _query_name(target)
        return self._calls(name, "call_function", recursive)

    def get_method_by_type(self, method: Any, recursive: bool = True) -> ExprList:
        """Calls of a method: "__mul__", "view", torch.Tensor.mul, or
        "forward" (module calls). As get_function_by_type, any alias the op
        library knows matches: "__mul__" finds `x.mul(y)`, `x * y`
        (operator.mul, as symbolic tracing records it) and `torch.mul`."""
        name = method if isinstance(method, str) else _query_name(method)
        if not name.startswith("Tensor."):
            name = "Tensor." + name
        return self._calls(name, "call_method", recursive)

    def _calls(self, name, kind, recursive):
        canonical = _canonical(name)
        exact = name[len("Tensor."):] if kind == "call_method" else name
        found = ExprList()
        for e in self.exprs(recursive):
            op = e._op
            if op.kind == kind and op.target == exact:
                found.append(e)
            elif canonical is not None and _op_canonical(op) == canonical:
                found.append(e)
        return found

    def get_module_by_type(self, cls: Any, recursive: bool = True) -> ExprList:
        """Calls of modules of a class or its subclasses (isinstance): the
        nn.Module class, its dotted name ("torch.nn.Conv2d" and
        "torch.nn.modules.conv.Conv2d" alike) or its bare name
        ("Conv2d")."""
        found = ExprList()
        for e in self.exprs(recursive):
            if e.kind != "CallMethod":
                continue
            receiver = e._op.operands[0].module_name
            if receiver is None:
                continue
            class_name = self._state.module_info(receiver)["class"]
            if _class_matches(class_name, cls):
                found.append(e)
        return found

    def get_expr_by_id(self, expr_id: int) -> ExprList:
        """The expr of this graph whose id is `expr_id` (a one-element list)."""
        return ExprList(e for e in self.exprs(recursive=False) if e.id == expr_id)

    def get_node_by_name(self, name: str, recursive: bool = False) -> ExprList:
        """The nodes named `name`."""
        return ExprList(n for n in self.nodes(recursive) if n.name == name)

    # -- editing ---------------------------------------------------------------
    def replace_node(self, mapping: Dict[Union[Node, FxNode], Union[Node, FxNode]]
                     ) -> ExprList:
        """Makes every user of each key node use the value node instead;
        returns the exprs changed. Users that the new node is computed from
        keep the old one (`x -> f(x)` rewrites), as in TracedModule.
        Raises SurgeryError (a traced.Error), and changes nothing for that
        pair, when the replacement cannot be done: the new node is defined
        after a user of the old one that it does not depend on (insert it
        earlier), it belongs to another graph, the types differ, or no
        user could change."""
        changed = ExprList()
        for old, new in mapping.items():
            changed.extend(self._replace(old, new))
        return changed

    def _replace(self, old, new):
        old_value, old_graph = _value_of(old, "replace")
        new_value, new_graph = _value_of(new, "replace with")
        if not old_graph._same(new_graph):
            raise SurgeryError(f"cannot replace '{old_value.name}' of "
                               f"{old_graph._where()} with '{new_value.name}' of "
                               f"{new_graph._where()}: nodes of two graphs")
        if old_value == new_value:
            raise SurgeryError(f"cannot replace '{old_value.name}' with itself")
        if old_value.type != new_value.type:
            raise SurgeryError(f"cannot replace a node of type {old_value.type} "
                               f"('{old_value.name}') with one of type "
                               f"{new_value.type} ('{new_value.name}')")
        users = old_value.users
        if not users:
            return []
        graph = old_graph
        owner = new_value.owner
        moved = users
        if owner is not None:
            limit = owner.index
            cone = _ancestors(owner)
            moved, stuck = [], []
            for user in users:
                if user.index > limit:
                    moved.append(user)
                elif user not in cone:
                    stuck.append(user)
            first = len(graph._state.graph_inputs(graph._module, graph._name))
            ids = lambda ops: ", ".join(f"%{op.index + first}" for op in ops)
            if stuck:
                raise SurgeryError(
                    f"cannot replace '{old_value.name}' with '{new_value.name}' in "
                    f"{graph._where()}: '{new_value.name}' is defined at "
                    f"%{limit + first}, after {ids(stuck)}, which use "
                    f"'{old_value.name}' and cannot read a later value; insert "
                    f"'{new_value.name}''s expr before them "
                    f"(graph.insert_exprs(after=...), graph.inserting_before(...))")
            if not moved:
                raise SurgeryError(
                    f"cannot replace '{old_value.name}' with '{new_value.name}' in "
                    f"{graph._where()}: its only users ({ids(users)}) are what "
                    f"'{new_value.name}' is computed from")
        with raising(SurgeryError):
            old_value.replace_all_uses_with(new_value)
        return [Expr(graph, op) for op in moved]

    def erase_node(self, to_erase: Union[FxNode, Expr, Node]) -> None:
        """Removes an unused expr (an FxNode, an Expr, or the Node it
        defines), as torch.fx's erase_node; a call_module's folded getattr
        of the module goes with it when nothing else reads it. Raises
        SurgeryError for a node that is still used, a placeholder (graph
        inputs are fixed) or the output."""
        op = to_erase._op if isinstance(to_erase, (FxNode, Expr)) else (
            to_erase._value.owner if isinstance(to_erase, Node) else None)
        if op is None:
            raise SurgeryError(f"cannot erase '{to_erase!r}': graph inputs are "
                               f"fixed (a placeholder), or it is not a node")
        if op.kind == "output":
            raise SurgeryError("cannot erase the graph's output")
        users = [u for v in op.results for u in v.users]
        if users:
            first = len(self._state.graph_inputs(self._module, self._name))
            raise SurgeryError(
                f"cannot erase '{FxNode(self, op).name}': still used by "
                + ", ".join(f"%{u.index + first}" for u in users))
        receiver = op.operands[0] if op.kind == "call_method" else None
        with raising(SurgeryError):
            op.erase()
        while receiver is not None and receiver.module_name is not None \
                and receiver.owner is not None and receiver.owner.kind == "getattr" \
                and not receiver.users:
            owner = receiver.owner
            receiver = owner.operands[0]
            owner.erase()

    def compile(self) -> int:
        """Removes the exprs whose outputs nobody uses (TracedModule's
        graph.compile()); returns how many were removed."""
        return self._state.erase_dead(self._module, self._name)

    def eliminate_dead_code(self) -> bool:
        """torch.fx's name for `compile()`: whether anything was removed."""
        return self.compile() > 0

    @contextlib.contextmanager
    def insert_exprs(self, after: Union[Expr, Node, FxNode, None] = None) -> Iterator[Any]:
        """Inserts new exprs after `after` (an Expr or a Node; by default
        just before the graph's output)::

            with graph.insert_exprs(relu_expr) as b:
                y = b.call_function("torch.nn.functional.gelu", x)
        """
        yield _Inserter(self, after)

    # -- torch.fx's node creation ------------------------------------------------
    def inserting_after(self, n: Union[FxNode, Expr, Node, None] = None
                        ) -> contextlib.AbstractContextManager:
        """torch.fx's insertion point: `call_function`, `call_method`,
        `call_module`, `get_attr` and `create_node` inside the block
        insert after `n` (by default before the output), also when called
        on another Graph object of the same graph (`m.graph.call_function`
        in `with m.graph.inserting_after(n):`). Unlike fx, which puts each
        new node right after `n` (so several come out in reverse), they
        stay in the order they are created."""
        return self._inserting(_Inserter(self, n)._before)

    def inserting_before(self, n: Union[FxNode, Expr, Node, None] = None
                         ) -> contextlib.AbstractContextManager:
        """As inserting_after, before `n` (by default before the output)."""
        if n is None:
            before = None
        else:
            before = n._op if isinstance(n, (FxNode, Expr)) else n._value.owner
            if before is None:  # a graph input: before the first expr
                before = self._state.graph_ops(self._module, self._name)[0]
        return self._inserting(before)

    @contextlib.contextmanager
    def _inserting(self, before):
        # Kept by graph, not by Graph object: `m.graph` makes a new one on
        # every access. Only set inside the block, which holds the state.
        key = (id(self._state), self._module, self._name)
        previous = _INSERT_POINTS.get(key)
        _INSERT_POINTS[key] = (before,)
        try:
            yield
        finally:
            if previous is None:
                _INSERT_POINTS.pop(key, None)
            else:
                _INSERT_POINTS[key] = previous

    def _inserter(self) -> _Inserter:
        inserter = _Inserter(self, None)
        point = _INSERT_POINTS.get((id(self._state), self._module, self._name))
        if point is not None:
            inserter._before = point[0]
        return inserter

    def create_node(self, op: str, target: Any, args: Tuple[Any, ...] = (),
                    kwargs: Optional[Dict[str, Any]] = None, name: Optional[str] = None,
                    type_expr: Optional[List[str]] = None) -> FxNode:
        """torch.fx's create_node for "call_function", "call_method",
        "call_module" and "get_attr" (see those); `type_expr` is a list of
        MLIR result types ("tensor<3x4xf32>") for a target the op library
        does not know. `name` is not supported (names come from the
        target). A "placeholder" or "output" raises SurgeryError: a graph's
        inputs and output are fixed."""
        if name is not None:
            raise SurgeryError("create_node: choosing a name is not supported "
                               "(the IR names values after their target)")
        if op == "call_function":
            return self.call_function(target, args, kwargs, type_expr)
        if op == "call_method":
            return self.call_method(target, args, kwargs, type_expr)
        if op == "call_module":
            return self.call_module(target, args, kwargs, type_expr)
        if op == "get_attr":
            return self.get_attr(target)
        raise SurgeryError(f"create_node cannot add a '{op}' node: a graph's "
                           f"inputs and output are fixed (only call_function, "
                           f"call_method, call_module and get_attr)")

    def call_function(self, the_function: Any, args: Tuple[Any, ...] = (),
                      kwargs: Optional[Dict[str, Any]] = None,
                      type_expr: Optional[List[str]] = None) -> FxNode:
        """Adds a call of a function (or its dotted name) at the insertion
        point; args and kwargs hold FxNodes, Nodes and Python values. The
        op library normalizes the call and types its result (`type_expr`:
        result types for an unknown target). Returns the new FxNode."""
        result = self._inserter().call_function(
            the_function, *args, result_types=type_expr, **(kwargs or {}))
        return self._new_node(result)

    def call_method(self, method_name: str, args: Tuple[Any, ...] = (),
                    kwargs: Optional[Dict[str, Any]] = None,
                    type_expr: Optional[List[str]] = None) -> FxNode:
        """Adds `args[0].method_name(*args[1:], **kwargs)`."""
        if not args:
            raise SurgeryError("call_method needs its receiver as args[0]")
        receiver, *rest = args
        result = self._inserter().call_method(
            receiver, method_name, *rest, result_types=type_expr, **(kwargs or {}))
        return self._new_node(result)

    def call_module(self, module_name: str, args: Tuple[Any, ...] = (),
                    kwargs: Optional[Dict[str, Any]] = None,
                    type_expr: Optional[List[str]] = None) -> FxNode:
        """Adds a call of the submodule at `module_name` ("layer1.0.conv1"):
        a getattr of it (folded into the call_module node) and its forward."""
        module = self._getattr_chain(module_name)
        if module.type.startswith("tensor"):
            raise SurgeryError(f"'{module_name}' is not a module of @{self._module}")
        result = self._inserter().call_method(
            module, "forward", *args, result_types=type_expr, **(kwargs or {}))
        return self._new_node(result)

    def get_attr(self, qualified_name: str) -> FxNode:
        """Adds a read of the parameter, buffer or submodule at the dotted
        path `qualified_name`."""
        return self._new_node(self._getattr_chain(qualified_name))

    def _getattr_chain(self, path):
        inserter = self._inserter()
        value = self.inputs[0]
        sym, rest = self._module, path.split(".")
        while rest:
            attributes = {n for n, _, _ in self._state.module_info(sym)["attributes"]}
            for n in range(len(rest), 0, -1):
                name = ".".join(rest[:n])
                if name in attributes:
                    break
            else:
                raise SurgeryError(f"@{sym} has no attribute '{'.'.join(rest)}' "
                                   f"(looking up '{path}' from @{self._module})")
            with raising(SurgeryError):
                value = inserter.getattr(value, name)
            rest = rest[n:]
            sym = value._value.module_name
            if rest and sym is None:
                raise SurgeryError(f"'{name}' in '{path}' is not a module")
        return value

    def _new_node(self, result):
        if isinstance(result, list):
            if not result:
                raise SurgeryError("the new call defines no value")
            result = result[0]
        return self._fx_node(result._value)

    def print_tabular(self, file: Optional[IO[str]] = None) -> None:
        """Prints the graph in torch.fx's print_tabular layout: columns
        opcode, name, target, args, kwargs; a row per node of `graph.nodes`
        (placeholders, get_attrs, calls, constants, the output), arguments
        as Python passes them (docs/python.md)."""
        from .summary import print_tabular
        print_tabular(self, file)

    def __str__(self) -> str:
        """TracedModule's print of the graph."""
        return self._state.graph_text(self._module, self._name)

    def __repr__(self):
        return f"<traced graph @{self._module}::{self._name}>"


# (state id, module, graph): (the op new nodes go before, or None for the
# output,) while a `with graph.inserting_after/before(...)` block runs.
_INSERT_POINTS: Dict[Tuple[int, str, str], Tuple[Any]] = {}


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
            elif isinstance(after, FxNode) and after._op is None:
                index = -1
            else:
                index = after._op.index
            if index + 1 >= len(ops):
                raise SurgeryError("cannot insert after the graph's output")
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
            _unwrap(receiver), [_unwrap(a) for a in args],
            [(k, _unwrap(v)) for k, v in kwargs.items()],
            self._before, result_types)
        return self._wrap(op)

    def getattr(self, receiver, name):
        """A GetAttr of `name` (submodule, parameter, buffer) of `receiver`."""
        op = self._graph._state.create_getattr(
            self._graph._module, self._graph._name, _unwrap(receiver), name,
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
    if isinstance(v, FxNode):
        result = v.result
        if result is None:
            raise SurgeryError(f"node '{v.name}' defines no single value to pass")
        return result._value
    if isinstance(v, list):
        return [_unwrap(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_unwrap(x) for x in v)
    return v


def _value_of(node, what):
    """(the _traced.Value, its Graph) of a Node or a one-result FxNode."""
    if isinstance(node, Node):
        return node._value, node._graph
    if isinstance(node, FxNode):
        result = node.result
        if result is None:
            raise SurgeryError(f"cannot {what} '{node.name}': it defines no "
                               f"single value (the output, or several results)")
        return result._value, node._graph
    raise SurgeryError(f"cannot {what} {node!r}: not a Node or an FxNode")


def _ancestors(op):
    """The ops `op` is computed from, itself included."""
    found = {op}
    stack = [op]
    while stack:
        for v in stack.pop().operands:
            owner = v.owner
            if owner is not None and owner not in found:
                found.add(owner)
                stack.append(owner)
    return found


def _folded_module_getattr(op) -> bool:
    """Whether a getattr reads a module that only module calls (as their
    receiver) and further getattrs use: fx has no node for it."""
    result = op.results[0]
    if result.module_name is None:
        return False
    for user in result.users:
        operands = user.operands
        if user.kind == "getattr":
            continue
        if user.kind == "call_method" and operands[0] == result and \
                result not in operands[1:]:
            continue
        return False
    return True


_RESOLVED: Dict[str, Any] = {}


def _resolved(name: str) -> Any:
    """The Python object a dotted name imports as, or None (cached)."""
    if name not in _RESOLVED:
        from .codegen import resolve_target
        try:
            _RESOLVED[name] = resolve_target(name)
        except Exception:  # a module that fails on import
            _RESOLVED[name] = None
    return _RESOLVED[name]


def _canonical(name: str) -> Optional[str]:
    """The op library's entry for a function or `Tensor.<method>` name."""
    try:
        return _traced.canonical_target(name)
    except Error:
        return None


def _op_canonical(op) -> Optional[str]:
    """The op library's entry a call (function or tensor method) is."""
    if op.kind == "call_function":
        return _canonical(op.target)
    if op.kind == "call_method" and op.operands and \
            op.operands[0].type.startswith("tensor"):
        return _canonical("Tensor." + op.target)
    return None


def _query_name(f) -> str:
    """The dotted name of a function or Tensor method for the queries
    (torch.Tensor.mul is "Tensor.mul")."""
    owner = getattr(f, "__objclass__", None)
    if owner is not None and owner.__name__ in ("_TensorBase", "TensorBase", "Tensor"):
        return f"Tensor.{f.__name__}"
    qualname = getattr(f, "__qualname__", "")
    if qualname.startswith("Tensor.") and getattr(f, "__module__", "") == "torch._tensor":
        return qualname
    return _function_name(f)


def _class_matches(recorded: str, query: Any) -> bool:
    """Whether a module of class `recorded` (dotted name) is an instance of
    `query` (a class, its dotted name or its bare name)."""
    if isinstance(query, str):
        if recorded == query or recorded.rsplit(".", 1)[-1] == query:
            return True
        query = _resolved(query)
        if not isinstance(query, type):
            return False
    cls = _resolved(recorded)
    if isinstance(cls, type):
        return issubclass(cls, query)
    return recorded == f"{query.__module__}.{query.__qualname__}"


def _function_name(f):
    from ._tracing import qualified_function_name
    return qualified_function_name(f)
