"""The rules every call path applies to a graph's inputs (docs/python.md,
"Calling a traced module"): `Module.interpret`, a compiled module's call
(`traced.compile(m)(...)`) and, in C, `traced_<entry>_checked`.

- Inputs are numbered from 1, after `self`, and named by the traced
  forward's parameters: `input 2 ('scale')`.
- They bind like a Python call: positionally, or by those names; trailing
  inputs the trace saw as None may be left out.
- A tensor input must have the graph's dtype; `cast=True` converts it
  (torch's `.to`, numpy's `astype`). Its rank and every static dim must be
  the graph's; a dynamic dim (`?`) takes any size.
- torch tensors in give torch tensors out; otherwise numpy arrays (bfloat16
  outputs are torch.bfloat16 tensors either way, numpy having no bfloat16).

A graph input is an `InputSpec` of a kind: "tensor" (a ranked tensor type),
"number" (a Python number compiled code takes as a 0-d buffer: Python's
int-to-float conversions apply), "none" (the trace saw None: only None is
taken) or "other" (Python numbers and lists for the interpreter: passed as
they are). Each call path converts an
input by its spec's kind, so a kind is one more branch there.
"""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import torch

from .errors import InputError

#: numpy dtypes of the graph's element types by torch's names
#: (Node.dtype); bfloat16 travels as its raw bits in uint16.
NUMPY_DTYPES = {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16,
    "int32": np.int32, "int64": np.int64, "float16": np.float16,
    "bfloat16": np.uint16, "float32": np.float32, "float64": np.float64,
}


# The storage dtype of each quantized dtype.
QUANTIZED_STORAGE = {"quint8": "uint8", "qint8": "int8", "qint32": "int32"}


def qparams_of(x):
    """A torch quantized tensor's parameters, as a value's `qparams` gives
    them."""
    dtype = str(x.dtype).replace("torch.", "")
    if x.qscheme() == torch.per_tensor_affine:
        return {"dtype": dtype, "scale": x.q_scale(), "zero_point": x.q_zero_point()}
    return {"dtype": dtype, "scales": x.q_per_channel_scales().tolist(),
            "zero_points": x.q_per_channel_zero_points().tolist(),
            "axis": x.q_per_channel_axis()}


def quantized_storage(label, x, qparams, where):
    """The storage integers of a quantized torch tensor `x` for an input of
    quantization `qparams` (compiled code takes them): the dtype and the
    parameters must be the graph's."""
    if not isinstance(x, torch.Tensor) or not x.is_quantized:
        raise InputError(f"{label} takes a quantized tensor of dtype "
                         f"torch.{qparams['dtype']}, not {type(x).__name__}"
                         + (f" of dtype {x.dtype}" if isinstance(x, torch.Tensor) else ""))
    got = qparams_of(x)
    if got != qparams:
        raise InputError(f"{label} takes a quantized tensor of parameters {qparams}; "
                         f"{where} got {got}")
    if x.is_contiguous():
        return storage_view(x)
    return x.int_repr().contiguous().numpy()


_STORAGE = {torch.quint8: np.uint8, torch.qint8: np.int8, torch.qint32: np.int32}


def storage_view(x):
    """The storage integers of contiguous quantized tensor `x` as a numpy
    array over its memory: no copy, and no torch op (int_repr runs on
    torch's thread pool, whose workers then spin beside the compiled
    code's threads: docs/cpu.md, "Threads beside torch"). The array is
    valid while `x` lives."""
    import ctypes
    dtype = np.dtype(_STORAGE[x.dtype])
    if x.numel() == 0:
        return np.zeros(tuple(x.shape), dtype)
    memory = (ctypes.c_char * (x.numel() * dtype.itemsize)).from_address(x.data_ptr())
    return np.frombuffer(memory, dtype=dtype).reshape(tuple(x.shape))


