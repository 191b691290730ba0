"""Python code for a traced module tree, and a torch.nn.Module that runs it.

`generate(state)` writes one `class <Name>(torch.nn.Module)` per traced.module
that is not a leaf (a torch.nn module without a graph, such as Conv2d, which
is rebuilt from its recorded attributes): an `__init__` that declares the
submodules, parameters, buffers and plain attributes, and one method per
graph (`forward`, `forward_1`, ...) whose lines are the graph's exprs.
`to_torch(state)` runs exactly that source with `exec` and loads the
parameters, buffers and tensor constants from the IR's blobs.

Call targets are resolved by their dotted names (`torch.nn.functional.relu`,
`operator.add`, `torch.ops.aten.var.correction`) and methods on the receiver's
type; a target that does not resolve raises traced.Error naming it and the
expr.
"""
import ast
import importlib
import inspect
import keyword
import math
import operator
import re
import sys

import numpy as np

from . import _traced
from ._emit import unique_name
from ._arrays import _to_numpy
from ._traced import Error

# -- Python operators --------------------------------------------------------

_BINARY = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
    "mod": "%", "pow": "**", "matmul": "@", "and_": "&", "or_": "|",
    "xor": "^", "lshift": "<<", "rshift": ">>", "eq": "==", "ne": "!=",
    "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
}
_UNARY = {"neg": "-", "pos": "+", "invert": "~"}
_METHOD_BINARY = {f"__{k.rstrip('_')}__": v for k, v in _BINARY.items()}
_METHOD_RBINARY = {f"__r{k.rstrip('_')}__": v for k, v in _BINARY.items()
                   if k not in ("eq", "ne", "lt", "le", "gt", "ge")}
_METHOD_UNARY = {f"__{k}__": v for k, v in _UNARY.items()}
_INPLACE_OPERATORS = {"i" + k.rstrip("_") for k in _BINARY
                      if k not in ("eq", "ne", "lt", "le", "gt", "ge")}

# Calls whose result may be (a view of) their input: an in-place op on such
# a result would write the input too, so it runs on a copy.
_ALIASING = {
    "view", "view_as", "reshape", "reshape_as", "contiguous", "detach", "to",
    "type", "type_as", "float", "double", "half", "bfloat16", "int", "long",
    "short", "char", "byte", "bool", "cpu", "cuda", "expand", "expand_as",
    "transpose", "permute", "t", "squeeze", "unsqueeze", "flatten", "unflatten",
    "narrow", "select", "getitem", "__getitem__", "split", "chunk", "unbind",
    "tensor_split", "split_with_sizes", "as_strided", "dropout", "dropout1d",
    "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
    "identity", "diagonal", "movedim", "moveaxis", "swapaxes", "swapdims",
    "real", "imag", "unfold", "getattr", "view_as_real", "view_as_complex",
    "align_to", "rename", "refine_names", "requires_grad_", "data",
}
# Calls whose result may have other strides than a contiguous tensor's.
_STRIDED = {
    "transpose", "permute", "t", "expand", "expand_as", "narrow", "select",
    "getitem", "__getitem__", "movedim", "moveaxis", "swapaxes", "swapdims",
    "unfold", "as_strided", "diagonal", "getattr", "unbind", "split", "chunk",
    "tensor_split", "split_with_sizes",
}
_ALIASING_LEAVES = {"Identity", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                    "AlphaDropout", "FeatureAlphaDropout", "Flatten", "Unflatten"}

_DTYPES = {
    "f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16",
    "i64": "int64", "i32": "int32", "i16": "int16", "i8": "int8",
    "ui8": "uint8", "i1": "bool",
}
_NUMPY_TO_TORCH = {
    "float32": "float32", "float64": "float64", "float16": "float16",
    "bfloat16": "bfloat16", "int64": "int64", "int32": "int32",
    "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
}
# Tensor constants up to this many elements are written inline.
_INLINE_ELEMENTS = 16
# Names the generated code itself uses.
# (imported by every generated source)
_FIXED_NAMES = {"torch", "F", "operator"}
_RESERVED = (set(keyword.kwlist) | _FIXED_NAMES |
             {"self", "getattr", "setattr", "float", "slice", "super", "object",
              "importlib"})


class _Slice:
    def __init__(self, start, stop, step):
        self.parts = (start, stop, step)


class _Literal:
    """A value written as it is (a dtype, a device, an Ellipsis)."""

    def __init__(self, text):
        self.text = text


# -- names ---------------------------------------------------------------------

class _Namer:
    def __init__(self, taken=()):
        self.taken = set(_RESERVED) | set(taken)

    def __call__(self, hint):
        return unique_name(hint, self.taken, invalid=r"\W", digit_prefix="_")


def _is_identifier(name):
    return name.isidentifier() and not keyword.iskeyword(name)


def _attr(base, name):
    """`base.name`, or getattr(base, "name") where name is no identifier."""
    if _is_identifier(name):
        return f"{base}.{name}"
    return f"getattr({base}, {name!r})"


def _path(base, dotted):
    for part in dotted.split("."):
        base = _attr(base, part)
    return base


# -- resolving targets --------------------------------------------------------------

def _import_root(parts):
    """(object, index of the first part not consumed) for the longest
    importable module prefix of `parts`."""
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        found = sys.modules.get(name)
        if found is not None:
            return found, i
        try:
            return importlib.import_module(name), i
        except ImportError:
            continue
        except Exception:  # a module that fails on import: not resolvable
            continue
    return None, 0


