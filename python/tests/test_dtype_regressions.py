"""Regression tests for the silent wrong answers of issue 14 (op library v2):
each runs through the reference interpreter and the compiled CPU path and
must equal torch eager exactly in dtype and shape, and in value."""
import numpy as np
import pytest
import torch

import traced
from models import Call



def _as_numpy(x):
    if isinstance(x, torch.Tensor):
        return x.detach().float().numpy() if x.dtype == torch.bfloat16 else x.detach().numpy()
    return x


def _check(fn, *inputs, path):
    with torch.no_grad():
        expected = fn(*inputs)
    tm = traced.trace(Call(fn), *inputs)
    if path == "interp":
        got = tm.interpret(*inputs)[0]
    else:
        got = traced.compile(tm)(*inputs)
    assert str(getattr(got, "dtype", "")).replace("torch.", "") == \
        str(expected.dtype).replace("torch.", "")
    got, want = _as_numpy(got), _as_numpy(expected)
    assert got.shape == want.shape
    if expected.dtype.is_floating_point:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


B = torch.tensor([True, True, False, True])
I = torch.tensor([1, 2, 3, 4])

CASES = {
    "bool input returned unchanged": (lambda x: x, [B]),
    "sum of bools is an int64 count": (lambda x: torch.sum(x), [B]),
    "bool + bool is logical or": (lambda x, y: x + y, [B, torch.tensor([True, False, False, False])]),
    "bool * bool is logical and": (lambda x, y: x * y, [B, torch.tensor([True, False, True, True])]),
    **{f"{fn} of int64 is float32": (getattr(torch, fn), [I])
       for fn in ["tanh", "sqrt", "sigmoid", "exp", "log", "rsqrt"]},
    "cat of float16 and int32": (lambda a, b: torch.cat([a, b]),
                                 [torch.tensor([1.5, 2.25], dtype=torch.float16),
                                  torch.tensor([1000, 3], dtype=torch.int32)]),
    "cat of int8 and uint8 is int16": (lambda a, b: torch.cat([a, b]),
                                       [torch.tensor([-3, 4], dtype=torch.int8),
                                        torch.tensor([200], dtype=torch.uint8)]),
    "int32 + 0-d int64 stays int32": (lambda a, b: a + b,
                                      [torch.tensor([1, 2], dtype=torch.int32), torch.tensor(3)]),
    "int32 + 0-d float64 is float64": (lambda a, b: a + b,
                                       [torch.tensor([1, 2], dtype=torch.int32),
                                        torch.tensor(0.5, dtype=torch.float64)]),
    "0-d input": (lambda a: a * 2, [torch.tensor(3.0)]),
    "0-d constant": (lambda a: a + torch.tensor(2.0), [torch.tensor([3.0, -1.0])]),
    "0-d int constant output": (lambda a: a.sum() + torch.tensor(5), [torch.tensor([1, 2])]),
    "clamp with a tensor min": (lambda a, lo: torch.clamp(a, min=lo),
                                [torch.randn(3, 4), torch.zeros(4)]),
    "sum with dtype=": (lambda a: torch.sum(a, dtype=torch.float64), [torch.randn(4)]),
    "reshape to traced sizes": (lambda a: a.reshape([a.shape[0], -1]), [torch.randn(2, 3, 4)]),
    "int / int is a true divide": (lambda a, b: a / b, [torch.tensor([7, -7]), torch.tensor([2, 2])]),
    "int // int rounds toward floor": (lambda a, b: a // b, [torch.tensor([7, -7]), torch.tensor([2, 2])]),
    "int % int takes the divisor's sign": (lambda a, b: a % b,
                                           [torch.tensor([7, -7, 7]), torch.tensor([-2, 2, 3])]),
    "comparison gives bool": (lambda a, b: a < b, [torch.randn(4), torch.randn(4)]),
    "uint8 arithmetic wraps": (lambda a: a + 10, [torch.tensor([250, 3], dtype=torch.uint8)]),
    "int8 input": (lambda a: a * 3, [torch.tensor([100, -2], dtype=torch.int8)]),
    "float16 input": (lambda a: a * 2, [torch.tensor([1.5, 2.0], dtype=torch.float16)]),
    "bfloat16 input": (lambda a: a + 1, [torch.tensor([1.5, 2.0], dtype=torch.bfloat16)]),
    "aten add.Tensor": (lambda a, b: torch.ops.aten.add.Tensor(a, b), [torch.randn(4), torch.randn(4)]),
    "empty tensor": (lambda a: a + 1, [torch.zeros(0, 3)]),
}

@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("path", ["interp", "cpu"])
def test_regression(name, path):
    fn, inputs = CASES[name]
    _check(fn, *inputs, path=path)


def test_aten_spellings_resolve():
    canonical = traced._traced.canonical_target
    assert canonical("torch.ops.aten.add.Tensor") == "torch.add"
    assert canonical("torch.ops.aten.add") == "torch.add"
    assert canonical("aten::mul.Scalar") == "torch.mul"
    assert canonical("aten::relu") == "torch.nn.functional.relu"
    assert canonical("torch.ops.aten.conv2d.default") == "torch.nn.functional.conv2d"
    assert canonical("torch.ops.aten.add.out") is None  # out variants are not entries


# Pointwise losses type their results each in its own way (LossTyping), and
# torch refuses some dtype pairs; found by the differential fuzzer
# (docs/reliability.md).
_F32 = torch.tensor([0.5, -1.5, 2.0, 0.0])
_F64 = torch.tensor([1.5, 0.25, -2.0, 0.0], dtype=torch.float64)
_INT = torch.tensor([1, 0, 2, 1])
_LOSS_PAIRS = {"f32,f64": (_F32, _F64), "f64,f32": (_F64, _F32),
               "int,f32": (_INT, _F32), "f32,int": (_F32, _INT),
               # A 0-d target gives way in kl_div and poisson_nll_loss
               # (torch.result_type), not in those that expand it first.
               "f32,0-d f64": (_F32, torch.tensor(0.75, dtype=torch.float64))}
_LOSSES = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "soft_margin_loss", "kl_div", "binary_cross_entropy_with_logits",
           "poisson_nll_loss"]