def empty_quantized(shape, qparams):
    """An uninitialized torch quantized tensor of `shape` and `qparams`,
    for compiled code to write its storage integers into (storage_view)."""
    dtype = getattr(torch, qparams["dtype"])
    if "scale" in qparams:
        return torch._empty_affine_quantized(list(shape), scale=qparams["scale"],
                                             zero_point=qparams["zero_point"], dtype=dtype)
    return torch._empty_per_channel_affine_quantized(
        list(shape), scales=torch.tensor(qparams["scales"], dtype=torch.float64),
        zero_points=torch.tensor(qparams["zero_points"], dtype=torch.int64),
        axis=qparams["axis"], dtype=dtype)


def quantized_input(spec, x, where):
    """A quantized tensor input (torch's): its storage integers, their
    dtype, its shape and its quant dialect type, which the interpreter
    checks against the graph's (scale and zero point included)."""
    from ._emit import quantized_element_type
    if not isinstance(x, torch.Tensor) or not x.is_quantized:
        raise InputError(f"{spec.label} takes a quantized tensor of dtype "
                         f"torch.{spec.dtype}, not {type(x).__name__}"
                         + (f" of dtype {x.dtype}" if isinstance(x, torch.Tensor) else ""))
    if str(x.dtype) != "torch." + spec.dtype:
        raise InputError(f"{spec.label} takes a quantized tensor of dtype "
                         f"torch.{spec.dtype}, not {x.dtype}")
    check_shape(spec, tuple(x.shape), where)
    ints = x.int_repr().contiguous().numpy()
    return (ints.tobytes(), QUANTIZED_STORAGE[spec.dtype], list(ints.shape),
            quantized_element_type(x))


class InputSpec(NamedTuple):
    """One graph input after `self`. `position` counts from 1; `shape` has
    None for a dynamic dim; `dtype` is torch's name ("float32")."""
    position: int
    name: Optional[str]
    kind: str  # "tensor", "number" (a Python number), "none" or "other"
    shape: Optional[Tuple[Optional[int], ...]] = None
    dtype: Optional[str] = None

    @property
    def label(self) -> str:
        """`input 2 ('scale')`: how every message names the input."""
        return label(self.position, self.name)


def label(position: int, name: Optional[str]) -> str:
    """`input 2 ('scale')` (1-based, after self), or `input 2`."""
    return f"input {position} ('{name}')" if name else f"input {position}"


