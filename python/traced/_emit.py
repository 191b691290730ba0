"""Builds traced IR as MLIR text from Python objects.

Both tracers describe what they saw with this builder: one `ModuleRecord`
per module instance (its class, declarations and graphs) and one
`GraphRecord` per traced method, whose exprs refer to values by name. The
text is parsed by the C++ core, and weights travel as `dense_resource` blobs
set after parsing, so they are never printed as hex.
"""
import math
import re

import numpy as np
import torch

from . import _traced

_BARE_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")

_DTYPES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
    torch.bfloat16: "bf16", torch.int64: "i64", torch.int32: "i32",
    torch.int16: "i16", torch.int8: "i8", torch.uint8: "ui8", torch.bool: "i1",
    # Quantized dtypes are the quant dialect's types without parameters;
    # a quantized tensor's element type has them (quantized_element_type).
    torch.quint8: "!quant.any<u8:f32>", torch.qint8: "!quant.any<i8:f32>",
    torch.qint32: "!quant.any<i32:f32>",
}

# The storage of each quantized dtype: the quant dialect's name and the
# builtin element type of its integers.
_QUANT_STORAGE = {torch.quint8: ("u8", "ui8"), torch.qint8: ("i8", "i8"),
                  torch.qint32: ("i32", "i32")}


class EmitError(Exception):
    """A value the dialect cannot represent."""


def symbol(name):
    """`@name`, quoted when it is not a bare identifier (`@"0"`)."""
    return "@" + (name if _BARE_ID.match(name) else _string(name))


def _string(s):
    out = ['"']
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.extend("\\%02X" % b for b in ch.encode("utf-8"))
    out.append('"')
    return "".join(out)


def element_type(dtype):
    try:
        return _DTYPES[dtype]
    except KeyError:
        raise EmitError(f"tensors of dtype {dtype} are not supported") from None


def quantized_element_type(t):
    """The quant dialect's element type of quantized tensor `t`: its
    storage, scale and zero point per tensor, or per channel along its
    axis (`!quant.uniform<i8:f32:0, {0.01:0, 0.02:0}>`)."""
    storage = _QUANT_STORAGE.get(t.dtype)
    scheme = t.qscheme()
    if storage is None or scheme not in (torch.per_tensor_affine,
                                         torch.per_channel_affine):
        raise EmitError(f"quantized tensors of dtype {t.dtype} and scheme "
                        f"{scheme} are not supported")
    scales = [t.q_scale()] if scheme == torch.per_tensor_affine else \
        t.q_per_channel_scales().tolist()
    bad = [s for s in scales if not (math.isfinite(s) and s > 0)]
    if bad:
        raise EmitError(f"a quantized tensor with scale {bad[0]}: quantized "
                        f"types take positive finite scales (torch computes "
                        f"with this one, meaninglessly)")
    if scheme == torch.per_tensor_affine:
        return f"!quant.uniform<{storage[0]}:f32, {_float(t.q_scale())}:{t.q_zero_point()}>"
    params = ",".join(f"{_float(s)}:{z}" for s, z in
                      zip(t.q_per_channel_scales().tolist(),
                          t.q_per_channel_zero_points().tolist()))
    return f"!quant.uniform<{storage[0]}:f32:{t.q_per_channel_axis()}, {{{params}}}>"


def tensor_type(t):
    dims = "".join(f"{d}x" for d in t.shape)
    if t.is_quantized:
        return f"tensor<{dims}{quantized_element_type(t)}>"
    return f"tensor<{dims}{element_type(t.dtype)}>"


def storage_tensor_type(t):
    """The type of the elements attribute that holds `t`'s value: a
    quantized tensor's storage integers."""
    if not t.is_quantized:
        return tensor_type(t)
    dims = "".join(f"{d}x" for d in t.shape)
    return f"tensor<{dims}{_QUANT_STORAGE[t.dtype][1]}>"


def quantized_weights(module):
    """The weight and bias a quantized module holds packed (torch's
    quantized Conv*d, Linear and their fused forms keep them in
    `_packed_params`): {"weight": ..., "bias": ...}; empty for others."""
    unpack = getattr(module, "_weight_bias", None)
    if not callable(unpack) or not hasattr(module, "_packed_params"):
        return {}
    weight, bias = unpack()
    return {"weight": weight, "bias": bias}


