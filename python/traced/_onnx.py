"""ONNX in and out (docs/onnx.md): `Module.to_onnx` and `traced.from_onnx`.

The translations are the C++ core's (`traced-translate --export-onnx` and
`--import-onnx` run the same code); this module handles files and the
constant inputs, which it encodes as ONNX TensorProtos itself so that the
`onnx` Python package is not needed at run time.
"""
import os
import struct

import numpy as np

from . import _traced
from ._traced import Error

# numpy dtype -> TensorProto.DataType
_DATA_TYPES = {
    np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3,
    np.dtype(np.int16): 5, np.dtype(np.int32): 6, np.dtype(np.int64): 7,
    np.dtype(np.bool_): 9, np.dtype(np.float16): 10, np.dtype(np.float64): 11,
}


def _varint(v: int) -> bytes:
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def tensor_proto(value, name: str = "") -> bytes:
    """A TensorProto's wire bytes for an array-like (raw_data, little
    endian); bytes are taken as an already serialized TensorProto."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    a = np.ascontiguousarray(np.asarray(value))
    if a.dtype not in _DATA_TYPES:
        raise Error(f"constant input '{name}': dtype {a.dtype} has no ONNX "
                    f"tensor type TracedIR reads")
    out = b""
    if a.ndim:
        out += _field(1, b"".join(_varint(d) for d in a.shape))
    out += _varint(2 << 3) + _varint(_DATA_TYPES[a.dtype])
    if name:
        out += _field(8, name.encode())
    out += _field(9, a.astype(a.dtype.newbyteorder("<")).tobytes())
    return out


def to_onnx(state, path, opset: int = 17, external_data=None,
            locations: bool = True) -> str:
    path = os.fspath(path)
    if not isinstance(opset, int) or isinstance(opset, bool):
        raise Error(f"opset must be an int, not {opset!r}")
    directory = os.path.dirname(os.path.abspath(path))
    auto = external_data is None
    if auto or external_data is False:
        external_data = ""
    elif external_data is True:
        external_data = os.path.basename(path) + ".data"
    elif not isinstance(external_data, str) or os.path.isabs(external_data) \
            or ".." in external_data.split(os.sep):
        raise Error(f"external_data must be a file name relative to the "
                    f"model's directory, True, False or None, not "
                    f"{external_data!r}")
    try:
        data = state.to_onnx(opset, external_data,
                             directory if external_data else "", locations)
    except Error as e:
        # Weights past protobuf's 2 GiB: to a side file, when not told.
        if not auto or "2 GiB" not in str(e):
            raise
        external_data = os.path.basename(path) + ".data"
        data = state.to_onnx(opset, external_data, directory, locations)
    with open(path, "wb") as f:
        f.write(data)
    return path


def from_onnx(source, constant_inputs=None):
    """The imported module's state; `source`: a path, or the model's
    bytes."""
    if isinstance(source, (bytes, bytearray)):
        data, name, base = bytes(source), "<bytes>", os.getcwd()
    else:
        name = os.fspath(source)
        with open(name, "rb") as f:
            data = f.read()
        base = os.path.dirname(os.path.abspath(name))
    constants = {k: tensor_proto(v, k)
                 for k, v in (constant_inputs or {}).items()}
    return _traced.import_onnx(data, name, base, constants)
