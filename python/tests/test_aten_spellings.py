"""ATen spellings as the tracers meet them: packets resolved to the overload
torch dispatches to, renamed ATen ops, and the overload-like spellings of
the Python API (torch.max(a, b) is torch.maximum)."""
import numpy as np
import pytest
import torch

import traced


from models import Fn1, Fn2  # noqa: E402


class Fn3(Fn1):
    def forward(self, a, b, c):
        return self.fn(a, b, c)


def Fn(fn, arity):
    """A module calling `fn`, with a forward torch.fx can trace."""
    return {1: Fn1, 2: Fn2, 3: Fn3}[arity](fn)


def _check(fn, *inputs, mode="auto"):
    expected = fn(*[x.clone() for x in inputs])
    tm = traced.trace(Fn(fn, len(inputs)), *inputs, mode=mode)
    got = tm.interpret(*inputs)
    expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        # (torch tensors in, torch tensors out)
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-6, atol=1e-6)
    return tm


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
def test_packet_resolves_to_the_dispatched_overload(mode):
    x = torch.rand(3, 4, 5)
    # var's overloads bind `dim` and `correction` differently: the packet
    # takes the first that fits, var.correction, and dim=[] is every dim.
    tm = _check(lambda x: torch.ops.aten.var(x, dim=[], correction=2), x, mode=mode)
    assert "torch.ops.aten.var.correction" in str(tm)
    _check(lambda x: torch.ops.aten.std(x, [1, 2], True, True), x, mode=mode)
    _check(lambda x, i: torch.ops.aten.scatter(x, 1, i, 2.5),
           torch.rand(3, 4), torch.tensor([[0], [3], [1]]), mode=mode)


def test_renamed_aten_ops():
    x = torch.rand(1, 2, 5, 6)
    _check(lambda x: torch.ops.aten.reflection_pad2d(x, [1, 2, 2, 1]), x)
    _check(lambda x: torch.ops.aten.replication_pad1d(x, [3, 1]), torch.rand(2, 3, 4))
    _check(lambda x: torch.ops.aten.upsample_nearest2d.vec(x, [7, 9], None), x)


def test_stack_family_under_aten_names():
    # The rule reads the canonical entry, not the ATen spelling.
    _check(lambda x, y: torch.ops.aten.hstack([x, y]),
           torch.rand(2, 6, 4).int(), torch.rand(2, 3, 4).double())
    _check(lambda x, y: torch.ops.aten.column_stack([x, y]), torch.rand(4), torch.rand(4))


def test_promotions():
    ints = torch.randint(0, 100, (2, 3))
    _check(lambda a, b, c: torch.stack([a, b, c], dim=-1),
           ints > 50, ints.int(), ints)
    _check(lambda a, b: torch.outer(a, b), torch.rand(4), torch.rand(3).double())
    _check(lambda a, b: torch.outer(a, b), torch.tensor([True, False]),
           torch.tensor([True, True, False]))


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
def test_max_min_with_a_tensor_are_maximum_minimum(mode):
    a, b = torch.rand(3, 5), torch.rand(3, 5)
    tm = _check(lambda a, b: a.max(b) + torch.min(a, b), a, b, mode=mode)
    assert "maximum" in str(tm) and "minimum" in str(tm)


def test_tuple_result_returned_as_it_is():
    tm = _check(lambda x: torch.ops.aten.topk(x, k=3, dim=-1), torch.rand(2, 9),
                mode="symbolic")
    assert len(tm.graph.outputs) == 2


def test_inplace_on_an_input_keeps_its_dtype():
    # torch.fx records `a += b` as `a + b` (which promotes); auto mode sees
    # the difference from the eager run and traces concretely.
    def f(a, b):
        a += b
        return a
    a, b = torch.rand(3, 3), torch.rand(3, 3).double()
    before = a.clone()
    _check(f, a, b)
    assert torch.equal(a, before), "tracing wrote the caller's input"


def test_aten_list_results():
    # aten.split returns a list (Tensor[]), torch.split a tuple: both bind
    # to the entry, and a root returning the list returns its elements.
    tm = _check(lambda x: torch.ops.aten.split(x, 2, 1), torch.rand(2, 6),
                mode="concrete")
    assert len(tm.graph.outputs) == 3


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
def test_aten_inplace_spellings(mode):
    _check(lambda x: torch.ops.aten.fill_(x * 1, 3), torch.rand(2, 3), mode=mode)
    _check(lambda x: torch.ops.aten.zero_(x + 1), torch.rand(2, 3), mode=mode)
    _check(lambda x, y: torch.ops.aten.copy_(x * 1, y), torch.rand(2, 3),
           torch.rand(3).double(), mode=mode)


