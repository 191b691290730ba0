"""The checked C entry point of compiled libraries (traced_abi.h) and the
guards in front of compiled code and the interpreter (docs/reliability.md).
"""
import ctypes

import numpy as np
import pytest
import torch

import traced


class TracedTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


TRACED_FLOAT32, TRACED_INT64 = 9, 6


def _tensor(a, dtype=TRACED_FLOAT32, shape=None, strides=None, data=True):
    shape = a.shape if shape is None else shape
    dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    st = None
    if strides is not None:
        st = (ctypes.c_int64 * max(len(strides), 1))(*strides)
    t = TracedTensor(a.ctypes.data if data else None, dtype, len(shape),
                     dims, st)
    t._keep = (dims, st)  # keep the arrays alive
    return t


@pytest.fixture(scope="module")
def mlp_library(tmp_path_factory):
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                 torch.nn.Linear(32, 4)).eval()
    x = torch.randn(8, 16)
    path = tmp_path_factory.mktemp("lib") / "libmlp.so"
    traced.save_library(traced.trace(module, x), path)
    lib = ctypes.CDLL(str(path))
    entry = lib.traced_forward_checked
    entry.argtypes = [ctypes.POINTER(TracedTensor), ctypes.c_int64,
                      ctypes.POINTER(TracedTensor), ctypes.c_int64,
                      ctypes.c_char_p, ctypes.c_int64]
    entry.restype = ctypes.c_int
    return module, x, entry


def _call(entry, ins, outs, n_in=None, n_out=None):
    err = ctypes.create_string_buffer(256)
    a = (TracedTensor * max(len(ins), 1))(*ins)
    b = (TracedTensor * max(len(outs), 1))(*outs)
    code = entry(a, len(ins) if n_in is None else n_in, b,
                 len(outs) if n_out is None else n_out, err, len(err))
    return code, err.value.decode()


def test_checked_entry_runs_good_input(mlp_library):
    module, x, entry = mlp_library
    inp = np.ascontiguousarray(x.numpy())
    out = np.zeros((8, 4), np.float32)
    code, msg = _call(entry, [_tensor(inp, strides=[16, 1])], [_tensor(out)])
    assert (code, msg) == (0, "")
    with torch.no_grad():
        np.testing.assert_allclose(out, module(x).numpy(), rtol=1e-4,
                                   atol=1e-5)


@pytest.mark.parametrize("case, code, message", [
    ("count", 1, "expected 1 input(s) and 1 output(s), got 2 and 1"),
    ("dtype", 2, "input 0: expected dtype code 9 (tensor<8x16xf32>), got 6"),
    ("rank", 3, "input 0: expected rank 2 (tensor<8x16xf32>), got 1"),
    ("shape", 4, "input 0: dim 1 is 15, expected 16 (tensor<8x16xf32>)"),
    ("out-shape", 4, "output 0: dim 0 is 9, expected 8 (tensor<8x4xf32>)"),
    ("strides", 5, "input 0: not contiguous: dim 1 has stride 2, expected 1"),
    ("null", 6, "input 0: data is NULL"),
])
def test_checked_entry_refuses_bad_input(mlp_library, case, code, message):
    _, x, entry = mlp_library
    inp = np.ascontiguousarray(x.numpy())
    out = np.full((8, 4), 7.0, np.float32)
    i, o, n_in = _tensor(inp), _tensor(out), None
    if case == "count":
        n_in = 2
    elif case == "dtype":
        i = _tensor(inp, dtype=TRACED_INT64)
    elif case == "rank":
        i = _tensor(inp, shape=[128])
    elif case == "shape":
        i = _tensor(inp, shape=[8, 15])
    elif case == "out-shape":
        o = _tensor(out, shape=[9, 4])
    elif case == "strides":
        i = _tensor(inp, strides=[32, 2])
    elif case == "null":
        i = _tensor(inp, data=False)
    got = _call(entry, [i, i], [o], n_in=n_in) if case == "count" else \
        _call(entry, [i], [o])
    assert got == (code, message)
    assert (out == 7.0).all()  # nothing was written


def test_checked_entry_without_error_buffer(mlp_library):
    _, x, entry = mlp_library
    out = np.zeros((8, 4), np.float32)
    a = (TracedTensor * 1)(_tensor(np.ascontiguousarray(x.numpy()),
                                   shape=[8, 15]))
    b = (TracedTensor * 1)(_tensor(out))
    assert entry(a, 1, b, 1, None, 0) == 4
