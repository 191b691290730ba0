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
    ("dtype", 2, "input 1 ('input_1'): expected dtype code 9 (tensor<8x16xf32>), got 6"),
    ("rank", 3, "input 1 ('input_1'): expected rank 2 (tensor<8x16xf32>), got 1"),
    ("shape", 4, "input 1 ('input_1'): dim 1 is 15, expected 16 (tensor<8x16xf32>)"),
    ("out-shape", 4, "output 1: dim 0 is 9, expected 8 (tensor<8x4xf32>)"),
    ("strides", 5, "input 1 ('input_1'): not contiguous: dim 1 has stride 2, expected 1"),
    ("null", 6, "input 1 ('input_1'): data is NULL"),
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


# -- run-time checks: what torch raises on, which only the data decides ----


class _Gathers(torch.nn.Module):
    def forward(self, x, i):
        return x[i] + torch.gather(x, 0, i.abs()) + torch.index_select(x, 0, i.abs())


class _Masked(torch.nn.Module):
    def forward(self, x, m):
        return x[m] * 2


class _Nonzero(torch.nn.Module):
    def forward(self, x):
        return torch.nonzero(x).float()


class _MaskedSelect(torch.nn.Module):
    def forward(self, x, m):
        return torch.masked_select(x, m) * 2


class _Bincount(torch.nn.Module):
    def forward(self, x, w):
        return torch.bincount(x, w, minlength=3)


class _Repeats(torch.nn.Module):
    def forward(self, x, r):
        return torch.repeat_interleave(x, r, dim=0)


class _Asserts(torch.nn.Module):
    def forward(self, x):
        torch._assert((x > 0).all(), "x must be positive")
        return x + 1


class _Branches(torch.nn.Module):
    """Python control flow on data: a concrete trace guards the branch."""

    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


class _IndexPut(torch.nn.Module):
    def forward(self, x, i):
        return x.index_put((i,), torch.ones(2, 2))


class _IndexFill(torch.nn.Module):
    def forward(self, x, i):
        return x.index_fill(0, i, 7.0)


class _OneHot(torch.nn.Module):
    def forward(self, i):
        return torch.nn.functional.one_hot(i, 5).float()


class _NllLoss(torch.nn.Module):
    def forward(self, x, t):
        return torch.nn.functional.nll_loss(x, t, ignore_index=-100)


class _Embedding(torch.nn.Module):
    def forward(self, w, i):
        return torch.nn.functional.embedding(i, w)


def _run_time_cases():
    x = torch.arange(5, dtype=torch.float32)
    mask = torch.tensor([True, False, True, False, False])
    rows = torch.arange(6, dtype=torch.float32).reshape(3, 2)
    return [
        # (name, module, traced inputs, bad inputs, message)
        ("index", _Gathers(), (x, torch.tensor([1, -2])), (x, torch.tensor([1, 5])),
         "'operator.getitem': an index is out of bounds for dimension 0 with size 5"),
        ("negative gather", _Gathers(), (x, torch.tensor([1, -2])), (x, torch.tensor([1, -6])),
         "an index is out of bounds for dimension 0 with size 5"),
        ("mask count", _Masked(), (x, mask), (x, torch.tensor([True] * 5)),
         "a boolean mask selects another number of elements than the 2 of the trace"),
        ("repeat total", _Repeats(), (rows, torch.tensor([1, 0, 2])),
         (rows, torch.tensor([1, 1, 2])),
         "the repeats add up to another length than the 3 of the trace"),
        ("repeat negative", _Repeats(), (rows, torch.tensor([1, 0, 2])),
         (rows, torch.tensor([2, -1, 2])), "repeats can not be negative"),
        ("assert", _Asserts(), (x + 1,), (x,), "assertion failed: x must be positive"),
        ("branch guard", _Branches(), (x,), (-x,),
         "this input takes a branch the trace did not see"),
        # Indices torch refuses: compiled code used to drop them, or wrap a
        # negative one onto another row.
        ("index_put high", _IndexPut(), (rows, torch.tensor([0, 1])),
         (rows, torch.tensor([0, 9])),
         "an index is out of bounds for dimension 0 with size 3"),
        ("index_put low", _IndexPut(), (rows, torch.tensor([0, 1])),
         (rows, torch.tensor([0, -9])),
         "an index is out of bounds for dimension 0 with size 3"),
        ("index_fill", _IndexFill(), (rows, torch.tensor([0, -1])),
         (rows, torch.tensor([0, 3])),
         "an index is out of bounds for dimension 0 with size 3"),
        ("one_hot high", _OneHot(), (torch.tensor([0, 4]),), (torch.tensor([0, 5]),),
         "Class values must be smaller than num_classes."),
        ("one_hot negative", _OneHot(), (torch.tensor([0, 4]),), (torch.tensor([0, -1]),),
         "Class values must be non-negative."),
        ("nll_loss", _NllLoss(), (torch.ones(3, 5), torch.tensor([0, -100, 4])),
         (torch.ones(3, 5), torch.tensor([0, 1, -3])), "Target is out of bounds."),
        ("embedding negative", _Embedding(), (rows, torch.tensor([0, 2])),
         (rows, torch.tensor([0, -1])), "index out of range in self"),
        ("nonzero count", _Nonzero(), (x,), (x + 1,),
         "the input has another number of nonzero elements than the 4 of the trace"),
        ("masked_select count", _MaskedSelect(), (x, x > 0), (x, x >= 0),
         "the input has another number of nonzero elements than the"),
        ("masked_select uint8 mask", _MaskedSelect(), (x, (x > 0).to(torch.uint8)),
         (x, (x > 0).to(torch.uint8) * 2), "Mask tensor can take 0 and 1 values only"),
        ("bincount bins", _Bincount(), (torch.tensor([4, 1, 4]), x[:3]),
         (torch.tensor([5, 1, 4]), x[:3]),
         "the input needs another number of bins than the 5 of the trace"),
        ("bincount minlength", _Bincount(), (torch.tensor([4, 1, 4]), x[:3]),
         (torch.tensor([1, 1, 2]), x[:3]),
         "the input needs another number of bins than the 5 of the trace"),
        ("bincount negative", _Bincount(), (torch.tensor([4, 1, 4]), x[:3]),
         (torch.tensor([4, -1, 4]), x[:3]),
         "bincount only supports 1-d non-negative integral inputs."),
    ]