def resolve_target(target):
    """The Python object a dotted call target names, or None."""
    import torch
    parts = target.split(".")
    if parts[0] == "Tensor":
        obj, rest = torch.Tensor, parts[1:]
    else:
        obj, i = _import_root(parts)
        if obj is None:
            return None
        rest = parts[i:]
    for part in rest:
        try:
            obj = getattr(obj, part)
        except Exception:
            return None
    return obj


# -- signatures -----------------------------------------------------------------------

def _split_top(text):
    parts, depth, current, quote = [], 0, [], None
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


_NO_DEFAULT = object()
_UNPARSED = object()  # a default that is no Python literal


def _parse_signature(text):
    """[(name, kind, default)] of an op-library signature string; kind is
    'pos', 'var' (a *args list) or 'kw' (after a bare '*')."""
    params, kw_only = [], False
    for part in _split_top(text.strip()[1:-1]):
        if part == "*":
            kw_only = True
            continue
        decl, eq, default = part.partition("=")
        name = decl.split()[-1]
        if name.startswith("*"):
            params.append((name[1:], "var_tensors" if decl.startswith("Tensor[]")
                           else "var", _NO_DEFAULT))
            kw_only = True
            continue
        value = _NO_DEFAULT
        if eq:
            try:
                value = ast.literal_eval(default.strip())
            except (ValueError, SyntaxError):
                value = _UNPARSED
        params.append((name, "kw" if kw_only else "pos", value))
    return params


_SIGNATURES = None


def _library_signature(target, method):
    global _SIGNATURES
    if _SIGNATURES is None:
        _SIGNATURES = _traced.op_library_signatures()
    canonical = _traced.canonical_target(("Tensor." + target) if method else target)
    if canonical is None:
        return None
    text = _SIGNATURES.get(canonical)
    if text is None:
        return None
    params = _parse_signature(text)
    return params[1:] if method else params


def _aten_signature(obj):
    """The parameters of a torch.ops overload from its schema (`self` is the
    op library's `input`)."""
    schema = getattr(obj, "_schema", None)
    if schema is None:
        return None
    params = []
    for a in schema.arguments:
        name = "input" if a.name == "self" else a.name
        params.append((name, "kw" if a.kwarg_only else "pos", _NO_DEFAULT))
    return params


