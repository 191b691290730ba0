"""A traced (non-leaf) module called more than once: each call is traced,
and calls that trace alike share one graph. Reusing the first call's graph
for every call was silently wrong when a later call traced differently
(another Python argument, another shape)."""
import numpy as np
import pytest
import torch

import traced


class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 4)

    def forward(self, x, scale=1.0):
        # Concrete tracing records `scale` as a constant, and the branch.
        if x.shape[0] == 2:
            return self.l(x) * scale + torch.tensor([1.0, 2.0, 3.0, 4.0])
        return self.l(x) + scale


class Twice(torch.nn.Module):
    def __init__(self, calls):
        super().__init__()
        self.inner = Inner()
        self.calls = calls

    def forward(self, x):
        outs = [self.inner(x[:rows], scale) for rows, scale in self.calls]
        return torch.cat([o.sum(0) for o in outs])


def graphs_of(tm, sym="inner"):
    return [line.split("(")[0].split()[-1] for line in str(tm).splitlines()
            if line.strip().startswith(f"graph @") and f"!traced.module<@{sym}>" in line]


@pytest.mark.parametrize("calls, graphs", [
    # Other Python arguments: two graphs.
    ([(2, 2.0), (2, 3.0)], ["@forward", "@forward_1"]),
    # Another shape, another branch: two graphs.
    ([(2, 2.0), (1, 2.0)], ["@forward", "@forward_1"]),
    # Alike (the constant tensor compared by content): one graph.
    ([(2, 2.0), (2, 2.0), (2, 3.0), (2, 2.0)], ["@forward", "@forward_1"]),
])
def test_module_called_again(calls, graphs, tmp_path):
    torch.manual_seed(0)
    model = Twice(calls).eval()
    x = torch.randn(2, 4)
    with torch.no_grad():
        expected = model(x).numpy()
    tm = traced.trace(model, x, mode="concrete")
    assert graphs_of(tm) == graphs
    got = tm.interpret(x.numpy())[0]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    compiled = traced.compile(tm)
    out = compiled(x.numpy())
    out = out[0] if isinstance(out, (list, tuple)) else out
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    # The extra graphs survive the JSON trace format.
    path = tmp_path / "twice.json"
    tm.save(str(path))
    np.testing.assert_allclose(traced.load(str(path)).interpret(x.numpy())[0],
                               expected, rtol=1e-6, atol=1e-6)
    # The surgery pipeline inlines each call's own graph.
    flat = tm.clone()
    flat.run_passes("traced-flatten,traced-normalize,canonicalize,traced-dce")
    np.testing.assert_allclose(flat.interpret(x.numpy())[0], expected,
                               rtol=1e-6, atol=1e-6)
