"""Compiled graphs that used to crash the compiler or the compiled code:
0-d and empty tensor constants, zero-size tensors, and weights too big
for 32-bit addressing (the last only with TRACED_LARGE_TESTS=1: `make
check-large`)."""
import ctypes
import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import traced
from models import Call



def _check(fn, *inputs, vectorize=True):
    tm = traced.trace(Call(fn), *inputs)
    got = traced.compile(tm, vectorize=vectorize)(*[x.numpy() for x in inputs])
    with torch.no_grad():
        expected = fn(*inputs).numpy()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_zero_dim_constant_operand():
    # memref.global's lowering read the 0-d dense_resource as a splat and
    # aborted ("ElementsAttr does not provide iteration facilities").
    _check(lambda x: x + torch.tensor(2.0), torch.tensor([3.0]))


def test_zero_dim_constant_result():
    tm = traced.trace(Call(lambda x: torch.tensor(5)), torch.tensor([3.0]))
    got = traced.compile(tm)(np.array([3.0], np.float32))
    assert got.dtype == np.int64 and got.shape == () and got == 5


def test_single_element_weight():
    # A 1x1 linear weight is transposed at compile time into a new
    # one-element constant: dense, not a resource, too.
    _check(lambda x: F.linear(x, torch.tensor([[3.0]]), torch.tensor([0.5])),
           torch.randn(4, 1))


def test_empty_constant_result():
    # LLVM IR translation of an empty dense_resource divided by zero.
    tm = traced.trace(Call(lambda x: torch.arange(0, dtype=torch.float32)),
                      torch.tensor([3.0]))
    got = traced.compile(tm)(np.array([3.0], np.float32))
    assert got.dtype == np.float32 and got.shape == (0,)


ZERO_SIZE = {
    "add": (lambda x: x + 1, [torch.zeros(0, 3)]),
    "relu": (lambda x: F.relu(x), [torch.zeros(0, 3)]),
    "linear_no_rows": (lambda x: F.linear(x, torch.ones(5, 8)),
                       [torch.zeros(0, 8)]),
    # An empty contraction: the result is the zero fill.
    "matmul_k0": (lambda x, y: x @ y, [torch.zeros(4, 0), torch.zeros(0, 64)]),
    "bmm_m0": (lambda x, y: torch.bmm(x, y),
               [torch.zeros(2, 0, 4), torch.zeros(2, 4, 64)]),
    "sum_empty": (lambda x: x.sum(0), [torch.zeros(0, 3)]),
    "mean_empty": (lambda x: x.mean(1) * 0 + 1, [torch.zeros(3, 0)]),
    "softmax": (lambda x: F.softmax(x, -1), [torch.zeros(0, 3)]),
    "cat": (lambda x, y: torch.cat([x, y], 0),
            [torch.zeros(0, 3), torch.ones(2, 3)]),
}


@pytest.mark.parametrize("vectorize", [True, False])
@pytest.mark.parametrize("case", sorted(ZERO_SIZE))
def test_zero_size_tensors(case, vectorize):
    # Tiling divided by the trip count of the empty loops (SIGFPE).
    fn, inputs = ZERO_SIZE[case]
    _check(fn, *inputs, vectorize=vectorize)


large = pytest.mark.skipif(
    not os.environ.get("TRACED_LARGE_TESTS"),
    reason="needs ~2 GiB of memory and a minute: set TRACED_LARGE_TESTS=1 "
           "(make check-large)")


@large
def test_weights_above_256_mib(tmp_path):
    # 16384 x 4096 f32 = 256 MiB of weight (512 MiB with its compile-time
    # transpose). With the small code model the JIT placed the constants
    # more than 2 GiB from the code and the first load faulted.
    module = torch.nn.Linear(16384, 4096).eval()
    x = torch.randn(2, 16384)
    tm = traced.trace(module, x)
    with torch.no_grad():
        expected = module(x).numpy()
    got = traced.compile(tm)(x.numpy())
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    # Ahead of time: the object keeps big globals in .lrodata (medium code
    # model), addressed with 64 bits.
    lib = ctypes.CDLL(str(traced.save_library(tm, tmp_path / "libbig.so")))
    entry = lib.traced_forward
    entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
    entry.restype = None
    inp = np.ascontiguousarray(x.numpy())
    out = np.empty((2, 4096), np.float32)
    entry((ctypes.c_void_p * 1)(inp.ctypes.data),
          (ctypes.c_void_p * 1)(out.ctypes.data))
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