def _is_py_scalar(v):
    return isinstance(v, (bool, int, float, str)) or v is None


def type_of(value, module_symbols):
    """The traced type of a Python value seen while tracing (a dict is the
    tuple of its values: the tracers turn its keys into indices)."""
    if isinstance(value, dict):
        value = tuple(value.values())
    if isinstance(value, torch.Tensor):
        return tensor_type(value)
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i64"
    if isinstance(value, float):
        return "f64"
    if isinstance(value, str):
        return "!traced.str"
    if value is None:
        return "!traced.none"
    if isinstance(value, torch.nn.Module):
        sym = module_symbols.get(id(value))
        if sym is None:
            raise EmitError(f"module {type(value).__name__} is not part of the traced model")
        return f"!traced.module<{symbol(sym)}>"
    if isinstance(value, tuple):  # torch.Size too
        return "tuple<" + ", ".join(type_of(v, module_symbols) for v in value) + ">"
    if isinstance(value, list):
        types = {type_of(v, module_symbols) for v in value}
        elem = types.pop() if len(types) == 1 else "!traced.object"
        return f"!traced.list<{elem}>"
    return "!traced.object"


def _float(v):
    if math.isnan(v):
        return 'float("nan")'
    if math.isinf(v):
        return 'float("inf")' if v > 0 else 'float("-inf")'
    text = repr(float(v))
    mantissa, _, exp = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exp if exp else "")


def py_value(value, ref):
    """Python syntax for a constant argument; `ref(v)` names traced values
    (returns None for values that are constants)."""
    name = ref(value)
    if name is not None:
        return name
    if isinstance(value, dict):  # as the tuple of its values
        value = tuple(value.values())
    if value is None:
        return "None"
    if value is Ellipsis:
        return "..."
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(py_value(v, ref) for v in value) + "]"
    if isinstance(value, tuple):  # torch.Size too
        items = [py_value(v, ref) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, slice):
        return "slice(" + ", ".join(py_value(v, ref) for v in
                                    (value.start, value.stop, value.step)) + ")"
    if isinstance(value, torch.dtype):
        return f"dtype({element_type(value)})"
    return f"object({_string(repr(value))})"


def is_plain_value(value):
    """Whether a module attribute is a Python value worth declaring."""
    if _is_py_scalar(value) or isinstance(value, torch.dtype):
        return True
    if isinstance(value, (tuple, list)):
        return all(is_plain_value(v) for v in value)
    return False


def unique_name(hint, taken, invalid=r"[^A-Za-z0-9_]", digit_prefix="v"):
    """`hint` as a name: characters matching `invalid` become `_`, a leading
    digit gets `digit_prefix`, and `_1`, `_2`, ... are appended until it is
    not in `taken`, to which it is added."""
    base = re.sub(invalid, "_", hint or "v") or "v"
    if base[0].isdigit():
        base = digit_prefix + base
    name, i = base, 0
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    taken.add(name)
    return name


class GraphRecord:
    def __init__(self, name, self_sym):
        self.name = name
        self.self_sym = self_sym
        self.inputs = []  # (name, type)
        self.lines = []
        self.outputs = []  # (name, type)
        self._names = set()

    def fresh(self, hint):
        return "%" + unique_name(hint, self._names)

    def add_input(self, hint, type_):
        name = self.fresh(hint)
        self.inputs.append((name, type_))
        return name

    def emit(self, line):
        self.lines.append(line)

    def text(self):
        args = ", ".join(f"{n}: {t}" for n, t in self.inputs)
        results = ", ".join(t for _, t in self.outputs)
        sig = f"({args})" + (f" -> ({results})" if self.outputs else "")
        body = [f"  graph {symbol(self.name)}{sig} {{"]
        body += ["    " + line for line in self.lines]
        if self.outputs:
            body.append("    output " + ", ".join(n for n, _ in self.outputs)
                        + " : " + results)
        else:
            body.append("    output")
        body.append("  }")
        return "\n".join(body)


