"""Big-endian numpy arrays (issue 55) are read by value on every path that
takes numpy arrays: Module.interpret, compiled modules, assigning a
parameter (ModuleView.__setattr__) and Graph.constant. They used to be read
as little-endian bytes: silently wrong values."""
import numpy as np
import torch

import traced


class Affine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        return x * self.w + 1


def test_big_endian_inputs_are_read_by_value():
    tm = traced.trace(Affine(), torch.ones(3))
    x = np.array([1.0, 2.0, 3.0], ">f4")
    expected = np.array([2.0, 3.0, 4.0], np.float32)
    np.testing.assert_array_equal(tm.interpret(x)[0], expected)
    np.testing.assert_array_equal(traced.compile(tm)(x), expected)
    big64 = np.array([1.0, 2.0, 3.0], ">f8")
    np.testing.assert_array_equal(traced.compile(tm)(big64, cast=True), expected)


def test_big_endian_parameters_and_constants_are_read_by_value():
    tm = traced.trace(Affine(), torch.ones(3))
    tm.w = np.array([2.0, 3.0, 4.0], ">f4")
    np.testing.assert_array_equal(tm.w, [2.0, 3.0, 4.0])
    np.testing.assert_array_equal(tm.interpret(np.ones(3, np.float32))[0],
                                  [3.0, 4.0, 5.0])
    graph = tm.graph
    with graph.insert_exprs() as b:
        c = b.constant(np.array([5.0, 6.0, 7.0], ">f4"))
    np.testing.assert_array_equal(c.expr.value, [5.0, 6.0, 7.0])
