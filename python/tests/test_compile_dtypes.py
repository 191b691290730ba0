"""Compiled code in every dtype torch 1.13 has on the CPU but complex and
quantized ones, against torch eager (not the interpreter): dtype and shape
compared exactly, values bit-exactly for bool, integers, float16 and
bfloat16 (f32/f64 to FMA-contraction tolerance)."""
import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import traced
from models import Call

BOOL, U8, I8, I16, I32, I64 = (torch.bool, torch.uint8, torch.int8,
                               torch.int16, torch.int32, torch.int64)
F16, BF16, F32, F64 = torch.float16, torch.bfloat16, torch.float32, torch.float64
ALL = [BOOL, U8, I8, I16, I32, I64, F16, BF16, F32, F64]
INTS = [U8, I8, I16, I32, I64]



def _rand(dtype, *shape, nonzero=False):
    """Values that overflow narrow types when combined."""
    if dtype == BOOL:
        return torch.randint(0, 2, shape).bool()
    if dtype.is_floating_point:
        return (torch.randn(shape) * 10).to(dtype)
    info = torch.iinfo(dtype)
    x = torch.randint(max(info.min, -(2**40)), min(info.max, 2**40) + 1,
                      shape, dtype=torch.int64).to(dtype)
    if nonzero:
        x = torch.where(x == 0, torch.ones_like(x), x)
    return x


def _as_numpy(t):
    """Torch's result in the form compiled code returns it."""
    return t if t.dtype == BF16 else t.numpy()


def _same(got, expected):
    if expected.dtype == BF16:
        assert isinstance(got, torch.Tensor) and got.dtype == BF16
        assert got.shape == expected.shape
        assert torch.equal(got.view(torch.int16), expected.view(torch.int16))
        return
    if isinstance(got, torch.Tensor):  # torch tensors in, torch tensors out
        got = got.numpy()
    assert isinstance(got, np.ndarray)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if got.dtype == np.float16:
        # Bit-exact: every op rounds to half once, as torch's kernels do.
        assert np.array_equal(got.view(np.uint16),
                              expected.view(np.uint16)), (got, expected)
    elif got.dtype.kind == "f":
        # f32/f64 chains may contract into FMAs (docs/cpu.md).
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    else:
        assert np.array_equal(got, expected), (got, expected)


def _check(fn, *inputs):
    tm = traced.trace(Call(fn), *inputs)
    with torch.no_grad():
        expected = fn(*inputs)
    for vectorize in (True, False):
        compiled = traced.compile(tm, vectorize=vectorize)
        _same(compiled(*inputs), _as_numpy(expected))


def _name(dtype):
    return str(dtype).replace("torch.", "")


@pytest.mark.parametrize("dtype", ALL, ids=_name)
def test_identity(dtype):
    _check(lambda x: x, _rand(dtype, 3, 5))


@pytest.mark.parametrize("dtype", ALL, ids=_name)
def test_zero_dim_input_and_output(dtype):
    _check(lambda x, y: x * y, _rand(dtype), _rand(dtype))


@pytest.mark.parametrize("dtype", ALL, ids=_name)
def test_empty(dtype):
    _check(lambda x, y: x + y, _rand(dtype, 0, 3), _rand(dtype, 3))


@pytest.mark.parametrize("dtype", ALL, ids=_name)
def test_add_mul_broadcast(dtype):
    # bool: + is or, * is and; integers wrap around.
    _check(lambda x, y: x * y + x, _rand(dtype, 4, 33), _rand(dtype, 33))


@pytest.mark.parametrize("dtype", [d for d in ALL if d != BOOL], ids=_name)
def test_sub_and_scalars(dtype):
    # 300 wraps into uint8/int8 as torch casts it.
    _check(lambda x, y: (x - y) * 3 + 300, _rand(dtype, 4, 33),
           _rand(dtype, 4, 1))


