"""Quantized models (docs/quantization.md): torch's FX and eager int8 models
trace, interpret and agree with torch's quantized CPU backend (onednn);
quantized types round-trip through text, bytecode and JSON; what torch
refuses on quantized tensors is refused."""
import json

import pytest
import torch
import torchvision

import host
import traced

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


# The qconfigs the models are quantized with. torch 1.13's oneDNN int8
# convolutions and linears on a CPU without VNNI (AVX2) sum pairs of
# u8 x s8 products in int16 with saturation (vpmaddubsw): with the
# "onednn" qconfig's 8-bit activations, torch's own outputs there are not
# the quantized model's arithmetic (torch warns of it; a conv of 255s by
# 127s gives 131 for 259). TracedIR computes the exact int32 sums, as
# oneDNN does with VNNI. So on such a CPU the models take torch's "x86"
# qconfig, whose 7-bit activations (reduce_range) cannot saturate, and the
# comparison with torch stays exact (docs/quantization.md, "Numerics").
BACKEND = "onednn" if host.VNNI else "x86"


@pytest.fixture(autouse=True)
def onednn():
    engine = torch.backends.quantized.engine
    torch.backends.quantized.engine = "onednn"
    yield
    torch.backends.quantized.engine = engine


def _randomize(model):
    """Random BatchNorm statistics and affine parameters: with torchvision's
    initial ones (mean 0, var 1, weight 1, bias 0) a comparison proves
    little."""
    gen = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            n = m.num_features
            m.running_mean.copy_(torch.rand(n, generator=gen) - 0.5)
            m.running_var.copy_(torch.rand(n, generator=gen) * 1.5 + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=gen) + 0.5)
            m.bias.data.copy_(torch.rand(n, generator=gen) - 0.5)
    return model


def _fx_quantized(name, size=224):
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
    torch.manual_seed(0)
    model = _randomize(getattr(torchvision.models, name)().eval())
    x = torch.randn(1, 3, size, size)
    prepared = prepare_fx(model, get_default_qconfig_mapping(BACKEND), (x,))
    with torch.no_grad():
        for _ in range(3):
            prepared(torch.randn(1, 3, size, size))
    return convert_fx(prepared)


def _eager_quantized(name, size=224):
    import torchvision.models.quantization as tq
    torch.manual_seed(0)
    kwargs = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
    model = _randomize(getattr(tq, name)(quantize=False, **kwargs).eval())
    model.fuse_model(is_qat=False)
    model.qconfig = torch.ao.quantization.get_default_qconfig(BACKEND)
    torch.ao.quantization.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(3):
            model(torch.randn(1, 3, size, size))
    torch.ao.quantization.convert(model, inplace=True)
    return model


def _steps(got, expected):
    """|got - expected| in quantization steps of the logits (the model
    dequantizes its last linear's output: a step is that linear's scale)."""
    values = expected.unique().sort().values
    step = values.diff().min()
    return ((got - expected).abs() / step).round()


def _assert_logits(module, expected_of, within_one=0.99, most=2):
    """`module`'s logits, interpreted and compiled, against
    `expected_of(x)` on two random inputs: at least `within_one` of them
    within one quantization step, none more than `most` steps off, the same
    top-1 class."""
    compiled = traced.compile(module)
    for seed in range(2):
        x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(seed))
        with torch.no_grad():
            expected = expected_of(x)
        for got in (module.interpret(x)[0], compiled(x)):
            steps = _steps(got, expected)
            assert (steps <= 1).float().mean() >= within_one and steps.max() <= most, steps.max()
            assert got.argmax() == expected.argmax()


@pytest.mark.parametrize("name,quantize", [
    ("resnet18", _fx_quantized), ("mobilenet_v2", _fx_quantized),
    ("resnet18", _eager_quantized), ("mobilenet_v3_large", _eager_quantized),
    ("googlenet", _eager_quantized), ("shufflenet_v2_x1_0", _eager_quantized)],
    ids=["fx-resnet18", "fx-mobilenet_v2", "eager-resnet18", "eager-mobilenet_v3_large",
         "eager-googlenet", "eager-shufflenet_v2_x1_0"])
def test_model(name, quantize):
    model = quantize(name)
    x = torch.randn(1, 3, 224, 224)
    tm = traced.trace(model, x)
    text = str(tm)
    assert "!quant.uniform<u8:f32" in text and "!quant.uniform<i8:f32:0" in text
    # Single steps of oneDNN's own float order spread through the network
    # (docs/quantization.md, "Numerics"); no element is further than two
    # steps off, and 99% are within one.
    _assert_logits(tm, model)