def _python_keywords(obj):
    """The parameter names a Python function takes by keyword; empty for
    builtins (torch's C functions), whose keyword names the op library may
    spell differently."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return set()
    return {p.name for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _aten_keyword_only(name):
    """Parameter names that some ATen schema of `name` takes by keyword
    only (`contiguous(*, memory_format)`): torch's Python bindings refuse
    them positionally, though the op library may not mark them so."""
    import torch
    try:
        schemas = torch._C._jit_get_schemas_for_operator("aten::" + name)
    except Exception:
        return set()
    return {a.name for s in schemas for a in s.arguments if a.kwarg_only}


def _positional(params, positional, named, keywords=frozenset(), method=False,
                aten_name=None):
    """Moves keyword arguments that fill the signature's leading positional
    parameters in order into the positional list (Python operators, torch
    builtins and ATen overloads take them so). A `*size` list is spread for
    a method (`x.view(2, -1)`) and a `Tensor[] *tensors` one for a function;
    torch.permute and torch.reshape take their list as it is. Parameters
    with defaults that the callee takes by keyword (`keywords`) stay
    keywords."""
    positional, named = list(positional), dict(named)
    if params is None:
        return positional, named
    keyword_only = _aten_keyword_only(aten_name) if aten_name else set()
    for name, kind, default in params[len(positional):]:
        if kind == "kw" or (default is not _NO_DEFAULT and name in keywords) \
                or name in keyword_only:
            break
        if kind in ("var", "var_tensors"):
            if name in named and isinstance(named[name], (list, tuple)):
                if method or kind == "var_tensors":
                    positional.extend(named.pop(name))
                else:
                    positional.append(named.pop(name))
            break
        if name in named:
            positional.append(named.pop(name))
            continue
        # A parameter left at its default: fill it in when a later
        # positional parameter is given, so that it can stay positional.
        later = [n for n, k, _ in params if k == "pos" and n in named]
        if not later or default is _NO_DEFAULT or default is _UNPARSED:
            break
        positional.append(default)
    return positional, named


def method_arguments(target, positional, named):
    """(positional, keyword) arguments of a Tensor method call as Python
    passes them (`x.view(1, -1)`): the IR's normalized keywords that fill
    the op library's leading parameters become positional; the receiver
    is not among them."""
    return _positional(_library_signature(target, True), positional, named,
                       method=True, aten_name=target)


def function_arguments(target, positional, named):
    """(positional, keyword) arguments of a function call as Python passes
    them (`torch.flatten(x, 1)`, `F.relu(x, inplace=True)`): keywords that
    fill the leading parameters become positional, and Python functions
    keep keywords for parameters with defaults (ATen overloads follow
    their schema)."""
    obj = resolve_target(target)
    if target.startswith("torch.ops."):
        params = _aten_signature(obj)
        positional, named = list(positional), dict(named)
        if params is None and "input" in named and not positional:
            positional = [named.pop("input")]
        return _positional(params, positional, named)
    return _positional(_library_signature(target, False), positional, named,
                       _python_keywords(obj), aten_name=target.rsplit(".", 1)[-1])


# -- types --------------------------------------------------------------------------

_TENSOR_TYPE = re.compile(r"^tensor<((?:\d+x)*)(\w+)>$")


def _tensor_type(text):
    """(shape, torch dtype name) of a `tensor<2x3xf32>` type."""
    match = _TENSOR_TYPE.match(text)
    if not match or match.group(2) not in _DTYPES:
        return None
    dims = tuple(int(d) for d in match.group(1).split("x") if d)
    return dims, _DTYPES[match.group(2)]


def _receiver_type(type_text):
    import torch
    if type_text.startswith("tensor<"):
        return torch.Tensor
    return {"i64": int, "f64": float, "i1": bool, "!traced.str": str,
            "!traced.none": type(None)}.get(type_text) or (
        tuple if type_text.startswith("tuple<") else
        list if type_text.startswith("!traced.list<") else None)


def _empty(shape, dtype):
    text = f"torch.empty({shape!r}"
    if dtype != "float32":
        text += f", dtype=torch.{dtype}"
    return text + ")"


# -- the generator --------------------------------------------------------------------

class Generated:
    """The source and what to_torch loads into the module it builds."""

    def __init__(self):
        self.source = ""
        self.root_class = None
        self.classes = {}        # module symbol -> class name
        self.constants = []      # (module symbol, buffer name, constant op)
        self.namespace_roots = set()
        self.aliases = {}        # name -> module, for importlib.import_module


class _Generator:
    def __init__(self, state):
        import torch
        self.torch = torch
        self.state = state
        self.info = {sym: state.module_info(sym) for sym in state.modules()}
        self.out = Generated()
        self.leaf_cache = {}
        import torch.nn.functional as F
        # What the generated code's imports bind, for checking that a
        # target's spelling names the object it resolved to.
        self.names = {"torch": torch, "F": F, "operator": operator}

    # -- modules -------------------------------------------------------------
    def is_leaf(self, sym):
        info = self.info[sym]
        if info["graphs"]:
            return False
        cls = resolve_target(info["class"])
        return (isinstance(cls, type) and issubclass(cls, self.torch.nn.Module)
                and cls.__module__.startswith("torch.nn.")
                and cls.__module__ != "torch.nn.modules.container")

    def base_class(self, sym):
        name = self.info[sym]["class"]
        if name.startswith("torch.nn.modules.container."):
            cls = resolve_target(name)
            if isinstance(cls, type):
                return "torch.nn." + cls.__name__
        return "torch.nn.Module"

    def run(self):
        root = self.state.root()
        if root is None:
            raise Error("the module has no root traced.module")
        # Every target's root name is bound in the namespace; no node may
        # shadow it.
        for sym, info in self.info.items():
            for g in info["graphs"]:
                for op in self.state.graph_ops(sym, g):
                    if op.kind == "call_function":
                        self.code_for_target(op.target, op, sym, g)
            if self.is_leaf(sym):
                self.code_for_target(info["class"], None, sym, None)
        order = self.module_order(root)
        short = {}
        for sym in order:
            short.setdefault(self.info[sym]["class"].rsplit(".", 1)[-1], []).append(sym)
        namer = _Namer(set(self.names))
        for sym in order:
            cls = self.info[sym]["class"].rsplit(".", 1)[-1]
            hint = cls if len(short[cls]) == 1 or sym == root or sym == cls \
                else f"{cls}_{sym}"
            self.out.classes[sym] = namer(hint)
        self.out.root_class = self.out.classes[root]
        blocks = [self.emit_class(sym) for sym in reversed(order)]
        header = ["import operator", "import torch",
                  "import torch.nn.functional as F"]
        for name in sorted(self.out.namespace_roots - set(_FIXED_NAMES)):
            header.append(f"import {name}")
        if self.out.aliases:
            header.append("import importlib")
        for alias, module in sorted(self.out.aliases.items()):
            header.append(f"{alias} = importlib.import_module({module!r})")
        self.out.source = "\n".join(header) + "\n\n\n" + "\n\n\n".join(blocks) + "\n"
        return self.out

    def module_order(self, root):
        """Non-leaf modules reachable from the root, parents first."""
        order, seen = [], set()

        def visit(sym):
            if sym in seen or self.is_leaf(sym):
                return
            seen.add(sym)
            order.append(sym)
            for name, kind, detail in self.info[sym]["attributes"]:
                if kind == "submodule":
                    visit(detail)

        visit(root)
        return order

    def emit_class(self, sym):
        info = self.info[sym]
        name = self.out.classes[sym]
        lines = [f"class {name}({self.base_class(sym)}):",
                 f'    """@{sym}: {info["class"]}"""', "",
                 "    def __init__(self):", "        super().__init__()"]
        body = []
        holders = set()

        def owner(dotted):
            """The expression of the module that holds attribute `dotted`,
            making holder modules for a flattened path (`fc.weight`)."""
            parts = dotted.split(".")
            base = "self"
            for i, part in enumerate(parts[:-1]):
                prefix = ".".join(parts[:i + 1])
                if prefix not in holders and prefix not in submodules:
                    holders.add(prefix)
                    body.append(f"{base}.{part} = torch.nn.Module()" if _is_identifier(part)
                                else f"{base}.add_module({part!r}, torch.nn.Module())")
                base = _attr(base, part)
            return base, parts[-1]

        submodules = {n for n, k, _ in info["attributes"] if k == "submodule"}
        training = True
        for attr_name, kind, detail in info["attributes"]:
            if attr_name == "training" and kind == "attribute":
                training = bool(detail)
                continue
            base, last = owner(attr_name)
            if kind == "submodule":
                body.append(f"{base}.add_module({last!r}, {self.construct(detail)})"
                            if not _is_identifier(last) else
                            f"{base}.{last} = {self.construct(detail)}")
            elif kind in ("parameter", "buffer"):
                parsed = _tensor_type(detail)
                if parsed is None:
                    raise Error(f"@{sym}.{attr_name}: cannot make a torch tensor "
                                f"of type {detail}")
                empty = _empty(*parsed)
                if kind == "parameter" and _is_identifier(last):
                    body.append(f"{base}.{last} = torch.nn.Parameter({empty})")
                elif kind == "parameter":
                    body.append(f"{base}.register_parameter({last!r}, "
                                f"torch.nn.Parameter({empty}))")
                else:
                    body.append(f"{base}.register_buffer({last!r}, {empty})")
            elif kind == "attribute":
                if hasattr(self.torch.nn.Module, last):
                    continue
                try:
                    value = self.literal(detail, sym)
                except Error:
                    body.append(f"# {attr_name} = {detail!r}: no Python spelling")
                    continue
                body.append(f"{_attr(base, last)} = {value}" if _is_identifier(last)
                            else f"setattr({base}, {last!r}, {value})")
        methods = []
        taken = {n.split(".")[0] for n, _, _ in info["attributes"]} | \
            set(dir(self.torch.nn.Module))
        const_namer = _Namer(taken | set(info["graphs"]))
        for graph in info["graphs"]:
            methods.append(self.emit_graph(sym, graph, const_namer, body))
        if not training:
            body.append("self.train(False)")
        lines += ["        " + line for line in body]
        for method in methods:
            lines += [""] + method
        return "\n".join(lines)

    def construct(self, sym):
        """The expression that builds submodule `sym`."""
        if not self.is_leaf(sym):
            return f"{self.out.classes[sym]}()"
        if sym not in self.leaf_cache:
            self.leaf_cache[sym] = self.leaf_constructor(sym)
        return self.leaf_cache[sym]

    def leaf_constructor(self, sym):
        """`torch.nn.Conv2d(3, 64, kernel_size=(7, 7), ...)` from a leaf's
        recorded attributes: the constructor's parameters of the same names
        (`bias` from whether a bias parameter exists), leaving out those at
        their defaults; the result is checked by building it on the meta
        device, and a recorded attribute it does not reproduce raises."""
        info = self.info[sym]
        cls = resolve_target(info["class"])
        attrs = {n: d for n, k, d in info["attributes"] if k == "attribute"}
        tensors = {n: k for n, k, _ in info["attributes"] if k in ("parameter", "buffer")}
        expr = self.code_for_target(info["class"], None, sym, None)
        try:
            sig = inspect.signature(cls.__init__)
        except (TypeError, ValueError) as e:
            raise Error(f"cannot rebuild leaf module @{sym} ({info['class']}): {e}")
        args, full = [], []
        for p in list(sig.parameters.values())[1:]:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in ("device", "dtype"):
                continue
            if p.name == "bias" and (tensors.get("bias") == "parameter" or
                                     attrs.get("bias", 0) is None):
                value = tensors.get("bias") == "parameter"
            elif p.name in attrs:
                value = attrs[p.name]
            elif p.default is not p.empty:
                continue
            else:
                raise Error(f"cannot rebuild leaf module @{sym} ({info['class']}): "
                            f"no recorded value for its constructor's '{p.name}'")
            full.append((p, value))
            if p.default is not p.empty and _same_default(value, p.default):
                continue
            args.append((p, value))

        def call(chosen):
            parts = []
            for p, value in chosen:
                text = self.literal(value, sym)
                parts.append(text if p.default is p.empty else f"{p.name}={text}")
            return f"{expr}({', '.join(parts)})"

        def build(chosen):
            kwargs = {p.name: v for p, v in chosen}
            if "device" in sig.parameters:
                kwargs["device"] = "meta"
            return cls(**kwargs)

        try:
            built, text = build(args), call(args)
            if _mismatches(built, attrs, tensors):
                built, text = build(full), call(full)
        except Exception as e:
            raise Error(f"cannot rebuild leaf module @{sym} ({info['class']}) from "
                        f"its recorded attributes: {type(e).__name__}: {e}")
        for name in _mismatches(built, attrs, tensors):
            raise Error(f"cannot rebuild leaf module @{sym} ({info['class']}): "
                        f"its constructor does not reproduce '{name}'")
        return text

    # -- values ----------------------------------------------------------------------
    def literal(self, value, sym, expr_of=None, op=None, subscript=False):
        """Python source for a constant value; traced values (Value) are
        named by `expr_of`."""
        if isinstance(value, _traced.Value):
            return expr_of(value)
        if value is None or isinstance(value, bool):
            return repr(value)
        if isinstance(value, int):
            return repr(value)
        if isinstance(value, float):
            return _float_text(value)
        if isinstance(value, str):
            special = self.special(value, sym, op)
            if special is None:
                return repr(value)
            return self.literal(special, sym, expr_of, op, subscript)
        if isinstance(value, _Slice):
            parts = [self.literal(v, sym, expr_of, op) for v in value.parts]
            if subscript:
                start, stop, step = ["" if v is None else t
                                     for v, t in zip(value.parts, parts)]
                return f"{start}:{stop}" + (f":{step}" if step else "")
            return f"slice({', '.join(parts)})"
        if isinstance(value, _Literal):
            return value.text
        if isinstance(value, list):
            return "[" + ", ".join(self.literal(v, sym, expr_of, op) for v in value) + "]"
        if isinstance(value, tuple):
            items = [self.literal(v, sym, expr_of, op, subscript) for v in value]
            if subscript:
                return ", ".join(items) + ("," if len(items) == 1 else "") if items else "()"
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        raise Error(f"@{sym}: cannot write the value {value!r} as Python")

    def special(self, text, sym, op):
        """A slice, dtype, Ellipsis or object the bindings hand over in its
        Python spelling (`slice(%1, None, None)`, `dtype(f32)`); None for a
        plain string."""
        if text == "...":
            return _Literal("...")
        m = re.fullmatch(r"dtype\((\w+)\)", text)
        if m:
            if m.group(1) not in _DTYPES:
                raise Error(f"@{sym}: no torch dtype for {text}")
            return _Literal(f"torch.{_DTYPES[m.group(1)]}")
        m = re.fullmatch(r'object\("(.*)"\)', text, re.S)
        if m:
            return _Literal(self.object_repr(m.group(1), sym, op))
        if text.startswith("slice(") and text.endswith(")"):
            try:
                tree = ast.parse(re.sub(r"%(\d+)", r"__operand_\1", text), mode="eval")
            except SyntaxError:
                return None
            return self.from_ast(tree.body, op, sym)
        return None

    def object_repr(self, escaped, sym, op):
        """Python source for an object constant the trace kept as its repr:
        a torch attribute (`torch.contiguous_format`) or a device
        (`device(type='cpu')`). Nothing is evaluated: `m.code` runs no code
        taken from the IR."""
        import torch
        text = re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), escaped)
        text = text.replace('\\"', '"').replace("\\\\", "\\")
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            node = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "device" and not node.args and all(
                    isinstance(k.value, ast.Constant) for k in node.keywords):
            return "torch." + text
        if node is not None and _dotted(node, torch):
            return text
        where = f" in {self.describe(op)}" if op is not None else ""
        raise Error(f"@{sym}: the constant object({text!r}){where} has no Python "
                    f"spelling that reads back (the trace kept only its repr)")

    def from_ast(self, node, op, sym):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "slice" and len(node.args) == 3:
                return _Slice(*[self.from_ast(a, op, sym) for a in node.args])
            if node.func.id == "float" and len(node.args) == 1:
                return float(node.args[0].value)
        if isinstance(node, ast.Name) and node.id.startswith("__operand_"):
            first = 1 if op.kind == "call_method" else 0
            return op.operands[first + int(node.id[len("__operand_"):])]
        if isinstance(node, ast.Name) and node.id == "None":
            return None
        try:
            return ast.literal_eval(node)
        except ValueError:
            raise Error(f"@{sym}: cannot read the value {ast.unparse(node)} "
                        f"in {self.describe(op)}") from None

    # -- targets --------------------------------------------------------------------
    def describe(self, op):
        sym, graph = op.graph
        n_inputs = len(self.state.graph_inputs(sym, graph))
        return f"expr %{op.index + n_inputs} of @{sym}::{graph} ({str(op).strip()})"

    def code_for_target(self, target, op, sym, graph):
        """The source that names a dotted call target; raises when it does
        not resolve to a Python callable."""
        obj = resolve_target(target)
        if obj is None or not callable(obj):
            where = self.describe(op) if op is not None else f"leaf module @{sym}"
            raise Error(f"cannot resolve call target '{target}' of {where}: "
                        + ("no such Python object" if obj is None else "not callable"))
        # The op library's name where it is the same object, for reading
        # (torch._C._nn.gelu is F.gelu).
        canonical = _traced.canonical_target(target) if op is not None else None
        if canonical and canonical != target and not canonical.startswith("Tensor.") \
                and resolve_target(canonical) is obj:
            target = canonical
        short = "torch.nn." + target.rsplit(".", 1)[-1]
        if target.startswith("torch.nn.functional."):
            code = "F." + target[len("torch.nn.functional."):]
        elif target.startswith("torch.nn.modules.") and resolve_target(short) is obj:
            code = short
        elif target.startswith("Tensor."):
            code = "torch." + target
        else:
            code = target
        root = code.split(".")[0]
        if root not in self.names:
            found, _ = _import_root([root])
            if found is not None:
                self.names[root] = found
                self.out.namespace_roots.add(root)
        if self.evaluates_to(code, obj):
            return code
        # A package attribute that shadows its submodule
        # (torchvision.ops.stochastic_depth is the function and a module):
        # the module by name.
        parts = target.split(".")
        module, i = _import_root(parts)
        module_name = ".".join(parts[:i])
        alias = re.sub(r"\W", "_", module_name)
        code = ".".join([alias] + parts[i:])
        self.names[alias] = module
        self.out.aliases[alias] = module_name
        if not self.evaluates_to(code, obj):
            where = self.describe(op) if op is not None else f"leaf module @{sym}"
            raise Error(f"cannot name call target '{target}' of {where} in Python")
        return code

    def evaluates_to(self, code, obj):
        try:
            return eval(code, dict(self.names)) is obj  # noqa: S307
        except Exception:
            return False

    # -- graphs ------------------------------------------------------------------
    def emit_graph(self, sym, graph, const_namer, init_body):
        state = self.state
        inputs = state.graph_inputs(sym, graph)
        ops = state.graph_ops(sym, graph)
        namer = _Namer(set(self.names) | set(self.out.classes.values()))
        exprs = {}

        def expr_of(v):
            try:
                return exprs[v]
            except KeyError:
                raise Error(f"@{sym}::{graph}: a value is used before it is "
                            f"defined ({v.name})") from None

        params = []
        for i, v in enumerate(inputs):
            if i == 0:
                exprs[v] = "self"
                continue
            exprs[v] = namer(v.name)
            params.append(exprs[v])
        lines = [f"def {graph}({', '.join(['self'] + params)}):"]
        for op in ops:
            kind = op.kind
            if kind == "getattr":
                exprs[op.results[0]] = _attr(expr_of(op.operands[0]), op.target) \
                    if "." not in op.target else _path(expr_of(op.operands[0]), op.target)
            elif kind == "constant":
                exprs[op.results[0]] = self.constant(sym, op, const_namer, init_body)
            elif kind == "output":
                outs = [expr_of(v) for v in op.operands]
                lines.append("return " + (", ".join(outs) if len(outs) != 1 else outs[0])
                             if outs else "return None")
            elif kind in ("call_function", "call_method"):
                lines.extend(self.call(sym, graph, op, exprs, expr_of, namer))
            else:
                raise Error(f"@{sym}::{graph}: cannot write a '{kind}' op as Python")
        return ["    " + line for line in lines[:1]] + \
            ["        " + line for line in lines[1:]]

    def constant(self, sym, op, const_namer, init_body):
        value = op.value
        if isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], bytes):
            array = _to_numpy(*value)
            dtype = _NUMPY_TO_TORCH[value[1]]
            if array.size == 0:
                return _empty(tuple(array.shape), dtype)
            if array.size <= _INLINE_ELEMENTS:
                items = [_float_text(x) if isinstance(x, float) else repr(x)
                         for x in array.reshape(-1).tolist()]
                data = _nest(items, array.shape)
                default = {"float32": float, "int64": int, "bool": bool}.get(dtype)
                kinds = {type(x) for x in array.reshape(-1).tolist()}
                if array.size and kinds == {default}:
                    return f"torch.tensor({data})"
                return f"torch.tensor({data}, dtype=torch.{dtype})"
            name = const_namer(op.results[0].name)
            shape = tuple(int(d) for d in value[2])
            init_body.append(f"self.register_buffer({name!r}, {_empty(shape, dtype)})")
            self.out.constants.append((sym, name, op))
            return f"self.{name}"
        result_type = op.results[0].type
        if isinstance(value, str) and result_type == "!traced.str":
            return repr(value)
        return self.literal(value, sym, op=op)

    def call(self, sym, graph, op, exprs, expr_of, namer):
        target = op.target
        results = op.results
        args = op.arguments or ([], {})
        positional, named = list(args[0]), dict(args[1])
        method = op.kind == "call_method"
        receiver = op.operands[0] if method else None
        module_sym = receiver.module_name if method else None
        lit = lambda v, subscript=False: self.literal(v, sym, expr_of, op, subscript)

        # In place: which operand the call writes, and whether it may.
        mutated, _ = self.mutated(op)
        if mutated is not None and not self.may_write(mutated, op):
            copy = f"{expr_of(mutated)}.clone()"
            expr_of_plain = expr_of
            expr_of = lambda v: copy if v == mutated else expr_of_plain(v)
            lit = lambda v, subscript=False: self.literal(v, sym, expr_of, op, subscript)

        if method and module_sym is not None:
            callee = self.info.get(module_sym)
            if callee is None:
                raise Error(f"cannot resolve call target '{target}' of "
                            f"{self.describe(op)}: no module @{module_sym}")
            if self.is_leaf(module_sym):
                cls = resolve_target(callee["class"])
                if not callable(getattr(cls, target, None)):
                    raise Error(f"cannot resolve call target '{target}' of "
                                f"{self.describe(op)}: {callee['class']} has no "
                                f"method '{target}'")
            elif target not in callee["graphs"]:
                raise Error(f"cannot resolve call target '{target}' of "
                            f"{self.describe(op)}: @{module_sym} has no graph "
                            f"'{target}'")
            fn = expr_of(receiver) if target == "forward" else \
                _attr(expr_of(receiver), target)
            call = f"{fn}({self.arg_list(positional, named, lit)})"
        elif method:
            rtype = _receiver_type(receiver.type)
            if rtype is not None and not hasattr(rtype, target):
                raise Error(f"cannot resolve call target '{target}' of "
                            f"{self.describe(op)}: {rtype.__name__} has no "
                            f"method '{target}'")
            recv = expr_of(receiver)
            positional, named = method_arguments(target, positional, named)
            call = None
            if not named:
                if target in _METHOD_BINARY and len(positional) == 1:
                    call = f"{_operand(recv)} {_METHOD_BINARY[target]} {_operand(lit(positional[0]))}"
                elif target in _METHOD_RBINARY and len(positional) == 1:
                    call = f"{_operand(lit(positional[0]))} {_METHOD_RBINARY[target]} {_operand(recv)}"
                elif target in _METHOD_UNARY and not positional:
                    call = f"{_METHOD_UNARY[target]}{_operand(recv)}"
                elif target == "__getitem__" and len(positional) == 1:
                    call = f"{_operand(recv)}[{lit(positional[0], True)}]"
                elif target == "__setitem__" and len(positional) == 2:
                    return self.setitem(recv, positional, lit, results, exprs, namer)
            if call is None:
                name = target
                if target == "view" and self.maybe_strided(receiver) and not any(
                        isinstance(v, str) and v.startswith("dtype(")
                        for v in list(positional) + list(named.values())):
                    # The IR's values have no strides (canonicalize drops
                    # `.contiguous()`): a view of a transposed tensor is a
                    # reshape.
                    name = "reshape"
                call = f"{_attr(_operand(recv), name)}({self.arg_list(positional, named, lit)})"
        else:
            code = self.code_for_target(target, op, sym, graph)
            call = self.function_call(target, code, positional, named, lit, op)
            if call is None:  # operator.setitem
                positional, named = _positional(_library_signature(target, False),
                                                positional, named)
                return self.setitem(lit(positional[0]), positional[1:], lit,
                                    results, exprs, namer)
        return self.assign(call, results, exprs, namer)

    def function_call(self, target, code, positional, named, lit, op):
        positional, named = function_arguments(target, positional, named)
        if target.startswith("operator.") and not named:
            name = target[len("operator."):]
            if name in _BINARY and len(positional) == 2:
                return f"{_operand(lit(positional[0]))} {_BINARY[name]} {_operand(lit(positional[1]))}"
            if name in _UNARY and len(positional) == 1:
                return f"{_UNARY[name]}{_operand(lit(positional[0]))}"
            if name == "getitem" and len(positional) == 2:
                return f"{_operand(lit(positional[0]))}[{lit(positional[1], True)}]"
            if name == "setitem" and len(positional) == 3:
                return None
        if target == "builtins.getattr" and not named and len(positional) == 2 \
                and isinstance(positional[1], str) and _is_identifier(positional[1]):
            return f"{_operand(lit(positional[0]))}.{positional[1]}"
        return f"{code}({self.arg_list(positional, named, lit)})"

    def setitem(self, recv, rest, lit, results, exprs, namer):
        """`x[i] = v` as two lines: the result names the written tensor."""
        name = namer(results[0].name) if results else namer("setitem")
        if results:
            exprs[results[0]] = name
        return [f"{name} = {recv}",
                f"{name}[{lit(rest[0], True)}] = {lit(rest[1])}"]

    def arg_list(self, positional, named, lit):
        parts = [lit(v) for v in positional]
        parts += [f"{k}={lit(v)}" for k, v in named.items()]
        return ", ".join(parts)

    def assign(self, call, results, exprs, namer):
        if not results:
            return [call]
        names = []
        for v in results:
            exprs[v] = namer(v.name)
            names.append(exprs[v])
        return [f"{', '.join(names)} = {call}"]

    # -- in-place calls -----------------------------------------------------------
    def mutated(self, op):
        """(the operand a call writes, how), or (None, None)."""
        target = op.target
        positional, named = op.arguments or ([], {})
        first = (positional[0] if positional else named.get("input"))
        if op.kind == "call_method":
            receiver = op.operands[0]
            if receiver.module_name is not None:
                callee = self.info.get(receiver.module_name, {})
                attrs = {n: d for n, k, d in callee.get("attributes", [])
                         if k == "attribute"}
                if not callee.get("graphs") and attrs.get("inplace") is True:
                    arg = op.operands[1] if len(op.operands) > 1 else None
                    return arg, "module"
                return None, None
            if target == "__setitem__" or (target.endswith("_") and not target.endswith("__")) \
                    or target.strip("_") in _INPLACE_OPERATORS and target.startswith("__"):
                return receiver, "method"
            return None, None
        base = target.rsplit(".", 1)[-1]
        if target.startswith("torch.ops."):
            base = target.split(".")[3] if len(target.split(".")) > 3 else base
        if target.startswith("operator."):
            writes = base == "setitem" or base in _INPLACE_OPERATORS
        else:
            writes = named.get("inplace") is True or (
                base.endswith("_") and not base.endswith("__"))
        if writes:
            return (first if isinstance(first, _traced.Value) else None), "function"
        return None, None

    def may_write(self, value, op):
        """Whether writing `value` in place is invisible: a fresh result of
        a call in this graph (not a view, a parameter, a constant or an
        input) that nothing else reads."""
        owner = value.owner
        if owner is None or owner.kind not in ("call_function", "call_method"):
            return False
        users = value.users
        if len(users) != 1 or users[0] != op:
            return False
        # An in-place call returns the tensor it wrote, which was fresh or
        # a copy (see call()).
        if self.mutated(owner)[0] is not None:
            return True
        target = owner.target
        if owner.kind == "call_method" and owner.operands[0].module_name is not None:
            callee = self.info.get(owner.operands[0].module_name, {})
            if callee.get("graphs"):
                return False
            return callee.get("class", "").rsplit(".", 1)[-1] not in _ALIASING_LEAVES
        parts = target.split(".")
        base = parts[3] if target.startswith("torch.ops.") and len(parts) > 3 else parts[-1]
        return base not in _ALIASING and base != "setitem"


    def maybe_strided(self, value, depth=0):
        """Whether torch may hold `value` with other strides than a
        contiguous tensor's (a transpose, a slice, an expand, or a view or
        reshape of one)."""
        owner = value.owner
        if owner is None or depth > 50 or owner.kind not in ("call_function", "call_method"):
            return False
        if owner.kind == "call_method" and owner.operands[0].module_name is not None:
            callee = self.info.get(owner.operands[0].module_name, {})
            cls = callee.get("class", "").rsplit(".", 1)[-1]
            if callee.get("graphs") or cls not in _ALIASING_LEAVES or len(owner.operands) < 2:
                return False
            return self.maybe_strided(owner.operands[1], depth + 1)
        parts = owner.target.split(".")
        base = parts[3] if owner.target.startswith("torch.ops.") and len(parts) > 3 else parts[-1]
        if base in _STRIDED:
            return True
        if base == "contiguous":
            return False
        if (base in _ALIASING or self.mutated(owner)[0] is not None) and owner.operands:
            return self.maybe_strided(owner.operands[0], depth + 1)
        return False


def _dotted(node, torch):
    """Whether an expression is a torch attribute chain that exists
    (`torch.contiguous_format`), read without evaluating anything."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not (isinstance(node, ast.Name) and node.id == "torch" and parts):
        return False
    obj = torch
    for part in reversed(parts):
        if part.startswith("_") or not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return not isinstance(obj, torch.Tensor)


