"""ONNX export and import (docs/onnx.md): exported models pass ONNX's
checker with full shape inference, round-trip through traced.from_onnx,
and models exported by torch.onnx.export import and match torch; bad
input gets a diagnostic naming the node or the call."""
import os
import subprocess

import numpy as np
import pytest
import torch
import torchvision

import traced

onnx = pytest.importorskip("onnx")

TRANSLATE = os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin",
                         "traced-translate")


def _randomized(model):
    """Random BatchNorm statistics and no all-zero parameters, so that a
    comparison proves something (zero biases hide wrong answers)."""
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.running_mean.uniform_(-0.1, 0.1, generator=g)
                m.running_var.uniform_(1.0, 2.0, generator=g)
        for p in model.parameters():
            if p.numel() and bool((p == 0).all()):
                p.uniform_(-0.1, 0.1, generator=g)
    return model.eval()


def _check(path):
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    return model


MODELS = {
    "resnet18": (1, 3, 64, 64),
    "mobilenet_v3_small": (1, 3, 64, 64),
    "shufflenet_v2_x0_5": (1, 3, 64, 64),
    "squeezenet1_0": (1, 3, 64, 64),
    "efficientnet_b0": (1, 3, 64, 64),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_torchvision_round_trips(name, tmp_path):
    model = _randomized(torchvision.models.get_model(name))
    x = torch.randn(*MODELS[name])
    with torch.no_grad():
        ref = model(x)
    m = traced.trace(model, x)
    path = str(tmp_path / f"{name}.onnx")
    assert m.to_onnx(path) == path
    exported = _check(path)
    assert exported.opset_import[0].version == 17
    assert [i.name for i in exported.graph.input] == ["x"]
    back = traced.from_onnx(path)
    torch.testing.assert_close(back.interpret(x)[0], ref, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(traced.compile(back)(x), ref, rtol=1e-4, atol=1e-4)
    # The other direction: torch's exporter, our importer.
    theirs = str(tmp_path / f"{name}_torch.onnx")
    torch.onnx.export(model, x, theirs, opset_version=17)
    imported = traced.from_onnx(theirs)
    torch.testing.assert_close(imported.interpret(x)[0], ref, rtol=1e-4, atol=1e-4)


def test_transformer_block_round_trips(tmp_path):
    """Attention, LayerNorm, GELU, slicing and the class token: a small
    vision transformer (vit_b_16's structure)."""
    from torchvision.models.vision_transformer import VisionTransformer
    model = _randomized(VisionTransformer(image_size=32, patch_size=8,
                                          num_layers=2, num_heads=4,
                                          hidden_dim=64, mlp_dim=128,
                                          num_classes=10))
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        ref = model(x)
    path = str(tmp_path / "vit.onnx")
    traced.trace(model, x).to_onnx(path)
    _check(path)
    back = traced.from_onnx(path)
    torch.testing.assert_close(back.interpret(x)[0], ref, rtol=1e-4, atol=1e-4)
    theirs = str(tmp_path / "vit_torch.onnx")
    torch.onnx.export(model, x, theirs, opset_version=17)
    torch.testing.assert_close(traced.from_onnx(theirs).interpret(x)[0], ref,
                               rtol=1e-4, atol=1e-4)


class _Ops(torch.nn.Module):
    """Elementwise math, reductions, shapes, indexing and writes."""

    def forward(self, x, y):
        a = torch.clamp(x * 2 - y / 3, min=-1.0) + torch.exp(-x.abs())
        b = a.permute(0, 2, 1).reshape(2, -1)[:, 1:7:2]
        c = torch.cat([b, b.flip(1)], dim=1).softmax(-1)
        d = torch.where(x > 0, x, torch.zeros_like(x)).sum(dim=(1,), keepdim=True)
        e = torch.roll(x, shifts=1, dims=2)
        e[:, 0, 1:3] = 5.0
        return c, d.mean(), e, torch.nn.functional.gelu(y, approximate="tanh")


def test_functions_round_trip(tmp_path):
    x, y = torch.randn(2, 3, 4), torch.randn(2, 3, 4)
    ref = _Ops()(x.clone(), y)
    m = traced.trace(_Ops(), x.clone(), y)
    path = str(tmp_path / "ops.onnx")
    m.to_onnx(path)
    _check(path)
    back = traced.from_onnx(path)
    for got, want in zip(back.interpret(x, y), ref):
        torch.testing.assert_close(got, want)


def test_locations_are_doc_strings(tmp_path):
    m = traced.trace(torchvision.models.resnet18().eval(), torch.randn(1, 3, 32, 32))
    path = str(tmp_path / "r.onnx")
    m.to_onnx(path)
    docs = [n.doc_string for n in onnx.load(path).graph.node]
    assert any("resnet.py:" in d for d in docs)
    m.to_onnx(path, locations=False)
    assert not any(n.doc_string for n in onnx.load(path).graph.node)


def test_external_data(tmp_path):
    m = traced.trace(torchvision.models.resnet18().eval(), torch.randn(1, 3, 32, 32))
    path = str(tmp_path / "r.onnx")
    m.to_onnx(path, external_data=True)
    assert os.path.getsize(path) < 200_000
    assert os.path.getsize(path + ".data") > 40_000_000
    model = onnx.load(path)  # onnx reads the external data itself
    onnx.checker.check_model(model, full_check=True)
    back = traced.from_onnx(path)
    x = torch.randn(1, 3, 32, 32)
    torch.testing.assert_close(back.interpret(x)[0], m.interpret(x)[0])
    with pytest.raises(traced.Error, match="relative"):
        m.to_onnx(path, external_data="/etc/passwd")


def test_opsets(tmp_path):
    m = traced.trace(torchvision.models.resnet18().eval(), torch.randn(1, 3, 32, 32))
    m.to_onnx(str(tmp_path / "r13.onnx"), opset=13)
    assert onnx.load(str(tmp_path / "r13.onnx")).opset_import[0].version == 13
    with pytest.raises(traced.Error, match="opsets 13 to 17"):
        m.to_onnx(str(tmp_path / "r.onnx"), opset=11)


def test_unexportable_call_names_target_and_line(tmp_path):
    class M(torch.nn.Module):
        def forward(self, x):
            return torch.linalg.det(x)

    m = traced.trace(M(), torch.randn(3, 3))
    with pytest.raises(traced.Error, match=r"cannot export 'torch.linalg.det' "
                                          r"to ONNX.*test_onnx.py:\d+"):
        m.to_onnx(str(tmp_path / "d.onnx"))
    assert not os.path.exists(tmp_path / "d.onnx")


def test_constant_inputs(tmp_path):
    """A graph input used as a shape leaves the graph when given."""
    from onnx import TensorProto, helper
    node = helper.make_node("Reshape", ["x", "shape"], ["y"])
    g = helper.make_graph([node], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
                           helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])])
    path = str(tmp_path / "reshape.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    with pytest.raises(traced.ParseError, match="shape must be a constant"):
        traced.from_onnx(path)
    m = traced.from_onnx(path, constant_inputs={"shape": np.array([3, 4])})
    assert [n.name for n in m.graph.inputs[1:]] == ["x"]
    x = torch.randn(2, 6)
    torch.testing.assert_close(m.interpret(x)[0], x.reshape(3, 4))


def test_bad_models_are_diagnosed(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x0a\xff\xff\xff\xff\x0f")  # a field longer than the file
    with pytest.raises(traced.ParseError, match="malformed ModelProto"):
        traced.from_onnx(str(bad))
    with pytest.raises(traced.ParseError, match="no graph"):
        traced.from_onnx(b"")
    from onnx import TensorProto, helper
    node = helper.make_node("Unique", ["x"], ["y"])
    g = helper.make_graph([node], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])])
    with pytest.raises(traced.ParseError, match="op type 'Unique'"):
        traced.from_onnx(helper.make_model(g).SerializeToString())