class _Wrap(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)


def _qconv():
    import torch.nn.intrinsic.quantized as nniq
    conv = nniq.ConvReLU2d(4, 6, 3, padding=1)
    w = torch.quantize_per_channel(torch.randn(6, 4, 3, 3) * 0.1, torch.rand(6, dtype=torch.float64) * 0.01 + 0.001,
                                   torch.zeros(6, dtype=torch.long), 0, torch.qint8)
    conv.set_weight_bias(w, torch.randn(6))
    conv.scale, conv.zero_point = 0.07, 11
    return conv


def test_module_state_and_types():
    torch.manual_seed(0)
    conv = _qconv()
    x = torch.quantize_per_tensor(torch.randn(1, 4, 5, 5), 0.05, 3, torch.quint8)
    tm = traced.trace(_Wrap(conv), x)
    m = tm.module("m")
    assert m.class_name == "torch.nn.intrinsic.quantized.modules.conv_relu.ConvReLU2d"
    text = str(tm)
    # The unpacked weight: per channel, its storage integers as the value.
    assert "parameter @weight : tensor<6x4x3x3x!quant.uniform<i8:f32:0, {" in text
    assert "dense_resource<" in text and "tensor<6x4x3x3xi8>" in text
    assert "parameter @bias : tensor<6xf32>" in text
    out = tm.graph.outputs[0]
    assert out.dtype == "quint8"
    assert "!quant.uniform<u8:f32, 7.0000000000000007E-2:11>" in str(out.type) or \
        "0.07" in str(out.type) or "7.000000e-02:11" in str(out.type)
    got = tm.interpret(x)[0]
    expected = conv(x)
    assert got.is_quantized and got.q_scale() == expected.q_scale()
    assert got.q_zero_point() == expected.q_zero_point()
    assert torch.equal(got.int_repr(), expected.int_repr())


def _graph_text(tm):
    """The IR without its weight blobs and their names."""
    import re
    return re.sub(r"dense_resource<[^>]*>", "dense_resource<>", str(tm).split("{-#")[0])


@pytest.mark.parametrize("make", [lambda: torch.ao.nn.quantized.LeakyReLU(0.04, 60, 0.2),
                                  lambda: torch.ao.nn.quantized.ELU(0.04, 60, 1.5)],
                         ids=["LeakyReLU", "ELU"])
def test_activation_modules(make):
    """The quantized LeakyReLU (scale and zero point in buffers) and ELU
    modules convert_fx and eager convert emit: their storage integers and
    parameters are torch's, interpreted and compiled."""
    module = _Wrap(make())
    # (2,048 elements: torch's vectorized loop takes them all, 64 at a time;
    # a tail would go through its scalar loop, which dequantizes unfused.)
    x = torch.quantize_per_tensor(torch.randn(4, 16, 32) * 2, 0.05, 70, torch.quint8)
    tm = traced.trace(module, x)
    expected = module(x)
    interpreted, compiled = tm.interpret(x)[0], traced.compile(tm)(x)
    for got in (interpreted, compiled):
        assert got.q_scale() == expected.q_scale() and got.q_zero_point() == expected.q_zero_point()
    assert torch.equal(interpreted.int_repr(), expected.int_repr())
    # (Compiled code fuses the dequantize's multiply-add: a step, rarely.)
    steps = (compiled.int_repr().int() - expected.int_repr().int()).abs()
    assert steps.max() <= 1 and (steps == 0).float().mean() > 0.99


def test_round_trips(tmp_path):
    torch.manual_seed(0)
    conv = _qconv()
    x = torch.quantize_per_tensor(torch.randn(1, 4, 5, 5), 0.05, 3, torch.quint8)
    tm = traced.trace(_Wrap(conv), x)
    expected = tm.interpret(x)[0]
    # Text and bytecode.
    again = traced.parse(tm.to_string())
    assert str(again) == str(tm)
    path = tmp_path / "m.mlirbc"
    tm.save(path)
    loaded = traced.load(path)
    assert str(loaded) == str(tm)
    assert torch.equal(loaded.interpret(x)[0].int_repr(), expected.int_repr())
    # JSON: "qparams" on quantized types and values.
    jpath = tmp_path / "m.json"
    tm.save(jpath)
    trace = jpath.read_text()
    assert '"qparams"' in trace and '"qint8"' in trace and '"quint8"' in trace
    back = traced.load(jpath)
    assert _graph_text(back) == _graph_text(tm)
    assert torch.equal(back.interpret(x)[0].int_repr(), expected.int_repr())


