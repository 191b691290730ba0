"""Unusual torch inputs (issue 55): a negated view reads as its values;
sparse and meta tensors are refused with traced.InputError (RuntimeError,
TypeError and NotImplementedError used to escape)."""
import numpy as np
import pytest
import torch

import traced


@pytest.fixture(scope="module")
def linear():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    m = traced.trace(model, torch.randn(4, 3))
    return model, m, traced.compile(m)


def test_a_negated_view_reads_as_its_values(linear):
    model, m, c = linear
    x = torch.randn(4, 3)
    neg = x._neg_view()
    expected = model(-x).detach()
    torch.testing.assert_close(c(neg), expected)
    torch.testing.assert_close(m.interpret(neg)[0], expected)


@pytest.mark.parametrize("kind", ["sparse", "meta"])
def test_tensors_without_dense_data_are_input_errors(linear, kind):
    _, m, c = linear
    x = (torch.randn(4, 3).to_sparse() if kind == "sparse"
         else torch.empty(4, 3, device="meta"))
    for call in (c, m.interpret, lambda v: c(v, cast=True)):
        with pytest.raises(traced.InputError, match=rf"input 1 \('\w+'\) is a "
                           rf"{'torch.sparse_coo' if kind == 'sparse' else 'meta'}"):
            call(x)


def test_python_ints_beyond_int64_are_input_errors(linear):
    _, m, c = linear
    with pytest.raises(traced.InputError):
        c([[2 ** 80] * 3] * 4, cast=True)
    with pytest.raises(traced.InputError):
        m.interpret(np.array([[2 ** 80] * 3] * 4, dtype=object))