@pytest.mark.parametrize("path", ["interp", "cpu"])
@pytest.mark.parametrize("pair", sorted(_LOSS_PAIRS))
@pytest.mark.parametrize("loss", _LOSSES)
def test_loss_dtypes_follow_torch(loss, pair, path):
    fn = getattr(torch.nn.functional, loss)
    a, b = _LOSS_PAIRS[pair]
    try:
        with torch.no_grad():
            fn(a, b)
    except (RuntimeError, ValueError):
        # torch refuses the pair: so must the verifier (the tracer would
        # stop at torch's own error, so the call is written as IR).
        ta, tb = ("tensor<" + "4x" * t.dim() +
                  f"{'i64' if t is _INT else 'f32' if t is _F32 else 'f64'}>"
                  for t in (a, b))
        text = f"""traced.module root @M class "m.M" {{
  graph @forward(%self: !traced.module<@M>, %a: {ta}, %b: {tb}) -> tensor<f32> {{
    %0 = call_function "torch.nn.functional.{loss}"(%a, %b) : ({ta}, {tb}) -> tensor<f32>
    output %0 : tensor<f32>
  }}
}}"""
        with pytest.raises(traced.Error,
                           match=r"floating-point|integral|input's size"):
            traced.parse(text)
        return
    _check(fn, a, b, path=path)


@pytest.mark.parametrize("path", ["interp", "cpu"])
def test_kl_div_of_a_negative_target_is_nan(path):
    # xlogy(t, t) - t x: the logarithm of a negative target is NaN in torch.
    fn = lambda x, t: torch.nn.functional.kl_div(x, t, reduction="none")
    _check(fn, torch.tensor([0.5, 1.0, -1.0]), torch.tensor([-1.0, 0.0, 2.0]),
           path=path)