def test_json_qparams_are_checked(tmp_path):
    tm = traced.trace(_Wrap(torch.nn.Identity()), torch.randn(2))
    jpath = tmp_path / "m.json"
    tm.save(jpath)
    doc = json.loads(jpath.read_text())

    def load_with_input_type(ty):
        graph = doc["modules"][0]["graphs"][0]
        graph["inputs"][1]["type"] = ty
        jpath.write_text(json.dumps(doc))
        return traced.load(jpath)

    with pytest.raises(traced.Error, match="zero_point 300 is out of range of torch.quint8"):
        load_with_input_type({"tensor": {"dtype": "quint8", "shape": [2],
                                         "qparams": {"scale": 0.1, "zero_point": 300}}})
    with pytest.raises(traced.Error, match='a quantized dtype needs "qparams"'):
        load_with_input_type({"tensor": {"dtype": "quint8", "shape": [2]}})
    with pytest.raises(traced.Error, match="one scale and one zero point per index"):
        load_with_input_type({"tensor": {"dtype": "qint8", "shape": [2, 3], "qparams": {
            "scales": [0.1, 0.2], "zero_points": [0, 0, 0], "axis": 1}}})


def test_refusals():
    class Quantized(torch.nn.Module):
        def forward(self, x):
            return torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)

    x = torch.randn(2, 2)
    tm = traced.trace(Quantized(), x)
    # A compiled module returns a quantized output as torch's quantized
    # tensor (its storage integers come back from the compiled code).
    got = traced.compile(tm)(x)
    assert got.is_quantized and got.q_scale() == 0.1 and got.q_zero_point() == 0
    assert torch.equal(got.int_repr(), Quantized()(x).int_repr())
    text = """
traced.module root @M class "M" {
  graph @forward(%self: !traced.module<@M>, %q: tensor<2x2x!quant.uniform<u8:f32, 0.5:3>>) -> tensor<2x2xf32> {
    %0 = call_function "torch.add"(%q, %q) : (tensor<2x2x!quant.uniform<u8:f32, 0.5:3>>, tensor<2x2x!quant.uniform<u8:f32, 0.5:3>>) -> tensor<2x2xf32>
    output %0 : tensor<2x2xf32>
  }
}"""
    with pytest.raises(traced.Error, match="'torch.add' does not take quantized tensors"):
        traced.parse(text)


def test_compiled_quantized_inputs():
    """A compiled graph takes quantized inputs of its parameters (their
    storage integers), refusing others as the interpreter does."""
    torch.manual_seed(0)
    conv = _qconv()
    x = torch.quantize_per_tensor(torch.randn(1, 4, 5, 5), 0.05, 3, torch.quint8)
    tm = traced.trace(_Wrap(conv), x)
    compiled = traced.compile(tm)
    got, expected = compiled(x), conv(x)
    assert got.is_quantized and got.q_scale() == expected.q_scale()
    assert (got.int_repr().int() - expected.int_repr().int()).abs().max() <= 1
    with pytest.raises(traced.InputError, match="takes a quantized tensor"):
        compiled(x.dequantize())
    with pytest.raises(traced.InputError, match="parameters"):
        compiled(torch.quantize_per_tensor(torch.randn(1, 4, 5, 5), 0.1, 3, torch.quint8))


def test_interpret_checks_quantized_inputs():
    torch.manual_seed(0)
    conv = _qconv()
    x = torch.quantize_per_tensor(torch.randn(1, 4, 5, 5), 0.05, 3, torch.quint8)
    tm = traced.trace(_Wrap(conv), x)
    with pytest.raises(traced.InputError, match="takes a quantized tensor of dtype torch.quint8"):
        tm.interpret(x.dequantize())
    other = torch.quantize_per_tensor(torch.randn(1, 4, 5, 5), 0.1, 3, torch.quint8)
    with pytest.raises(traced.Error):
        tm.interpret(other)  # other parameters than the graph's input type