def test_command_line_round_trip(tmp_path):
    m = traced.trace(torchvision.models.resnet18().eval(), torch.randn(1, 3, 32, 32))
    src = str(tmp_path / "r.mlirbc")
    m.save(src)
    out = str(tmp_path / "r.onnx")
    translate = TRANSLATE
    subprocess.run([translate, "--export-onnx", src, "-o", out], check=True)
    _check(out)
    done = subprocess.run([translate, "--import-onnx", out], check=True,
                          capture_output=True, text=True)
    assert 'call_function "torch.nn.functional.conv2d"' in done.stdout


def test_quantized_model_exports_as_integer_math(tmp_path):
    """An FX-quantized model exports in the compilers' form (quantized
    tensors as their integers, quantize/requantize as Round, Clip and Cast
    around float ops; docs/onnx.md) and comes back exact."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3)
            self.fc = torch.nn.Linear(8 * 6 * 6, 10)

        def forward(self, x):
            return self.fc(torch.flatten(torch.relu(self.conv(x)), 1))

    x = torch.randn(2, 3, 8, 8)
    q = prepare_fx(M().eval(), get_default_qconfig_mapping(), example_inputs=(x,))
    for _ in range(4):
        q(torch.randn(2, 3, 8, 8))
    q = convert_fx(q)
    m = traced.trace(q, x)
    path = str(tmp_path / "q.onnx")
    m.to_onnx(path)
    ops = {n.op_type for n in _check(path).graph.node}
    assert {"Conv", "Round", "Clip", "Cast"} <= ops
    torch.testing.assert_close(traced.from_onnx(path).interpret(x)[0],
                               m.interpret(x)[0])


def test_dynamic_batch(tmp_path):
    """A dynamic dim is a named dim_param, and the imported module takes
    any size there, interpreted and compiled."""
    model = _randomized(torchvision.models.resnet18())
    m = traced.trace(model, torch.randn(2, 3, 64, 64), dynamic_dims={0: "batch"})
    path = str(tmp_path / "dyn.onnx")
    m.to_onnx(path)
    exported = _check(path)
    assert exported.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert exported.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    back = traced.from_onnx(path)
    x = torch.randn(5, 3, 64, 64)
    with torch.no_grad():
        ref = model(x)
    torch.testing.assert_close(back.interpret(x)[0], ref, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(traced.compile(back)(x), ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_recurrent_language_model(kind, tmp_path):
    """An embedding, a 2-layer bidirectional recurrent module and a linear
    head: one ONNX LSTM/GRU/RNN node per layer (gate blocks reordered, GRU
    with linear_before_reset=1) both ways, interpreted and compiled."""
    class LM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(50, 16)
            self.rnn = getattr(torch.nn, kind)(16, 32, num_layers=2,
                                               bidirectional=True,
                                               batch_first=True)
            self.head = torch.nn.Linear(64, 50)

        def forward(self, ids):
            out, _ = self.rnn(self.emb(ids))
            return self.head(out)

    model = LM().eval()
    ids = torch.randint(0, 50, (3, 7))
    with torch.no_grad():
        ref = model(ids)
    path = str(tmp_path / "lm.onnx")
    traced.trace(model, ids).to_onnx(path)
    assert kind in {n.op_type for n in _check(path).graph.node}
    back = traced.from_onnx(path)
    torch.testing.assert_close(back.interpret(ids)[0], ref, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(traced.compile(back)(ids), ref, rtol=1e-4, atol=1e-4)
    theirs = str(tmp_path / "lm_torch.onnx")
    torch.onnx.export(model, ids, theirs, opset_version=17)
    torch.testing.assert_close(traced.from_onnx(theirs).interpret(ids)[0], ref,
                               rtol=1e-4, atol=1e-4)


def test_lstm_states_are_outputs(tmp_path):
    """(output, (h_n, c_n)) returned from the graph: three ONNX outputs."""
    class Wrapped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(8, 16)

        def forward(self, x):
            return self.lstm(x)

    model = Wrapped().eval()
    x = torch.randn(5, 2, 8)
    with torch.no_grad():
        out, (h, c) = model(x)
    path = str(tmp_path / "lstm.onnx")
    traced.trace(model, x).to_onnx(path)
    assert len(_check(path).graph.output) == 3
    got = traced.from_onnx(path).interpret(x)
    for g, w in zip(got, (out, h, c)):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-4)
