"""numpy arrays in and out of the C++ extension's (bytes, dtype name,
shape) triples: a leaf the other modules import (module.py, codegen.py)."""
from __future__ import annotations

import numpy as np

from ._traced import Error

_NUMPY_DTYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16,
    "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
    "uint8": np.uint8, "bool": np.bool_,
}


def _contiguous(x):
    """A C-contiguous numpy array of `x` in this machine's byte order (a
    big-endian `>f4` array's values, not its bytes); unlike
    np.ascontiguousarray, a 0-d array stays 0-d."""
    a = np.asarray(x, order="C")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="), order="C")
    return a


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