def _ops():
    """Float-in, float-out modules around one quantized op each."""
    import torch.ao.nn.quantized as nnq
    import torch.nn.intrinsic.quantized as nniq
    torch.manual_seed(0)

    def q(x, scale=0.05, zp=3):
        return torch.quantize_per_tensor(x, scale, zp, torch.quint8)

    class Op(torch.nn.Module):
        def __init__(self, fn, *mods):
            super().__init__()
            self.fn = fn
            self.mods = torch.nn.ModuleList(mods)

        def forward(self, x):
            return self.fn(self, x).dequantize()

    conv = _qconv()
    plain = nnq.Conv2d(4, 6, 3, stride=2, groups=2)
    plain.set_weight_bias(torch.quantize_per_tensor(torch.randn(6, 2, 3, 3) * 0.1, 0.004, 0, torch.qint8),
                          torch.randn(6))
    plain.scale, plain.zero_point = 0.05, 100
    lin = nniq.LinearReLU(20, 7)
    lin.set_weight_bias(torch.quantize_per_channel(torch.randn(7, 20) * 0.2, torch.rand(7, dtype=torch.float64) * 0.01 + 0.002,
                                                   torch.zeros(7, dtype=torch.long), 0, torch.qint8), torch.randn(7))
    lin.scale, lin.zero_point = 0.1, 30
    # A linear whose float32 sums could pass 2^24: traced-lower-quantized
    # sums it in exact chunks of input features, added in float64.
    wide = nnq.Linear(4096, 8)
    wide.set_weight_bias(torch.quantize_per_tensor(torch.randn(8, 4096), 0.01, 0, torch.qint8),
                         torch.randn(8))
    wide.scale, wide.zero_point = 5.0, 128
    return {
        # (Activations within 7 bits without VNNI, where torch's own sums
        # saturate otherwise: see BACKEND.)
        "linear summed in chunks": Op(lambda s, x: s.mods[0](q(
            (x.reshape(2, -1).repeat(1, 13)[:, :4096] * 5).clamp(max=255 * 0.05 if BACKEND == "onednn" else 127 * 0.05),
            0.05, 0)), wide),
        "conv_relu per channel": Op(lambda s, x: s.mods[0](q(x)), conv),
        "conv grouped per tensor": Op(lambda s, x: s.mods[0](q(x)), plain),
        "linear_relu": Op(lambda s, x: s.mods[0](q(x.flatten(1)[:, :20], 0.04, 120)), lin),
        "add_relu": Op(lambda s, x: torch.ops.quantized.add_relu(q(x), q(x * 0.5, 0.02, 200), 0.07, 5)),
        "mul": Op(lambda s, x: torch.ops.quantized.mul(q(x), q(x * 0.5 + 1, 0.03, 0), 0.09, 128)),
        "cat": Op(lambda s, x: torch.ops.quantized.cat([q(x), q(x, 0.02, 100)], 1, 0.06, 7)),
        "max_pool2d relu6 flatten": Op(lambda s, x: torch.flatten(F.relu6(F.max_pool2d(q(x), 3, 2, 1)), 1)),
        "hardtanh": Op(lambda s, x: F.hardtanh(q(x), -0.5, 2.0)),
        "adaptive_avg_pool2d": Op(lambda s, x: F.adaptive_avg_pool2d(q(x, 0.02, 100), 1)),
        "per channel": Op(lambda s, x: torch.quantize_per_channel(
            x, torch.tensor([0.01, 0.02, 0.05, 0.1], dtype=torch.float64), torch.tensor([0, 3, 250, 128]), 1, torch.quint8)),
    }


F = torch.nn.functional


@pytest.mark.parametrize("name", list(_ops()))
def test_compiled_op(name):
    """Each quantized op compiled (traced-lower-quantized) against torch and
    the interpreter, in quantization steps of the output."""
    op = _ops()[name]
    x = torch.randn(2, 4, 9, 9) * 2
    tm = traced.trace(op, x)
    compiled = traced.compile(tm)
    for seed in range(3):
        x = torch.randn(2, 4, 9, 9, generator=torch.Generator().manual_seed(seed)) * 2
        with torch.no_grad():
            expected = op(x)
        interpreted = tm.interpret(x)[0]
        got = compiled(x)
        step = expected.unique().sort().values.diff().min()
        # (The interpreter's storage integers are torch's; the dequantized
        # floats may differ in the last bit: torch's scalar tail computes
        # scale * (q - zero_point) where its vector body uses a fused
        # multiply-add.)
        torch.testing.assert_close(interpreted, expected, rtol=1e-6, atol=1e-6)
        # Compiled code fuses the float32 multiply-adds of the
        # requantization: at most one step off torch, rarely.
        steps = ((got - expected).abs() / step).round()
        assert steps.max() <= 1, (name, steps.max())
        assert (steps == 0).float().mean() >= 0.99, name