def _operand(text):
    """Parenthesized where a Python operator would bind it wrongly."""
    if re.fullmatch(r"[\w.]+(\[[^\[\]]*\])?|[\w.]+\(.*\)", text) and not text.startswith("-"):
        return text
    if re.fullmatch(r"\d[\w.]*", text):
        return text
    return f"({text})"


def _float_text(x):
    if math.isnan(x):
        return 'float("nan")'
    if math.isinf(x):
        return 'float("inf")' if x > 0 else 'float("-inf")'
    return repr(x)


def _nest(items, shape):
    if not shape:
        return items[0]
    if len(shape) == 1:
        return "[" + ", ".join(items) + "]"
    step = len(items) // shape[0] if shape[0] else 0
    return "[" + ", ".join(_nest(items[i * step:(i + 1) * step], shape[1:])
                           for i in range(shape[0])) + "]"


def _same_default(value, default):
    if type(value) is type(default) and value == default:
        return True
    if isinstance(value, tuple) and isinstance(default, int) and \
            not isinstance(default, bool) and value and \
            all(type(v) is int and v == default for v in value):
        return True
    return False


def _mismatches(built, attrs, tensors):
    """Recorded attributes and tensors a constructed leaf does not have."""
    missing = []
    for name, value in attrs.items():
        if name == "training":
            continue
        if name == "bias" and value is None:
            if getattr(built, "bias", None) is not None:
                missing.append(name)
            continue
        got = getattr(built, name, _NO_DEFAULT)
        if got is _NO_DEFAULT or not _equal(got, value):
            missing.append(name)
    for name, kind in tensors.items():
        t = getattr(built, name, None)
        if t is None:
            missing.append(name)
    return missing


