"""Callables in a traced forward that are no value of the graph: a Python
function given a module or a function (F.triplet_margin_with_distance_loss's
distance_function) is traced through, and a module outside the hierarchy
(an argument, a plain list, a global) is traced in place with its tensors
as constants (docs/python.md, "Modules outside the hierarchy")."""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import traced


def _check(module, *inputs):
    tm = traced.trace(module, *inputs)
    # Checked on other inputs than the traced ones: a graph that kept the
    # traced result as a constant fails.
    inputs = [torch.randn_like(x) for x in inputs]
    expected = module(*inputs)
    got_i = tm.interpret(*inputs)
    got_c = traced.compile(tm, target="cpu", cache=False)(*[x.numpy() for x in inputs])
    for got in (got_i, got_c):
        got = got[0] if isinstance(got, (list, tuple)) else got
        got = got.numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
        torch.testing.assert_close(torch.from_numpy(np.array(got)), expected.detach(),
                                   rtol=1e-5, atol=1e-5)
    return tm


class DistanceLoss(nn.Module):
    def __init__(self, distance):
        super().__init__()
        self.distance = [distance]  # a plain list: no submodule

    def forward(self, a, p, n):
        return F.triplet_margin_with_distance_loss(a, p, n, distance_function=self.distance[0],
                                                   margin=0.5, swap=True)


def test_a_function_given_a_module_is_traced_through():
    a, p, n = (torch.randn(4, 6) for _ in range(3))
    tm = _check(DistanceLoss(nn.PairwiseDistance(p=1.5)), a, p, n)
    text = str(tm)
    assert "triplet_margin_with_distance_loss" not in text
    assert "pairwise_distance" in text


def test_a_function_given_a_lambda_is_traced_through():
    class M(nn.Module):
        def forward(self, a, p, n):
            return F.triplet_margin_with_distance_loss(
                a, p, n, distance_function=lambda x, y: 1.0 - F.cosine_similarity(x, y))
    a, p, n = (torch.randn(3, 5) for _ in range(3))
    _check(M(), a, p, n)


def test_a_module_outside_the_hierarchy_is_traced_in_place():
    outside = nn.Linear(4, 3)
    nn.init.uniform_(outside.bias, -1, 1)

    class M(nn.Module):
        def forward(self, x):
            return torch.relu(outside(x)) * 2

    tm = _check(M(), torch.randn(2, 4))
    # Its weight is a constant of the graph, not a getattr of the root.
    assert "linear" in str(tm)
