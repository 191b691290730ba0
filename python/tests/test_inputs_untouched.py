"""Compiled code never writes the caller's input buffers (issue 55): an
input whose only use is a scatter-like op used to be updated in place, so
`fn(x, i)` changed `x`, a second call answered differently, and a read-only
array crashed the process."""
import warnings

import numpy as np
import pytest
import torch

import traced


class IndexAdd(torch.nn.Module):
    def forward(self, x, i, src):
        return x.index_add(0, i, src)


class IndexCopy(torch.nn.Module):
    def forward(self, x, i, src):
        return x.index_copy(0, i, src)


class IndexPut(torch.nn.Module):
    def forward(self, x, i, src):
        return x.index_put((i,), src)


class Scatter(torch.nn.Module):
    def forward(self, x, i, src):
        return x.scatter(0, i.unsqueeze(1).expand(-1, 3), src)


class CloneAssign(torch.nn.Module):
    def forward(self, x, i, src):
        y = x.clone()
        y[i] = src
        return y


class IndexFill(torch.nn.Module):
    def forward(self, x, i, src):
        return x.index_fill(0, i, 7.0) + src.sum()


@pytest.mark.parametrize("module", [IndexAdd, IndexCopy, IndexPut, Scatter,
                                    CloneAssign, IndexFill],
                         ids=lambda m: m.__name__)
def test_compiled_code_leaves_inputs_alone(module):
    torch.manual_seed(0)
    x = torch.randn(5, 3)
    i = torch.tensor([3, 0])
    src = torch.randn(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", traced.TracerWarning)
        tm = traced.trace(module(), x, i, src)
    fn = traced.compile(tm)
    expected = module()(x, i, src)
    arrays = [t.numpy().copy() for t in (x, i, src)]
    for a in arrays:
        a.flags.writeable = False  # a read-only input (np.load mmap_mode="r")
    for _ in range(2):  # the same answer twice
        torch.testing.assert_close(torch.as_tensor(np.asarray(fn(*arrays))), expected)
    for a, t in zip(arrays, (x, i, src)):
        np.testing.assert_array_equal(a, t.numpy())