def test_aten_losses_take_the_reduction_enum():
    # ATen's Reduction: 0 none, 1 mean, 2 sum.
    x, y = torch.rand(3, 4), torch.rand(3, 4)
    _check(lambda x, y: torch.ops.aten.mse_loss(x, y), x, y)
    _check(lambda x, y: torch.ops.aten.l1_loss(x, y, 0), x, y)
    _check(lambda x, y: torch.ops.aten.kl_div(x, y, 2, log_target=True), x, y)
    _check(lambda x, t: torch.ops.aten.nll_loss(x, t, None, 2, -100),
           torch.rand(3, 5).log_softmax(1), torch.tensor([4, 0, 2]))


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
def test_as_strided_of_a_view_is_refused(mode):
    # as_strided reads storage, which a trace does not keep: on a view it
    # would read another order. It is refused, never silently wrong.
    x = torch.rand(3, 4)
    with pytest.raises(traced.Error, match="whose storage this as_strided reads"):
        traced.trace(Fn(lambda x: torch.as_strided(x.t(), (2, 2), (1, 2)), 1), x,
                     mode=mode)
    with pytest.raises(traced.Error, match="whose storage this as_strided reads"):
        traced.trace(Fn(lambda x: x[:, 1:].as_strided((2, 2), (1, 4)), 1), x,
                     mode=mode)
    # Where the copy holds the same elements at the places read, it is
    # traced: a contiguous slice read from its own start, a fresh tensor.
    _check(lambda x: x[1:].as_strided((2, 2), (1, 2)), x, mode=mode)
    _check(lambda x: x.expand(2, 3, 4).as_strided((2, 4), (1, 2)), x, mode=mode)
    _check(lambda x: torch.as_strided(x * 2, (2, 2), (1, 2), 1), x, mode=mode)


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
def test_aten_dtype_codes(mode):
    # torch.ops.aten calls may pass ATen's ScalarType code for `dtype`.
    _check(lambda x: torch.ops.aten.cumsum(x, 1, dtype=6), torch.randint(0, 9, (2, 3)),
           mode=mode)
    _check(lambda x: torch.ops.aten.sum(x, [0], dtype=7), torch.rand(2, 3), mode=mode)


def test_more_aten_only_spellings():
    """ATen names torch-mlir's e2e suite calls: each means an entry."""
    x = torch.rand(3, 4) - 0.5
    _check(lambda x: torch.ops.aten._softmax(x, 1, False), x)
    _check(lambda x: torch.ops.aten._log_softmax(x, 0, False), x)
    _check(lambda x: torch.ops.aten.sgn(x), x)
    _check(lambda x: torch.ops.aten.broadcast_to(x, [2, 3, 4]), x)
    _check(lambda x: torch.ops.aten.split_with_sizes(x, [1, 3], 1), x)
    _check(lambda x: torch.ops.aten.frobenius_norm(x, [1], True), x)
    _check(lambda x: torch.ops.aten._cast_Long(x * 4), x)
    _check(lambda x: torch.ops.aten._cast_Half(x), x)
    _check(lambda x, t: torch.ops.aten.cross_entropy_loss(x, t, None, 0), x,
           torch.tensor([0, 3, 1]))


def test_aten_keywords_for_positional_parameters():
    """Keyword arguments an ATen overload names otherwise than the entry
    (`output_size` for interpolate's `size`) are passed by position."""
    x = torch.rand(1, 2, 3, 4)
    _check(lambda x: torch.ops.aten.upsample_nearest2d.vec(
        x, output_size=[6, 8], scale_factors=None), x)


def test_scalar_type_codes_in_any_position():
    """A ScalarType given as ATen's code (`input_dtype=6`), by keyword or by
    position, is recorded as the dtype."""
    g, y = torch.rand(3, 4), torch.softmax(torch.rand(3, 4), 1)
    tm = _check(lambda g, y: torch.ops.aten._softmax_backward_data(
        g, y, dim=1, input_dtype=6), g, y)
    assert "input_dtype=dtype(f32)" in str(tm)
    _check(lambda g, y: torch.ops.aten._log_softmax_backward_data(g, y, 0, 6), g, y)


def test_upsample_nearest_with_size_and_scales():
    """ATen's upsample_nearest2d with an output size and the scales its
    source indices use (torch-mlir's UpSampleNearest2d tests)."""
    x = torch.rand(2, 3, 2, 2)
    _check(lambda x: torch._C._nn.upsample_nearest2d(
        x, output_size=[6, 10], scales_h=2.3, scales_w=4.7), x)
    _check(lambda x: torch.ops.aten.upsample_nearest2d(
        x, output_size=[4, 5], scales_h=None, scales_w=None), x)


def test_prims_spellings():
    """PyTorch's primitives (torch.ops.prims) that mean an entry."""
    x = torch.rand(2, 3, 4)
    _check(lambda x: torch.ops.prims.view_of(x), x)
    _check(lambda x: torch.ops.prims.convert_element_type(x * 5, torch.int32), x)
    _check(lambda x: torch.ops.prims.sum(x, [0, 2]), x)
    _check(lambda x: torch.ops.prims.squeeze(x[:1, :, :1], [0, 2]), x)
    _check(lambda x: torch.ops.prims.split_dim(x, 2, 2), x)


def test_strided_spellings():
    """_reshape_alias with contiguous strides is a reshape; empty_strided's
    strides do not change the values a copy_ writes."""
    x = torch.rand(2, 3, 4)
    _check(lambda x: torch.ops.aten._reshape_alias(x, (6, 4), (4, 1)), x)
    _check(lambda x: torch.ops.aten.empty_strided(x.size(), stride=[12, 4, 1]).copy_(x), x)
    _check(lambda x: torch.ops.aten.new_empty_strided(x, [2, 3, 4], [12, 4, 1]).copy_(x) + x, x)