def shape_text(shape) -> str:
    """(3, None) as "(3, ?)"; "(4,)" for one dim."""
    dims = ["?" if d is None or d == -1 else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def specs_of_graph(graph) -> List[InputSpec]:
    """The InputSpecs of a traced Graph's inputs (after self)."""
    specs = []
    for i, node in enumerate(graph.inputs[1:]):
        type_text = str(node.type)
        if type_text == "!traced.none":
            specs.append(InputSpec(i + 1, node.name, "none"))
        elif node.shape is not None and node.dtype in QUANTIZED_STORAGE:
            specs.append(InputSpec(i + 1, node.name, "quantized",
                                   tuple(node.shape), node.dtype))
        elif node.shape is not None and node.dtype in NUMPY_DTYPES:
            specs.append(InputSpec(i + 1, node.name, "tensor",
                                   tuple(node.shape), node.dtype))
        else:
            specs.append(InputSpec(i + 1, node.name, "other"))
    return specs


def bind(specs: Sequence[InputSpec], args: Sequence[Any],
         kwargs: Dict[str, Any], where: str) -> List[Any]:
    """The inputs in graph order, from positional and keyword arguments, as
    a Python call binds them; trailing "none" inputs may be left out (and
    come back as None), as may "none" inputs between given ones."""
    count = len(specs)
    if not kwargs and len(args) == count:
        return list(args)
    names = [s.name for s in specs]

    def listing():
        return ", ".join(n or f"input {s.position}" for n, s in zip(names, specs))

    if len(args) > count:
        raise InputError(f"{where} takes {_inputs(count)} ({listing()}), "
                         f"got {len(args)}")
    slots: List[Any] = list(args) + [_MISSING] * (count - len(args))
    for key, value in kwargs.items():
        if key not in names:
            raise InputError(f"{where} has no input named '{key}' "
                             f"(its inputs: {listing()})")
        i = names.index(key)
        if slots[i] is not _MISSING:
            raise InputError(f"{specs[i].label} of {where} is given twice, "
                             f"by position and by name")
        slots[i] = value
    missing = [s for s, v in zip(specs, slots)
               if v is _MISSING and s.kind != "none"]
    if missing:
        if not kwargs:
            required = max(s.position for s in missing)
            raise InputError(f"{where} takes {_inputs(count)} ({listing()}), "
                             f"got {len(args)}" + (
                                 f"; the inputs after input {required} were "
                                 f"traced as None and may be left out"
                                 if required < count else ""))
        raise InputError(f"{missing[0].label} of {where} is missing")
    return [None if v is _MISSING else v for v in slots]


def _inputs(n: int) -> str:
    return f"{n} input" if n == 1 else f"{n} inputs"


class _Missing:
    def __repr__(self):
        return "<missing>"


_MISSING = _Missing()


def check_none(spec: InputSpec, x: Any, where: str) -> None:
    """A "none" input takes only None."""
    if x is not None:
        raise InputError(f"{spec.label} was traced as None; {where} takes "
                         f"only None there")


def is_torch(x: Any) -> bool:
    return isinstance(x, torch.Tensor)


def wants_torch(inputs: Sequence[Any]) -> bool:
    """Whether the outputs are torch tensors: when an input is one."""
    return any(isinstance(x, torch.Tensor) for x in inputs)


#: The numpy dtype of each of the graph's element types (NUMPY_DTYPES).
_NP_DTYPES = {k: np.dtype(v) for k, v in NUMPY_DTYPES.items()}


def tensor_array(spec: InputSpec, x: Any, cast: bool, where: str) -> np.ndarray:
    """A "tensor" input as a C-contiguous numpy array of the graph's dtype
    and a shape the graph takes (bfloat16: the raw bits in uint16).

    Takes torch tensors, numpy arrays and what np.asarray takes (Python
    numbers and lists: the dtype numpy gives them); for bfloat16 also uint16
    arrays of the raw bits. A dtype other than the graph's raises InputError
    unless `cast`."""
    want = spec.dtype
    if type(x) is np.ndarray and x.dtype == _NP_DTYPES[want] and \
            x.flags.c_contiguous:
        # (The common case, checked first: an array of the graph's dtype.)
        check_shape(spec, x.shape, where)
        return x
    if isinstance(x, torch.Tensor):
        t = x.detach() if x.requires_grad else x
        if t.layout != torch.strided:
            raise InputError(f"{spec.label} is a {t.layout} tensor; {where} "
                             f"takes a dense tensor there (pass x.to_dense())")
        if t.device.type == "meta":
            raise InputError(f"{spec.label} is a meta tensor, which holds no "
                             f"data; {where} takes a tensor with values there")
        # A lazily negated or conjugated view (x._neg_view(), x.conj())
        # reads as its values.
        t = t.resolve_neg().resolve_conj()
        got = str(t.dtype)[6:]  # "torch.float32"
        if got != want:
            if not cast:
                raise _dtype_error(spec, got, where)
            t = t.to(getattr(torch, want))
        t = t.cpu().contiguous()
        if want == "bfloat16":
            a = t.view(torch.int16).numpy().view(np.uint16)
        else:
            a = t.numpy()
    else:
        a = np.asarray(x)
        if not a.dtype.isnative:  # big-endian data: its values, in our order
            a = a.astype(a.dtype.newbyteorder("="))
        if a.dtype.kind in "OUSVMm":
            raise InputError(f"{spec.label} is a {type(x).__name__}; "
                             f"{where} takes a {want} tensor there")
        got = a.dtype.name
        if want == "bfloat16":
            if a.dtype != np.uint16:  # (uint16: bfloat16's raw bits)
                if not cast:
                    raise _dtype_error(spec, got, where, bits=True)
                a = (torch.from_numpy(np.ascontiguousarray(a)).to(torch.bfloat16)
                     .view(torch.int16).numpy().view(np.uint16))
        elif got != want:
            if not cast:
                raise _dtype_error(spec, got, where)
            a = a.astype(NUMPY_DTYPES[want])
    check_shape(spec, a.shape, where)
    # (np.ascontiguousarray would make a 0-d array 1-d.)
    return np.asarray(a, order="C")


# The Python types a Python-number input takes without `cast`, by the
# graph's dtype, as Python converts them (a bool is an int, an int a float).
_NUMBER_TYPES = {"float64": (bool, int, float), "int64": (bool, int),
                 "bool": (bool,)}


def number_array(spec: InputSpec, x: Any, cast: bool, where: str) -> np.ndarray:
    """A "number" input (a Python number the graph takes: an int64,
    float64 or bool 0-d buffer of compiled code) from a Python number, a
    numpy scalar or a one-element 0-d array or tensor. Python's own
    conversions apply (an int where a float is taken); others raise
    InputError unless `cast`."""
    want = spec.dtype
    value = x
    if isinstance(x, (torch.Tensor, np.ndarray, np.generic)):
        if tuple(x.shape) != ():
            raise InputError(f"{spec.label} has shape {tuple(x.shape)}; "
                             f"{where} takes a Python {_PY_NAMES[want]} there")
        value = x.item()
    if not isinstance(value, (bool, int, float)):
        raise InputError(f"{spec.label} is a {type(value).__name__}; {where} "
                         f"takes a Python {_PY_NAMES[want]} there")
    if not isinstance(value, _NUMBER_TYPES[want]) and not cast:
        raise InputError(f"{spec.label} is a {type(value).__name__}; {where} "
                         f"takes a Python {_PY_NAMES[want]} there (pass "
                         f"cast=True to convert it)")
    return np.asarray(value, dtype=NUMPY_DTYPES[want])


_PY_NAMES = {"float64": "float", "int64": "int", "bool": "bool"}


def _dtype_error(spec, got, where, bits=False):
    extra = (" or a uint16 array of its raw bits" if bits else "")
    return InputError(f"{spec.label} has dtype {got}; {where} takes "
                      f"{spec.dtype}{extra} there (pass cast=True to convert it)")


def check_shape(spec: InputSpec, shape, where: str) -> None:
    want = spec.shape
    if tuple(shape) == want:
        return
    if len(shape) != len(want) or any(
            w is not None and w != g for w, g in zip(want, shape)):
        raise InputError(f"{spec.label} has shape {shape_text(tuple(shape))}; "
                         f"{where} takes {shape_text(want)}")


def check_dim_names(specs: Sequence[InputSpec], shapes: Sequence[Tuple[int, ...]],
                    dim_names: Sequence[Sequence[Tuple[int, str]]]) -> Dict[str, int]:
    """The sizes of the named dynamic dims (`dim_names`: per tensor input,
    its (dim, name) pairs), checking that dims of one name agree."""
    sizes: Dict[str, Tuple[int, InputSpec]] = {}
    for spec, shape, slots in zip(specs, shapes, dim_names):
        for d, name in slots:
            n = shape[d]
            first = sizes.setdefault(name, (n, spec))
            if first[0] != n:
                raise InputError(
                    f"{spec.label} has size {n} in dim {d} ('{name}'), but "
                    f"{first[1].label} has {first[0]} there")
    return {name: n for name, (n, _) in sizes.items()}


def to_torch(value: Any) -> Any:
    """numpy arrays (in lists and tuples) as torch tensors; the rest as
    it is."""
    if isinstance(value, np.ndarray):
        if not value.flags.writeable:
            value = value.copy()
        return torch.from_numpy(value)
    if isinstance(value, list):
        return [to_torch(v) for v in value]
    if isinstance(value, tuple):
        return tuple(to_torch(v) for v in value)
    return value
