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


class Scaled(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


class ReusedAtTwoSizes(torch.nn.Module):
    """One block called on a feature map and then on its pooled vector: a
    symbolic trace would make one graph, for the first call's shape."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.act = Scaled()

    def forward(self, x):
        y = self.act(self.conv(x))
        return self.act(y.mean((2, 3)))


def test_symbolic_trace_of_a_module_called_at_two_sizes():
    """The default trace ("auto") falls back to a concrete trace, which makes
    a graph per distinct call; mode="symbolic" refuses, naming the module
    and both calls' shapes."""
    torch.manual_seed(0)
    model = ReusedAtTwoSizes().eval()
    x = torch.randn(1, 3, 8, 8)
    with torch.no_grad():
        expected = model(x).numpy()
    with pytest.warns(traced.TracerWarning, match=r"submodule 'act' .*called with "
                      r"\(float32\[1, 4, 6, 6\]\) and later with \(float32\[1, 4\]\)"):
        tm = traced.trace(model, x)
    assert graphs_of(tm, "act") == ["@forward", "@forward_1"]
    np.testing.assert_allclose(tm.interpret(x.numpy())[0], expected, rtol=1e-6, atol=1e-6)
    out = traced.compile(tm)(x.numpy())
    out = out[0] if isinstance(out, (list, tuple)) else out
    np.testing.assert_allclose(out, expected, rtol=1.3e-6, atol=1e-5)
    with pytest.raises(traced.TraceError, match="submodule 'act' .* one graph of a module"):
        traced.trace(model, x, mode="symbolic")


def test_qat_observer_shared_across_sizes():
    """FX's QAT graphs share an activation observer between an op and the
    average pooling after it (same qparams), so one FakeQuantize module is
    called on [1, C, H, W] and on [1, C, 1, 1]: traced (concretely), and
    converted to int8, it computes what torch's converted model does."""
    import copy

    from torch.ao.quantization import get_default_qat_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_qat_fx
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU6(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10))
    x = torch.randn(1, 3, 12, 12)
    prepared = prepare_qat_fx(model.train(), get_default_qat_qconfig_mapping("x86"), (x,))
    prepared(torch.randn(4, 3, 12, 12))
    prepared.apply(torch.ao.quantization.disable_observer)
    prepared.eval()
    int8 = convert_fx(copy.deepcopy(prepared))
    with pytest.warns(traced.TracerWarning, match="called with"):
        tm = traced.trace(prepared, x)
    with torch.no_grad():
        np.testing.assert_allclose(tm.interpret(x)[0].numpy(), prepared(x).numpy(),
                                   rtol=1.3e-6, atol=1e-5)
    tm.run_passes("traced-flatten,traced-normalize,traced-convert-qat,traced-dce")
    engine = torch.backends.quantized.engine
    torch.backends.quantized.engine = "onednn"
    try:
        with torch.no_grad():
            expected = int8(x)
    finally:
        torch.backends.quantized.engine = engine
    step = expected.unique().sort().values.diff().min()
    assert ((tm.interpret(x)[0] - expected).abs() / step).max() <= 1


class FirstPlusOne(torch.nn.Module):
    def forward(self, xs):
        return xs[0] + 1


class GrowsItsList(torch.nn.Module):
    """Calls a module on a list and then appends to that list (as DenseNet's
    blocks do): the call's shapes are the ones at the call."""

    def __init__(self):
        super().__init__()
        self.first = FirstPlusOne()

    def forward(self, x):
        features = [x]
        y = self.first(features)
        features.append(y)
        return y * 2


def test_a_list_argument_grown_after_the_call_stays_symbolic():
    model = GrowsItsList().eval()
    x = torch.randn(2, 3)
    tm = traced.trace(model, x)
    assert tm.trace_mode == "symbolic"
    np.testing.assert_allclose(tm.interpret(x.numpy())[0], model(x).numpy())