@pytest.mark.parametrize("dtype", INTS, ids=_name)
def test_integer_floor_divide(dtype):
    # Floor semantics: the result rounds down, the remainder takes the
    # divisor's sign.
    x = _rand(dtype, 6, 40)
    y = _rand(dtype, 40, nonzero=True)
    if dtype != U8:
        y[:3] = torch.tensor([-1, -3, 7], dtype=dtype)
    _check(lambda a, b: a // b, x, y)
    _check(lambda a, b: torch.div(a, b, rounding_mode="floor"), x, y)
    _check(lambda a, b: torch.div(a, b, rounding_mode="trunc"), x, y)


@pytest.mark.parametrize("dtype", [I8, I16, I32, I64], ids=_name)
def test_floor_divide_min_by_minus_one_wraps(dtype):
    # (Traced on other values: torch's own int32/int64 kernels trap here.)
    x = torch.tensor([torch.iinfo(dtype).min, 7, -7], dtype=dtype)
    y = torch.tensor([-1, -1, 2], dtype=dtype)
    ones = torch.ones(3, dtype=dtype), torch.ones(3, dtype=dtype)
    got = traced.compile(traced.trace(Call(lambda a, b: a // b), *ones))(x, y)
    assert got.dtype == x.dtype
    assert got.tolist() == [torch.iinfo(dtype).min, -7, -4]


def test_integer_division_by_zero_gives_zero():
    # torch raises; compiled code must not trap (docs/cpu.md).
    x = torch.tensor([5, -5, 0], dtype=I32)
    y = torch.tensor([0, 0, 0], dtype=I32)
    ones = torch.ones(3, dtype=I32), torch.ones(3, dtype=I32)
    got = traced.compile(traced.trace(Call(lambda a, b: a // b), *ones))(x, y)
    assert got.tolist() == [0, 0, 0]


@pytest.mark.parametrize("dtype", [BOOL] + INTS, ids=_name)
def test_true_divide_of_integers_is_float32(dtype):
    _check(lambda a, b: a / b, _rand(dtype, 3, 17, nonzero=True),
           _rand(dtype, 17, nonzero=True))


@pytest.mark.parametrize("dtypes", [(U8, I32), (BOOL, F16),
                                    (U8, F32), (I16, F64), (BOOL, I64),
                                    (F16, F32), (BF16, F32), (I8, BF16)],
                         ids=lambda d: f"{_name(d[0])}_{_name(d[1])}")
def test_promotion(dtypes):
    # uint8 widens unsigned (200 stays 200), bool as 0/1.
    a, b = dtypes
    _check(lambda x, y: x * y + y, _rand(a, 3, 20), _rand(b, 20))


@pytest.mark.parametrize("dtype", ALL, ids=_name)
def test_sum(dtype):
    x = _rand(dtype, 5, 40)
    if dtype.is_floating_point:  # exact: small integers in floats
        x = torch.randint(-8, 8, (5, 40)).to(dtype)
    _check(lambda t: t.sum(), x)
    _check(lambda t: t.sum(1, keepdim=True), x)


@pytest.mark.parametrize("dtype", [F16, BF16, F32, F64], ids=_name)
def test_mean(dtype):
    _check(lambda t: t.mean(1), _rand(dtype, 3, 40))


@pytest.mark.parametrize("dtype", [F16, BF16], ids=_name)
def test_half_elementwise(dtype):
    # Each op rounds once to the half type, as torch's kernels do; fused
    # chains keep the roundings.
    _check(lambda x, y: (x * y + 1.5) / (y - x * 0.25), _rand(dtype, 4, 33),
           _rand(dtype, 33))
    _check(lambda x: -x.abs() * 3, _rand(dtype, 4, 33))


@pytest.mark.parametrize("dtype", [U8, I8], ids=_name)
def test_unsigned_and_signed_bytes(dtype):
    _check(lambda x: torch.clamp(x, 10, 100), _rand(dtype, 50))
    _check(lambda x: x.abs(), _rand(dtype, 50))
    _check(lambda x: -x, _rand(dtype, 50))


@pytest.mark.parametrize("dtype", ALL, ids=_name)
def test_shape_ops(dtype):
    _check(lambda x, y: torch.cat([x.permute(1, 0), y], 0).reshape(-1),
           _rand(dtype, 3, 4), _rand(dtype, 2, 3))


def test_bfloat16_takes_raw_bits_and_floats():
    x = _rand(BF16, 3, 5)
    c = traced.compile(traced.trace(Call(lambda t: t * 2), x))
    expected = x * 2
    bits = x.view(torch.int16).numpy().view(np.uint16)
    _same(c(bits), expected)
    # Floating-point values round like torch's .to(), when asked to.
    with pytest.raises(traced.InputError, match="has dtype float32.*cast=True"):
        c(x.float().numpy())
    _same(c(x.float().numpy(), cast=True), expected)


def test_bool_input_is_one_byte_per_element():
    x = np.array([[True, False, True]] * 40)
    c = traced.compile(traced.trace(Call(lambda t: t + t), torch.from_numpy(x)))
    got = c(x)
    assert got.dtype == np.bool_ and got.tolist() == x.tolist()


@pytest.mark.parametrize("dtype", [I32, BF16], ids=["linear_i32", "linear_bf16"])
def test_linear_of_other_dtypes_compiles(dtype):
    # The linear lowering takes float32 and float64; other dtypes decompose
    # into matmul and add (integers wrap as torch's do; bfloat16 computes in
    # float32 and rounds, within the bf16 tolerance of torch's gemm).
    x = _rand(dtype, 4, 4)
    b = _rand(dtype, 4)
    fn = lambda x, b: F.linear(x, x, b)
    got = traced.compile(traced.trace(Call(fn), x, b))(x, b)
    want = fn(x, b)
    if dtype == BF16:
        np.testing.assert_allclose(torch.as_tensor(got).float().numpy(),
                                   want.float().numpy(), rtol=2e-2, atol=2e-2)
    else:
        assert got.dtype == torch.int32 and torch.equal(got, want)


@pytest.mark.parametrize("fn", [lambda x: x @ x, lambda x: torch.bmm(x[None], x[None])],
                         ids=["matmul", "bmm"])
def test_bf16_matrix_products_compute_in_f32(fn):
    # bfloat16 operands widened to float32, accumulated in float32 and
    # rounded once per element (torch 1.13's own bf16 gemm rounds more
    # often: it is within the conformance suite's bf16 tolerance of this).
    x = _rand(BF16, 8, 8)
    got = traced.compile(traced.trace(Call(fn), x))(x)
    got = got[0] if isinstance(got, (list, tuple)) else got
    want = fn(x.float()).bfloat16()
    assert got.dtype == torch.bfloat16 and got.shape == want.shape
    # (One bf16 ulp: float32 sums in another order may round the other way.)
    torch.testing.assert_close(got.float(), want.float(), rtol=2 ** -7, atol=0)


@pytest.mark.parametrize("fn, dtype", [
    (lambda x: x @ x, I32),
    (lambda x: x @ x, U8),
    (lambda x: torch.bmm(x, x), I64),
], ids=["matmul_i32", "matmul_u8", "bmm_i64"])
def test_integer_contractions_wrap(fn, dtype):
    # Integer products wrap as torch's do.
    _check(fn, _rand(dtype, 3, 4, 4))


def test_shared_library_takes_bool_and_uint8(tmp_path):
    import ctypes
    x = torch.tensor([True, False, True, False])
    y = torch.tensor([200, 3, 255, 0], dtype=U8)
    tm = traced.trace(Call(lambda a, b: a * b + b), x, y)
    lib = ctypes.CDLL(str(traced.save_library(tm, tmp_path / "libbytes.so")))
    signature = ctypes.cast(lib.traced_forward_signature, ctypes.c_char_p)
    assert (signature.value.decode()
            == "(tensor<4xi1>, tensor<4xui8>) -> tensor<4xui8>")
    entry = lib.traced_forward
    entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
    entry.restype = None
    a, b = x.numpy(), y.numpy()
    out = np.empty(4, np.uint8)
    entry((ctypes.c_void_p * 2)(a.ctypes.data, b.ctypes.data),
          (ctypes.c_void_p * 1)(out.ctypes.data))
    assert out.tolist() == (x * y + y).tolist() == [144, 3, 254, 0]


class _Buffers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.tensor([True, False, True, True]))
        self.register_buffer("u", torch.tensor([250, 1, 2, 3], dtype=U8))
        self.register_buffer("h", torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=F16))
        self.register_buffer("b", torch.tensor([1.5, -2.25, 3, 7], dtype=BF16))

    def forward(self, x, y):
        return (x * self.mask, y + self.u, self.h * 3, self.mask + self.mask,
                self.b * 2)


def test_constants_in_every_dtype():
    # Parameters and buffers become constants in their storage types (bool
    # blobs read as bytes, uint8 as i8).
    module = _Buffers()
    x = torch.tensor([True, True, False, False])
    y = torch.tensor([10, 10, 10, 10], dtype=U8)
    got = traced.compile(traced.trace(module, x, y))(x, y)
    for g, e in zip(got, module(x, y)):
        _same(g, _as_numpy(e))


def test_half_attention_without_weights_compiles():
    # nn.TransformerEncoderLayer calls attention with need_weights=False: a
    # (output, None) pair. The bfloat16 call is computed in float32 and its
    # elements rounded back; the None element stays a None (it used to be
    # a getitem the lowering refused: "the attention weights are None").
    # (torch 1.13 has no float16 attention on the CPU to trace.)
    dtype = BF16
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(16, 2, batch_first=True).eval().to(dtype)
    x = torch.randn(2, 5, 16).to(dtype)
    fn = lambda t: mha(t, t, t, need_weights=False)[0]
    got = traced.compile(traced.trace(Call(fn), x))(x)
    got = torch.as_tensor(got) if not isinstance(got, torch.Tensor) else got
    ref = copy.deepcopy(mha).float()
    with torch.no_grad():
        want = ref(x.float(), x.float(), x.float(), need_weights=False)[0]
    assert got.dtype == dtype and got.shape == want.shape
    # float32 inside, rounded once: within two ulps of the float32 result.
    torch.testing.assert_close(got.float(), want, rtol=2 ** -6, atol=1e-3)