class ModuleRecord:
    def __init__(self, sym, class_name, root=False):
        self.sym = sym
        self.class_name = class_name
        self.root = root
        self.decls = []
        self.graphs = {}

    def text(self):
        head = "traced.module " + ("root " if self.root else "")
        lines = [f"{head}{symbol(self.sym)} class {_string(self.class_name)} {{"]
        lines += ["  " + d for d in self.decls]
        lines += [g.text() for g in self.graphs.values()]
        lines.append("}")
        return "\n".join(lines)


class IRBuilder:
    """Collects modules, graphs and weight blobs; `build()` parses them."""

    def __init__(self):
        self.modules = {}  # sym -> ModuleRecord
        self.module_symbols = {}  # id(nn.Module) -> sym
        self.module_paths = {}  # id(nn.Module) -> attribute path from the root
        self.blobs = {}  # blob name -> numpy array
        # id(tensor) -> blob name: a tensor reachable from several module
        # attributes (tied weights) is one blob, which every declaration of
        # it names, so the IR keeps the tie (docs/python.md, "Weight tying").
        self.tensor_blobs = {}
        self._keep = []

    def blob(self, hint, tensor, shared=False):
        """A new blob holding `tensor`'s data, named after `hint`; with
        `shared` (parameters and buffers), the blob this tensor got before."""
        if shared and id(tensor) in self.tensor_blobs:
            return self.tensor_blobs[id(tensor)]
        name = re.sub(r"[^A-Za-z0-9_]", "_", hint)
        base, i = name, 0
        while name in self.blobs:
            i += 1
            name = f"{base}_{i}"
        array = tensor.detach().cpu().contiguous()
        if array.is_quantized:
            array = array.int_repr()
        if array.dtype == torch.bfloat16:
            data = array.view(torch.int16).numpy()
        else:
            data = array.numpy()
        self.blobs[name] = np.ascontiguousarray(data)
        if shared:
            self._keep.append(tensor)  # its id stays its own
            self.tensor_blobs[id(tensor)] = name
        return name

    def declare_module(self, module, sym, root=False):
        """A traced.module for an nn.Module instance with its parameters,
        buffers and plain attributes (submodules are declared by the caller
        once every instance has a symbol)."""
        cls = type(module)
        rec = ModuleRecord(sym, f"{cls.__module__}.{cls.__qualname__}", root)
        self.modules[sym] = rec
        self.module_symbols[id(module)] = sym
        self._keep.append(module)
        return rec

    def declare_attributes(self, module, rec):
        for name, child in module._modules.items():
            if child is None:
                rec.decls.append(f"attribute {symbol(name)} : !traced.none = None")
            else:
                rec.decls.append(f"submodule {symbol(name)} : "
                                 f"{symbol(self.module_symbols[id(child)])}")
        packed = quantized_weights(module)
        for kind, table in (("parameter", module._parameters),
                            ("buffer", module._buffers),
                            ("parameter", packed)):
            for name, t in table.items():
                if t is None:
                    rec.decls.append(f"attribute {symbol(name)} : !traced.none = None")
                    continue
                blob = self.blob(f"{rec.sym}_{name}", t, shared=True)
                rec.decls.append(f"{kind} {symbol(name)} : {tensor_type(t)} = "
                                 f"dense_resource<{blob}> : {storage_tensor_type(t)}")
        taken = (set(module._modules) | set(module._parameters) |
                 set(module._buffers) | set(packed))
        for name, value in sorted(vars(module).items()):
            if name.startswith("_") or name in taken or not is_plain_value(value):
                continue
            try:
                ty = type_of(value, self.module_symbols)
                text = py_value(value, lambda v: None)
            except EmitError:
                continue
            rec.decls.append(f"attribute {symbol(name)} : {ty} = {text}")

    def text(self):
        return "\n\n".join(rec.text() for rec in self.modules.values()) + "\n"

    def build(self, source_name="<trace>"):
        module = _traced.parse(self.text().encode(), source_name)
        for name, array in self.blobs.items():
            # dense_resource blobs: 64-byte aligned raw little-endian data
            # (the array's buffer is copied once, into the blob).
            module.set_blob(name, array)
        module.verify()
        return module