@pytest.mark.parametrize("case", [c[0] for c in _run_time_cases()])
def test_run_time_checks(case, tmp_path):
    """Compiled code reports what the data decides and torch raises on (an
    index out of bounds, a mask or repeats giving another shape than the
    trace's, a failed torch._assert) as traced.Error with the user's source
    line, as the interpreter does, and the library's checked entry point as
    TRACED_ERROR_CHECK (7) with the same message; good inputs still run."""
    name, module, good, bad, message = next(c for c in _run_time_cases() if c[0] == case)
    tm = traced.trace(module, *good)
    compiled = traced.compile(tm)
    with torch.no_grad():
        expected = module(*good)
    np.testing.assert_allclose(compiled(*good), expected.numpy(), rtol=1e-6)
    with pytest.raises(traced.Error) as raised:
        compiled(*bad)
    assert message in str(raised.value)
    assert "test_guards.py:" in str(raised.value)
    with pytest.raises(traced.Error):
        tm.interpret(*bad)
    # The same through the shared library's checked entry point.
    path = tmp_path / "lib.so"
    traced.save_library(tm, path)
    lib = ctypes.CDLL(str(path))
    entry = lib.traced_forward_checked
    entry.argtypes = [ctypes.POINTER(TracedTensor), ctypes.c_int64,
                      ctypes.POINTER(TracedTensor), ctypes.c_int64,
                      ctypes.c_char_p, ctypes.c_int64]
    entry.restype = ctypes.c_int
    codes = {torch.float32: TRACED_FLOAT32, torch.int64: TRACED_INT64, torch.bool: 1,
             torch.uint8: 2}  # (traced_abi.h)
    arrays = [np.ascontiguousarray(t.numpy()) for t in bad]
    ins = [_tensor(a, dtype=codes[t.dtype]) for a, t in zip(arrays, bad)]
    out = np.zeros(tuple(expected.shape), np.float32)
    code, msg = _call(entry, ins, [_tensor(out)])
    assert code == 7 and message in msg, (code, msg)
    unchecked = lib.traced_forward
    unchecked.restype = ctypes.c_int
    pointers = (ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])
    outs = (ctypes.c_void_p * 1)(out.ctypes.data)
    assert unchecked(pointers, outs) > 0
    good_arrays = [np.ascontiguousarray(t.numpy()) for t in good]
    pointers = (ctypes.c_void_p * len(good_arrays))(*[a.ctypes.data for a in good_arrays])
    assert unchecked(pointers, outs) == 0


def test_checks_false_erases_run_time_checks_and_guards(tmp_path):
    """traced.compile(checks=False) erases the run-time checks and guards
    (for deployment); the default keeps them, and the two compile to
    different cache entries."""
    class Branch(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x * 2
            return x - 1
    m = traced.trace(Branch(), torch.ones(3), mode="concrete")
    checked = traced.compile(m, cache=str(tmp_path))
    unchecked = traced.compile(m, cache=str(tmp_path), checks=False)
    assert not unchecked.from_cache
    minus = -np.ones(3, np.float32)
    with pytest.raises(traced.Error, match="branch the trace did not see"):
        checked(minus)
    # Without the guard the traced branch runs whatever the input.
    np.testing.assert_array_equal(unchecked(minus), minus * 2)
    np.testing.assert_array_equal(unchecked(np.ones(3, np.float32)),
                                  np.full(3, 2, np.float32))
