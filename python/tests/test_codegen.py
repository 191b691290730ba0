"""m.code and m.to_torch(): Python source for the module tree, and a
torch.nn.Module built by running it, before and after graph surgery."""
import re

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import traced
from models import SimpleModule, randomize_batchnorm as _randomize_batchnorm, real_models

PIPELINE = ("traced-flatten,traced-normalize,traced-fuse-conv-bn,canonicalize,"
            "traced-dce")


def _close(got, expected):
    scale = expected.abs().max().item()
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5 * scale)


def _classes(code):
    return re.findall(r"^class (\w+)\(", code, re.M)


@pytest.mark.parametrize("surgery", [False, True], ids=["traced", "pipeline"])
@pytest.mark.parametrize("name", list(real_models()))
def test_real_models(name, surgery):
    model, x = real_models()[name]
    _randomize_batchnorm(model)
    m = traced.trace(model, x)
    if surgery:
        m = m.clone()
        m.run_passes(PIPELINE)
    expected = model(x)

    code = m.code
    compile(code, "<code>", "exec")
    with_graphs = [v for v in m.modules() if v.info["graphs"]]
    assert len(_classes(code)) == len(with_graphs)
    for view in with_graphs:
        assert f'"""@{view.name}: {view.class_name}"""' in code
    assert code == m.code  # deterministic

    rebuilt = m.to_torch()
    assert isinstance(rebuilt, nn.Module)
    assert type(rebuilt).__name__ == _classes(code)[-1]  # the root comes last
    got = rebuilt(x)
    _close(got, expected)

    original = dict(model.named_parameters())
    params = dict(rebuilt.named_parameters())
    if not surgery:
        # The same hierarchy and the same state, name for name.
        state = model.state_dict()
        assert sorted(rebuilt.state_dict()) == sorted(state)
        for key, value in rebuilt.state_dict().items():
            assert torch.equal(value, state[key]), key
        assert sorted(n for n, _ in rebuilt.named_modules()) == \
            sorted(n for n, _ in model.named_modules())
    else:
        # Flattening keeps the parameters' names, and conv+bn fusion writes
        # into the convs' own (a bias is declared where a conv had none):
        # the names torch.fx's fuse gives.
        import torch.fx.experimental.optimization as fx_optimization
        try:
            fused = dict(fx_optimization.fuse(model).named_parameters())
        except Exception:  # noqa: BLE001 - torch.fx cannot trace it (no conv+bn)
            fused = original
        assert params and set(params) == set(fused)
    for key, value in params.items():
        if key in original and not surgery:
            assert torch.equal(value, original[key]), key


def test_resnet_hierarchy_and_code():
    model, x = real_models()["resnet18"]
    m = traced.trace(model, x)
    code = m.code
    # One class per traced.module, children first; leaf modules are
    # constructed from their recorded attributes.
    assert "class BasicBlock_layer1_0(torch.nn.Module):" in code
    assert "class Sequential_layer1(torch.nn.Sequential):" in code
    assert ("self.conv1 = torch.nn.Conv2d(3, 64, (7, 7), stride=(2, 2), "
            "padding=(3, 3), bias=False)") in code
    assert "layer1_out = self.layer1(maxpool_out)" in code
    assert "flatten_out = torch.flatten(avgpool_out, 1)" in code
    rebuilt = m.to_torch()
    assert isinstance(rebuilt.layer1, nn.Sequential)
    assert type(rebuilt.layer1[0]).__name__ == "BasicBlock_layer1_0"
    assert rebuilt.layer1[0].conv1.stride == (1, 1)
    assert not rebuilt.training and not rebuilt.layer1[0].bn1.training


def test_simple_module_code():
    m = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    code = m.code
    assert "add_out = x + torch.tensor([1.0])" in code
    assert "relu_out = F.relu(add_out)" in code
    assert "linear_out = self.linear(add_out_0)" in code
    assert "self.linear = torch.nn.Linear(4, 5)" in code
    m.run_passes(PIPELINE)
    code = m.code
    assert "F.linear(add_out_0, self.linear.weight, self.linear.bias)" in code


def test_surgery_relu_to_gelu():
    model = SimpleModule().eval()
    x = torch.randn(3, 4)
    m = traced.trace(model, x)
    graph = m.graph
    relu = graph.get_function_by_type(F.relu).as_unique()
    with graph.insert_exprs(relu) as b:
        gelu = b.call_function(F.gelu, relu.inputs[0])
    graph.replace_node({relu.outputs[0]: gelu})
    graph.compile()
    m.verify()
    assert "F.gelu(" in m.code and "F.relu(" not in m.code
    got = m.to_torch()(x)
    expected = model.linear(F.gelu(x + 1.0) + model.param)
    _close(got, expected)
    assert not torch.allclose(got, model(x))


