"""Tracing real models, and round trips through .mlir and .mlirbc."""
import numpy as np
import pytest
import torch
import torchvision

import traced
from models import MLP, SimpleModule, real_models

MODELS = real_models()


def _weights(module):
    """Every parameter and buffer of a torch module, by owner and name."""
    found = {}
    for path, m in module.named_modules():
        for table in (m._parameters, m._buffers):
            for name, t in table.items():
                if t is not None:
                    found[(path, name)] = t.detach().numpy()
    return found


def _traced_weights(tm, torch_module):
    """The same weights read back from the traced module's views."""
    found = {}
    root = tm.module(tm.root_name)
    for (path, name) in _weights(torch_module):
        view = root
        for part in filter(None, path.split(".")):
            view = getattr(view, part)
        found[(path, name)] = getattr(view, name)
    return found


@pytest.fixture(scope="module", params=sorted(MODELS))
def traced_model(request):
    module, x = MODELS[request.param]
    return request.param, module, x, traced.trace(module, x)


def test_trace_verifies_and_keeps_weights(traced_model):
    name, module, _, tm = traced_model
    tm.verify()
    expected = _weights(module)
    got = _traced_weights(tm, module)
    assert expected.keys() == got.keys()
    for key in expected:
        assert got[key].tobytes() == expected[key].tobytes(), key


@pytest.mark.parametrize("suffix", [".mlir", ".mlirbc"])
def test_round_trip(traced_model, suffix, tmp_path):
    name, module, _, tm = traced_model
    path = tmp_path / f"{name}{suffix}"
    tm.save(path)
    back = traced.load(path)
    back.verify()
    assert str(back) == str(tm)
    got = _traced_weights(back, module)
    for key, value in _weights(module).items():
        assert got[key].tobytes() == value.tobytes(), key


def test_clone_is_independent():
    module, x = MODELS["mlp"]
    tm = traced.trace(module, x)
    copy = tm.clone()
    assert str(copy) == str(tm)
    copy.fc1.bias = copy.fc1.bias + 1
    assert not np.array_equal(copy.fc1.bias, tm.fc1.bias)


def test_tensor_types_come_from_the_example(traced_model):
    name, module, x, tm = traced_model
    graph = tm.graph
    assert graph.inputs[0].name == "self"
    assert graph.inputs[1].shape == tuple(x.shape)
    assert graph.inputs[1].dtype == "float32"
    out = module(x)
    assert graph.outputs[0].shape == tuple(out.shape)


def test_seed000_symbolic_keeps_module_calls():
    tm = traced.trace(SimpleModule().eval(), torch.zeros(3, 4), mode="symbolic")
    text = str(tm.graph)
    assert 'linear = getattr(self, "linear") -> (Linear)' in text
    assert "linear_out = linear(add_out_0)" in text
    assert "const_tensor = Constant(tensor<1xf32>) -> (Tensor)" in text
    assert "torch.nn.functional.relu(input=add_out)" in text
    linear = tm.linear
    assert linear.class_name == "torch.nn.modules.linear.Linear"
    assert linear.in_features == 4 and linear.out_features == 5


def test_seed000_concrete_records_the_run():
    tm = traced.trace(SimpleModule().eval(), torch.zeros(3, 4), mode="concrete")
    text = str(tm.graph)
    assert text.startswith("SimpleModule.Graph (self, x) {")
    assert "Constant(tensor<1xf32>)" in text
    assert "linear(add_out_0)" in text


def test_resnet18_keeps_the_module_hierarchy():
    module, x = MODELS["resnet18"]
    tm = traced.trace(module, x, mode="symbolic")
    assert 'layer1 = getattr(self, "layer1") -> (Sequential)' in str(tm.graph)
    block = tm.layer1.__getattr__("0")
    assert block.class_name == "torchvision.models.resnet.BasicBlock"
    assert "conv1_out = conv1(x)" in str(block.graph)
    # Leaf modules are modules without graphs, with their attributes.
    conv = block.conv1
    assert conv.info["graphs"] == []
    assert conv.stride == (1, 1) and conv.groups == 1