class _TextClassifier(torch.nn.Module):
    """EmbeddingBag and linears: the text classifier of torch's dynamic
    quantization tutorial."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.EmbeddingBag(1000, 64, mode="mean")
        self.fc1 = torch.nn.Linear(64, 128)
        self.fc2 = torch.nn.Linear(128, 4)

    def forward(self, text, offsets):
        return self.fc2(torch.relu(self.fc1(self.emb(text, offsets))))


@pytest.mark.parametrize("name", ["text classifier", "transformer encoder layer"])
def test_dynamic_quantization(name):
    """quantize_dynamic's Linear (int8 weights, the activation quantized per
    call from its range): interpreted and compiled against torch."""
    torch.manual_seed(0)
    if name == "text classifier":
        model = _TextClassifier().eval()
        inputs = (torch.randint(0, 1000, (40,)), torch.tensor([0, 10, 25]))
    else:
        # (Sequence-first: torch 1.13's own batch_first fast path fails on a
        # dynamically quantized layer, reading `weight` of its Linear.)
        model = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0).eval()
        inputs = (torch.randn(10, 2, 64),)
    quantized = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    tm = traced.trace(quantized, *inputs)
    assert 'class "torch.ao.nn.quantized.dynamic.modules.linear.Linear"' in str(tm)
    compiled = traced.compile(tm)
    for seed in range(2):
        gen = torch.Generator().manual_seed(seed)
        if name == "text classifier":
            inputs = (torch.randint(0, 1000, (40,), generator=gen), inputs[1])
        else:
            inputs = (torch.randn(10, 2, 64, generator=gen),)
        with torch.no_grad():
            expected = quantized(*inputs)
        torch.testing.assert_close(tm.interpret(*inputs)[0], expected, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(compiled(*inputs), expected, rtol=1e-5, atol=1e-5)


def test_qat_model():
    """A QAT model (prepare_qat_fx, a few training steps), its observers
    off: traced as it is, interpreted and compiled against torch; with an
    observer on, refused (it updates the module's statistics in place)."""
    from torch.ao.quantization import get_default_qat_qconfig_mapping
    from torch.ao.quantization.quantize_fx import prepare_qat_fx
    torch.manual_seed(0)
    model = _randomize(torchvision.models.resnet18().train())
    x = torch.randn(1, 3, 224, 224)
    prepared = prepare_qat_fx(model, get_default_qat_qconfig_mapping(BACKEND), (x,))
    for _ in range(2):
        prepared(torch.randn(2, 3, 224, 224))
    prepared.eval()
    tm = traced.trace(prepared, x)
    with pytest.raises(traced.InterpretError, match="disable observers before tracing"):
        tm.interpret(x)
    prepared.apply(torch.ao.quantization.disable_observer)
    tm = traced.trace(prepared, x)
    compiled = traced.compile(tm)
    with torch.no_grad():
        expected = prepared(x)
    for got in (tm.interpret(x)[0], compiled(x)):
        # The logits are fake-quantized: compare in their steps. Every layer
        # is a float convolution whose sum rounds in another order than
        # oneDNN's, so a fake quantization flips a step here and there and
        # the flips spread (measured: 97.7% within one step).
        steps = _steps(got, expected)
        assert (steps <= 1).float().mean() >= 0.95 and steps.max() <= 4, steps.max()
        assert got.argmax() == expected.argmax()


def test_reference_model_fused():
    """convert_to_reference_fx's float islands (dequantize, float op,
    quantize) become int8 ops with traced-fuse-quantized: resnet18's
    reference model then holds no float convolution, linear or add, and
    computes what torch's own int8 model (convert_fx) computes."""
    import copy
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, convert_to_reference_fx, prepare_fx
    torch.manual_seed(0)
    model = _randomize(torchvision.models.resnet18().eval())
    x = torch.randn(1, 3, 224, 224)
    prepared = prepare_fx(model, get_default_qconfig_mapping(BACKEND), (x,))
    with torch.no_grad():
        for _ in range(3):
            prepared(torch.randn(1, 3, 224, 224))
    reference = convert_to_reference_fx(copy.deepcopy(prepared))
    int8 = convert_fx(prepared)
    tm = traced.trace(reference, x)
    tm.run_passes("traced-flatten,traced-normalize,traced-fuse-quantized,traced-dce")
    text = str(tm)
    for float_op in ("torch.nn.functional.conv2d", "torch.nn.functional.linear", '"torch.add"'):
        assert float_op not in text, float_op
    assert text.count('call_function "traced.quantized.conv_relu2d"') == 9
    assert text.count('call_function "torch.ops.quantized.add_relu"') == 8
    compiled = traced.compile(tm)
    with torch.no_grad():
        expected = int8(x)
    for got in (tm.interpret(x)[0], compiled(x)):
        steps = _steps(got, expected)
        assert (steps <= 1).float().mean() >= 0.99 and steps.max() <= 2
        assert got.argmax() == expected.argmax()


def _qat_trained(model, prepare):
    """`model` prepared for QAT by `prepare`, a few training steps on random
    data (the BatchNorm statistics move), then its observers off and eval
    mode, as a QAT model is converted."""
    model = prepare(_randomize(model).train())
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(2)
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.randn(2, 3, 224, 224, generator=gen)).sum().backward()
        optimizer.step()
    model.apply(torch.ao.quantization.disable_observer)
    return model.eval()