def test_weight_edit_reaches_torch():
    model = SimpleModule().eval()
    x = torch.randn(3, 4)
    m = traced.trace(model, x)
    m.linear.weight *= 2
    rebuilt = m.to_torch()
    assert torch.equal(rebuilt.linear.weight, 2 * model.linear.weight)
    _close(rebuilt(x), F.linear(F.relu(x + 1.0) + model.param,
                                2 * model.linear.weight, model.linear.bias))


def test_unresolvable_targets_raise():
    m = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    graph = m.graph
    relu = graph.get_function_by_type(F.relu).as_unique()
    with graph.insert_exprs(relu) as b:
        y = b.call_function("no_such_package.frobnicate", relu.outputs[0],
                            result_types=["tensor<3x4xf32>"])
    graph.replace_node({relu.outputs[0]: y})
    with pytest.raises(traced.Error, match=r"'no_such_package\.frobnicate' of expr %\d+ "
                                           r"of @SimpleModule::forward"):
        m.code
    with pytest.raises(traced.Error, match="no_such_package.frobnicate"):
        m.to_torch()

    m = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    graph = m.graph
    relu = graph.get_function_by_type(F.relu).as_unique()
    with graph.insert_exprs(relu) as b:
        y = b.call_method(relu.outputs[0], "frobnicate",
                          result_types=["tensor<3x4xf32>"])
    graph.replace_node({relu.outputs[0]: y})
    with pytest.raises(traced.Error, match="'frobnicate'.*Tensor has no method"):
        m.to_torch()


class _Writes(nn.Module):
    """Indexing, in-place calls, ATen overloads, dtypes and slices."""

    def forward(self, x):
        y = x.view(x.size(0), -1)
        v = torch.ops.aten.var.correction(y, [1], correction=1, keepdim=True)
        y = y[:, 1:3].clone()
        y[0] = 5.0
        y.add_(1)
        a, b = torch.chunk(x, 2, dim=1)
        c = torch.cat([a, b * 2], 1).sum(dim=-1, dtype=torch.float64)
        q = x.relu_()  # writes the input: later reads of x read q
        return y * v, c, x.to(torch.float16), q + x, -x[..., None, :2] ** 2


class _Slices(nn.Module):
    def forward(self, x):
        n = x.size(1) // 2
        y = x[:, :n]
        w = -y + 2 ** x.narrow(1, 0, n)
        return w.relu_(), y.sum(), F.relu(w, inplace=True)


@pytest.mark.parametrize("model,mode", [(_Writes(), "concrete"), (_Slices(), "symbolic")],
                         ids=["writes", "slices"])
def test_python_values_and_writes(model, mode):
    x = torch.randn(4, 6)
    m = traced.trace(model, x.clone(), mode=mode)
    expected = model(x.clone())
    given = x.clone()
    got = m.to_torch()(given)
    assert torch.equal(given, x), "the generated code wrote its input"
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        _close(g.double(), e.double())


def test_written_values_are_copied_when_read_again():
    m = traced.trace(_Writes(), torch.randn(4, 6), mode="concrete")
    code = m.code
    # The input is written in place: the code writes a copy.
    assert "relu_out = x.clone().relu_()" in code
    # A fresh result read once is written in place.
    assert "setitem_out[0] = 5.0" in code and "setitem_out.add_(1)" in code
    assert "torch.ops.aten.var.correction(view_out, [1], correction=1, keepdim=True)" in code
    assert "x.to(torch.float16)" in code or "relu_out.to(torch.float16)" in code


class _Shuffle(nn.Module):
    """shufflenet's channel shuffle: canonicalize drops the .contiguous()
    that torch's view needs after the transpose."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1)

    def forward(self, x):
        y = self.conv(x).view(1, 2, 2, 3, 3)
        y = torch.transpose(y, 1, 2).contiguous()
        return y.view(1, -1, 3, 3).contiguous(memory_format=torch.channels_last)


def test_view_after_transpose_survives_canonicalize():
    model = _Shuffle().eval()
    x = torch.randn(1, 4, 3, 3)
    m = traced.trace(model, x)
    # A keyword-only argument of torch's (the op library does not say so).
    assert "contiguous(memory_format=torch.channels_last)" in m.code
    _close(m.to_torch()(x), model(x))
    m.run_passes(PIPELINE)
    code = m.code
    assert ".contiguous(" not in code and ".reshape(1, -1, 3, 3)" in code
    _close(m.to_torch()(x), model(x))