def test_auto_falls_back_to_concrete_for_transformer():
    module, x = MODELS["transformer_encoder_layer"]
    with pytest.raises(traced.Error, match="control flow"):
        traced.trace(module, x, mode="symbolic")
    tm = traced.trace(module, x)  # auto
    attn = tm.self_attn
    assert "multi_head_attention_forward" in str(attn.graph)


@pytest.mark.parametrize("name", ["shufflenet_v2_x0_5", "vit"])
def test_models_fx_cannot_trace(name):
    if name == "vit":
        module = torchvision.models.VisionTransformer(
            image_size=32, patch_size=16, num_layers=2, num_heads=2,
            hidden_dim=32, mlp_dim=64)
        x = torch.randn(1, 3, 32, 32)
    else:
        module, x = torchvision.models.shufflenet_v2_x0_5(), torch.randn(1, 3, 64, 64)
    tm = traced.trace(module.eval(), x)
    tm.verify()
    assert tm.graph.outputs[0].shape == tuple(module(x).shape)


class _Concat(torch.nn.Module):
    def forward(self, tensors):
        return torch.cat(tensors, 1).relu()


class _ListInputs(torch.nn.Module):
    """DenseNet's pattern: a traced submodule whose forward takes a list."""

    def __init__(self):
        super().__init__()
        self.layer = _Concat()

    def forward(self, x):
        y = self.layer([x, x * 2])
        return self.layer([x * 3, x]) + y


def test_list_inputs_are_read_not_baked_in():
    module, x = _ListInputs().eval(), torch.randn(1, 2, 3)
    tm = traced.trace(module, x, mode="concrete")
    # The callee reads the list's elements; no tensor of the run is baked in.
    assert "Constant(" not in str(tm.layer.graph)
    assert str(tm.layer.graph).count("operator.getitem(") == 2
    other = torch.randn(1, 2, 3)  # not the example the trace saw
    with torch.no_grad():
        expected = module(other).numpy()
    assert np.allclose(tm.interpret(other.numpy())[0], expected, atol=1e-6)
    tm.run_passes("traced-flatten,traced-dce")
    text = str(tm.graph)
    assert "getitem" not in text and "Constant(" not in text
    assert np.allclose(tm.interpret(other.numpy())[0], expected, atol=1e-6)


def test_densenet_layers_read_their_list_input():
    module, x = torchvision.models.densenet121().eval(), torch.randn(1, 3, 32, 32)
    tm = traced.trace(module, x)
    other = torch.randn(1, 3, 32, 32)
    with torch.no_grad():
        expected = module(other).numpy()
    got = tm.interpret(other.numpy())[0]
    assert np.abs(got - expected).max() <= 1e-4 * np.abs(expected).max()


def test_unknown_function_stays_opaque(tmp_path):
    # (torch.poisson is random, which the op library leaves out.)
    class UsesPoisson(torch.nn.Module):
        def forward(self, x):
            return torch.poisson(x) + 1

    tm = traced.trace(UsesPoisson(), torch.ones(3), mode="symbolic")
    assert 'call_function "torch.poisson"(%x)' in str(tm)
    path = tmp_path / "m.mlirbc"
    tm.save(path)
    assert str(traced.load(path)) == str(tm)


def test_run_passes():
    tm = traced.trace(MLP().eval(), torch.randn(2, 16))
    tm.run_passes("canonicalize,cse")
    tm.verify()
    with pytest.raises(traced.Error, match="invalid pass pipeline"):
        tm.run_passes("no-such-pass")


def test_json_round_trip(traced_model, tmp_path):
    name, module, _, tm = traced_model
    path = tmp_path / f"{name}.json"
    tm.save(path)
    back = traced.load(path)
    back.verify()
    got = _traced_weights(back, module)
    for key, value in _weights(module).items():
        assert got[key].tobytes() == value.tobytes(), key
    # The graphs survive too: same TracedModule-style print.
    assert str(back.graph) == str(tm.graph)


def test_malformed_json_has_a_position(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "traced-trace", "version": 1,\n  "modules": [\n')
    with pytest.raises(traced.Error, match=r"bad\.json:2:\d+: error: malformed JSON"):
        traced.load(path)