# The QAT models take the "x86" qconfig on every CPU. With the "onednn"
# one (8-bit activations), torch's own converted int8 mobilenet_v2 is far
# from its QAT model on a Sapphire Rapids CPU (with VNNI and AMX, AMX off
# through ONEDNN_MAX_CPU_ISA alike): 41% of the logits within one step of
# the fake-quantized float model, 12 steps at most, where ours is within
# one step of it on 95%; with "x86" ours is within one step of torch's
# int8 model on 100% (measured 2026-12-01). Which side the "onednn"
# difference comes from is not found yet (docs/quantization.md).
QAT_BACKEND = "x86"


def _qat_fx(name):
    from torch.ao.quantization import get_default_qat_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_qat_fx
    x = torch.randn(1, 3, 224, 224)
    prepared = _qat_trained(getattr(torchvision.models, name)(), lambda m: prepare_qat_fx(
        m, get_default_qat_qconfig_mapping(QAT_BACKEND), (x,)))
    import copy
    return prepared, convert_fx(copy.deepcopy(prepared))


def _qat_eager(name):
    import copy
    import torchvision.models.quantization as tq

    def prepare(m):
        m.fuse_model(is_qat=True)
        m.qconfig = torch.ao.quantization.get_default_qat_qconfig(QAT_BACKEND)
        return torch.ao.quantization.prepare_qat(m)
    prepared = _qat_trained(getattr(tq, name)(quantize=False), prepare)
    return prepared, torch.ao.quantization.convert(copy.deepcopy(prepared))


@pytest.mark.parametrize("name,qat", [("resnet18", _qat_fx), ("resnet18", _qat_eager),
                                      ("mobilenet_v2", _qat_fx)],
                         ids=["fx-resnet18", "eager-resnet18", "fx-mobilenet_v2"])
def test_qat_converted_to_int8(name, qat):
    """traced-convert-qat turns a trained QAT model (observers off) into the
    int8 model torch's convert makes of it: BatchNorm folded into the
    convolutions, fake quantization as quantize calls and int8 ops; it then
    computes what torch's converted model computes."""
    torch.manual_seed(0)
    prepared, int8 = qat(name)
    x = torch.randn(1, 3, 224, 224)
    tm = traced.trace(prepared, x)
    tm.run_passes("traced-flatten,traced-normalize,traced-convert-qat,traced-dce")
    text = str(tm)
    for float_op in ("batch_norm", "fake_quant", "torch.nn.functional.conv2d",
                     "torch.nn.functional.linear"):
        assert float_op not in text, float_op
    assert "quantized.functional.conv2d" in text or "quantized.conv_relu2d" in text
    # As for the int8 models above: oneDNN's own float order flips a step
    # here and there (measured: fx resnet18 99.8% within one).
    _assert_logits(tm, int8)


def test_qat_conversion_refuses_observers_on():
    """An observer still on would still change its scale: the conversion
    refuses it, naming the fix, instead of freezing a scale torch's convert
    would recompute."""
    from torch.ao.quantization import get_default_qat_qconfig_mapping
    from torch.ao.quantization.quantize_fx import prepare_qat_fx
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).train()
    x = torch.randn(1, 3, 8, 8)
    prepared = prepare_qat_fx(model, get_default_qat_qconfig_mapping(BACKEND), (x,))
    prepared(torch.randn(2, 3, 8, 8))
    tm = traced.trace(prepared.eval(), x)
    with pytest.raises(traced.PassError, match="observer is on.*disable_observer"):
        tm.run_passes("traced-flatten,traced-normalize,traced-convert-qat")
