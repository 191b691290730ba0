"""Graph outputs that are tuples or dicts: a call's tuple returned as it is
(torch.split) is that call's value in both tracers; a tuple, list or dict
built in Python around traced tensors is refused with a TraceError (it was
a constant of the example's values: silently wrong on any other input)."""
import numpy as np
import pytest
import torch

import traced

MODES = ["symbolic", "concrete"]


class Split(torch.nn.Module):
    def forward(self, x):
        return x + 1, torch.split(x, 2)


class PythonTuple(torch.nn.Module):
    def forward(self, x):
        return x + 1, (x * 2, x - 1)


class PythonDict(torch.nn.Module):
    def forward(self, x):
        return x + 1, {"a": x * 2}


class PythonList(torch.nn.Module):
    def forward(self, x):
        return [x * 2, [x - 1]]


@pytest.mark.parametrize("mode", MODES)
def test_a_calls_tuple_is_its_value(mode):
    m = traced.trace(Split(), torch.randn(4, 3), mode=mode)
    x = torch.randn(4, 3)             # another input than the example's
    got = m.interpret(x.numpy())
    want = Split()(x)
    np.testing.assert_array_equal(got[0], want[0].numpy())
    assert isinstance(got[1], tuple) and len(got[1]) == 2
    for g, w in zip(got[1], want[1]):
        np.testing.assert_array_equal(g, w.numpy())
    assert "Constant(" not in str(m.graph)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("module, kind", [(PythonTuple, "tuple"),
                                          (PythonDict, "dict"),
                                          (PythonList, "list")])
def test_python_built_containers_of_tensors_are_refused(mode, module, kind):
    with pytest.raises(traced.TraceError,
                       match=f"output #1 of the graph is a {kind} built in Python"):
        traced.trace(module(), torch.randn(4, 3), mode=mode)