def _equal(a, b):
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    try:
        return type(a) is type(b) and bool(a == b) or (
            isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))
    except Exception:
        return False


# -- entry points ---------------------------------------------------------------------

def generate(state):
    return _Generator(state).run()


def python_code(state):
    """The Python source of the module tree (what to_torch runs)."""
    return generate(state).source


def to_torch(state):
    """A torch.nn.Module built by running the generated code, with the
    traced module's parameters, buffers and tensor constants."""
    generated = generate(state)
    code = compile(generated.source, f"<traced code of {state.root()}>", "exec")
    # The source is what `m.code` shows, imports included.
    ns = {"__name__": "traced_generated"}
    exec(code, ns)  # noqa: S102
    root = ns[generated.root_class]()
    _tie_and_load(state, root, generated)
    return root


def _tie_and_load(state, root, generated):
    """Makes a module instance shared where the IR shares it, then copies
    every parameter, buffer and constant into place."""
    import torch
    instances = {}
    root_sym = state.root()

    def walk(sym, module):
        instances[sym] = module
        for name, kind, detail in state.module_info(sym)["attributes"]:
            if kind != "submodule":
                continue
            parent = module
            parts = name.split(".")
            for part in parts[:-1]:
                parent = getattr(parent, part)
            if detail in instances:
                setattr(parent, parts[-1], instances[detail])
                continue
            walk(detail, getattr(parent, parts[-1]))

    walk(root_sym, root)
    with torch.no_grad():
        for sym, module in instances.items():
            info = state.module_info(sym)
            for name, kind, detail in info["attributes"]:
                if kind == "attribute" and name == "training":
                    module.training = bool(detail)
                if kind not in ("parameter", "buffer"):
                    continue
                target = module
                parts = name.split(".")
                for part in parts[:-1]:
                    target = getattr(target, part)
                tensor = getattr(target, parts[-1])
                _copy_into(tensor, _to_numpy(*state.get_tensor(sym, name)),
                           f"@{sym}.{name}")
        for sym, name, op in generated.constants:
            _copy_into(getattr(instances[sym], name), _to_numpy(*op.value),
                       f"constant {name} of @{sym}")


def _copy_into(tensor, array, what):
    import torch
    source = torch.from_numpy(np.asarray(array, order="C"))
    if tuple(source.shape) != tuple(tensor.shape):
        raise Error(f"{what}: the IR's value has shape {tuple(source.shape)}, "
                    f"the module's {tuple(tensor.shape)}")
    tensor.copy_(source)
