"""The tracers and plain Python functions, mutation and source lines:
functions registered with torch.fx.wrap are traced through, the user's
leaf_functions stay opaque, `x[i] = v` and in-place calls are values in
SSA, unknown targets are reported at the user's line, and every expr
carries that line as its location."""
import warnings

import numpy as np
import pytest
import torch
import torch.fx
import torch.nn.functional as F

import traced
from models import Fn1

MODES = ["symbolic", "concrete"]


def _helper(x):
    # A plain helper registered with torch.fx.wrap, as torchvision's swin
    # registers _get_relative_position_bias.
    return torch.relu(x) * 2


torch.fx.wrap("_helper")


def _opaque(x):
    return x.flip(0)


class UsesHelpers(torch.nn.Module):
    def forward(self, x):
        return _helper(x) + _opaque(x)


class Assigns(torch.nn.Module):
    def forward(self, x, i):
        y = x * 1
        before = y.sum(0)           # read before the assignments
        y[0] = 5.0
        y[:, 1] = x[:, 0]
        y[i] = torch.tensor(-1.0)   # torch calls no __torch_function__ here
        return y, before


class InPlace(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.act = torch.nn.ReLU(inplace=True)

    def forward(self, x):
        y = x - 1
        z = y                       # an alias sees the mutation, as in torch
        y.add_(3)
        F.relu(y, inplace=True)
        w = self.act(y * -1)
        return z * 2, w


class Unknown(torch.nn.Module):
    def forward(self, x):
        return torch.poisson(x.abs())  # line recorded below


def _numbers(x):
    return [np.asarray(v) for v in x]


def _torch(model, *inputs):
    with torch.no_grad():
        out = model(*inputs)
    return [t.numpy() for t in (out if isinstance(out, tuple) else (out,))]


@pytest.mark.parametrize("mode", MODES)
def test_unknown_torch_function_by_its_aten_op(mode):
    """torch.fliplr, flipud and split_with_sizes have no entry of their own;
    their ATen ops are entries with a parameter fixed (torch.flip with
    dims=[1]; torch.split), so the tracers record those overloads."""
    x = torch.randn(3, 4)
    for fn, aten in ((torch.fliplr, "fliplr"), (torch.flipud, "flipud"),
                     (lambda t: torch.split_with_sizes(t, [1, 3], 1),
                      "split_with_sizes")):
        tm = traced.trace(Fn1(fn), x, mode=mode)
        assert f'"torch.ops.aten.{aten}.default"' in str(tm)
        want = _torch(Fn1(fn), x)
        np.testing.assert_array_equal(np.concatenate([np.ravel(v) for v in _numbers(
            tm.interpret(x.numpy()))]), np.concatenate([np.ravel(v) for v in want]))


@pytest.mark.parametrize("mode", MODES)
def test_fx_wrapped_helpers_are_traced_through(mode):
    x = torch.randn(3, 4)
    tm = traced.trace(UsesHelpers(), x, mode=mode)
    text = str(tm)
    assert "_helper" not in text and "_opaque" not in text
    assert '"torch.relu"' in text
    np.testing.assert_allclose(tm.interpret(x)[0], _torch(UsesHelpers(), x)[0])


@pytest.mark.parametrize("mode", MODES)
def test_leaf_functions_stay_opaque(mode):
    x = torch.randn(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", traced.UnknownTargetWarning)
        tm = traced.trace(UsesHelpers(), x, mode=mode, leaf_functions=[_opaque])
    text = str(tm)
    assert f'call_function "{__name__}._opaque"' in text
    assert "_helper" not in text
    with pytest.raises(traced.Error, match="_opaque"):
        tm.interpret(x)


def test_leaf_functions_must_be_functions():
    with pytest.raises(traced.Error, match="leaf_functions"):
        traced.trace(UsesHelpers(), torch.randn(2), leaf_functions=["_opaque"])


# torch 1.13's fx Proxy has no item assignment: "auto" falls back to the
# concrete tracer.
@pytest.mark.parametrize("mode", ["auto", "concrete"])
def test_setitem_is_a_value(mode):
    x, i = torch.randn(4, 3), torch.tensor([3, 1])
    tm = traced.trace(Assigns(), x, i, mode=mode)
    assert "__setitem__" in str(tm) or "operator.setitem" in str(tm)
    for got, want in zip(tm.interpret(x, i), _torch(Assigns(), x, i)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_in_place_calls_rebind_their_input(mode):
    x = torch.randn(3, 4)
    tm = traced.trace(InPlace(), x, mode=mode)
    for got, want in zip(tm.interpret(x), _torch(InPlace(), x)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_unknown_target_is_reported_at_the_users_line(mode):
    line = Unknown.forward.__code__.co_firstlineno + 1
    with pytest.warns(traced.UnknownTargetWarning,
                      match="unknown target 'torch.poisson'") as seen:
        tm = traced.trace(Unknown(), torch.randn(3), mode=mode)
    assert [(w.filename, w.lineno) for w in seen] == [(__file__, line)]
    # The interpreter's refusal points at the same line.
    with pytest.raises(traced.Error, match=rf"test_trace_functions.py:{line}:\d+: error"):
        tm.interpret(torch.randn(3))


def test_symbolic_fallback_reports_once():
    class Branches(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:  # fx cannot trace this: concrete tracing
                return torch.poisson(x)
            return x

    with pytest.warns(traced.UnknownTargetWarning) as seen:
        traced.trace(Branches(), torch.ones(3))
    assert len([w for w in seen if w.category is traced.UnknownTargetWarning]) == 1


@pytest.mark.parametrize("mode", MODES)
def test_locations_name_the_file_line_and_module_path(mode, tmp_path):
    class Block(torch.nn.Module):
        def forward(self, x):
            return torch.sigmoid(x)

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(Block())

        def forward(self, x):
            return self.body(x) + 1

    tm = traced.trace(Net(), torch.randn(2), mode=mode)
    plain = tm.to_string()
    assert "loc(" not in plain and str(tm) == plain
    text = tm.to_string(debuginfo=True)
    line = Block.forward.__code__.co_firstlineno + 1
    # (Printed with location aliases: `#loc3 = loc("body.0"(#loc2))`.)
    assert f'"{__file__}":{line}:' in text and 'loc("body.0"(' in text
    # Bytecode keeps them, and so do JSON traces.
    again = traced.parse(tm.to_bytecode())
    assert f'"{__file__}":{line}:' in again.to_string(debuginfo=True)
    path = tmp_path / "net.json"
    tm.save(path)
    from_json = traced.load(path).to_string(debuginfo=True)
    assert f'"{__file__}":{line}:' in from_json and 'loc("body.0"(' in from_json


class _Features(torch.nn.Module):
    def forward(self, x):
        return {"low": x * 2, "out": x.relu()}


class _Head(torch.nn.Module):
    def forward(self, features):
        return features["out"] - features["low"]


class DictModel(torch.nn.Module):
    """torchvision's segmentation models: a backbone returning a dict, a
    head taking it, a dict result."""

    def __init__(self):
        super().__init__()
        self.backbone = _Features()
        self.head = _Head()

    def forward(self, x):
        size = x.shape[-2:]
        features = self.backbone(x)
        return {"out": self.head(features).reshape(size), "aux": features["low"]}


@pytest.mark.parametrize("mode", MODES)
def test_dicts_are_tuples_of_their_values(mode):
    x = torch.randn(1, 2, 3)
    tm = traced.trace(DictModel(), x, mode=mode)
    with torch.no_grad():
        want = DictModel()(x)
    got = tm.interpret(x)
    assert len(got) == 2
    np.testing.assert_array_equal(got[0], want["out"].numpy())
    np.testing.assert_array_equal(got[1], want["aux"].numpy())


class _NumbersOfNumbers(torch.nn.Module):
    """torch-mlir's CeilFloatModule: an ATen op on Python numbers only."""

    def forward(self, a, b):
        return int(torch.ops.aten.ceil(float(a) - float(b))), \
            float(torch.ops.aten.sqrt(int(a)))


def test_calls_on_numbers_alone_are_specialized():
    a, b = torch.tensor(7.5, dtype=torch.float64), torch.tensor(1.25, dtype=torch.float64)
    tm = traced.trace(_NumbersOfNumbers(), a, b)
    text = str(tm)
    # Their inputs are this run's values, so their results are constants,
    # not calls of the tensor entries torch.ceil and torch.sqrt; guards check
    # that the tensors read as numbers hold those values on every call.
    assert "torch.ceil" not in text and "torch.sqrt" not in text
    assert text.count('"torch._assert"') == 3  # float(a), float(b), int(a)
    assert tm.interpret(a, b) == [7, 7 ** 0.5]
    with pytest.raises(traced.InterpretError, match="read as a Python number"):
        tm.interpret(a + 1, b)


class _ScalarsFromTensors(torch.nn.Module):
    def forward(self, x, y):
        n = torch.ops.aten.ScalarImplicit(x)
        return torch.ops.aten.Float(n), torch.ops.aten.Int(y), \
            torch.ops.prim.max(y.size(0), y.size(1))


def test_python_number_entries_are_recorded_and_compiled():
    x, y = torch.tensor(3), torch.tensor([[-2.75]])
    tm = traced.trace(_ScalarsFromTensors(), x, y)
    text = str(tm)
    # (As the overloads torch dispatches to, where the library has them.)
    for target in ("torch.ops.aten.ScalarImplicit.default", "torch.ops.aten.Float",
                   "torch.ops.aten.Int.Tensor", "torch.ops.prim.max"):
        assert f'"{target}"' in text
    # Not specialized: other inputs give other numbers.
    x2, y2 = torch.tensor(-4), torch.tensor([[9.5]])
    assert tm.interpret(x2, y2) == [-4.0, 9, 1]
    assert traced.compile(tm)(x2.numpy(), y2.numpy()) == (-4.0, 9, 1)


@pytest.mark.parametrize("mode", MODES)
def test_deprecated_add_overload(mode):
    # add(Tensor input, Number alpha, Tensor other): x + 3 * 2.
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.add(x, 3, 2), x.sub(2, 5)

    x = torch.arange(6, dtype=torch.int8).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        tm = traced.trace(M(), x, mode=mode)
        expected = M()(x)
    assert "alpha=3" in str(tm) and "alpha=2" in str(tm)
    for got, want in zip(tm.interpret(x), expected):
        np.testing.assert_array_equal(got, want.numpy())


class _ShapeFromTensorProduct(torch.nn.Module):
    """torch-mlir's PrimListUnpackNumMismatchModule: torch.mul of two ints
    makes a 0-d tensor, which torch.reshape reads as an int."""

    def forward(self, x):
        if len(x.shape) == 5:
            b0, t, c0, h0, w0 = x.shape
            b, c, h, w = torch.mul(b0, t), c0, h0, w0
        else:
            b, c, h, w = x.shape
        return torch.reshape(x, [b, c, h, w])


def test_constant_int_tensors_in_int_lists():
    x = torch.rand(5, 4, 3, 2, 1)
    tm = traced.trace(_ShapeFromTensorProduct(), x)
    assert "reshape" in str(tm)
    np.testing.assert_array_equal(tm.interpret(x)[0], x.reshape(20, 3, 2, 1).numpy())
