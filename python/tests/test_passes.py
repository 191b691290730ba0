"""The graph-surgery pipeline on real models, checked by the interpreter."""
import numpy as np
import pytest
import torch
import torchvision

import traced
from models import real_models

MODELS = real_models()
PIPELINE = "traced-flatten,traced-normalize,traced-fuse-conv-bn,canonicalize,traced-dce"


def _exprs(tm):
    return sum(len(m.graph_named(g).exprs(recursive=False))
               for m in tm.modules() for g in m.info["graphs"])


def _conv_fed_batch_norms(tm):
    found = 0
    for m in tm.modules():
        for g in m.info["graphs"]:
            graph = m.graph_named(g)
            for e in graph.get_function_by_type("torch.nn.functional.batch_norm",
                                                recursive=False):
                producer = e.inputs[0].expr
                if producer is not None and "conv" in (producer.target or ""):
                    found += 1
            for e in graph.get_module_by_type("BatchNorm2d", recursive=False):
                found += 1
    return found


def _calls(tm, sym=None, method="forward"):
    """The calls one run of a graph makes (issue 5's measure): call_function,
    call_method on values and leaf-module calls, following calls of traced
    submodules into their graphs (each call site counts its callee's calls
    again); parameter getattrs and constants do not count."""
    sym = sym or tm.root_name
    count = 0
    for e in tm.module(sym).graph_named(method).exprs(recursive=False):
        if e.kind not in ("CallFunction", "CallMethod"):
            continue
        receiver = str(e.inputs[0].type) if e.kind == "CallMethod" else ""
        if receiver.startswith("!traced.module<@"):
            callee = receiver[len("!traced.module<@"):-1].strip('"')
            if e.target in tm.module(callee).info["graphs"]:
                count += _calls(tm, callee, e.target)
                continue
        count += 1
    return count


# Calls the pipeline removes (every other call stays, as its functional
# form): resnet18's 20 BatchNorms (fused into their convolutions);
# mobilenet_v2's 52 BatchNorms and its eval-mode Dropout (an identity);
# the TransformerEncoderLayer's 3 Dropouts and 2 `Tensor.dim()` calls
# (folded: the shapes are static). The SimpleModule and the MLP have nothing
# to fuse or fold.
REMOVED = {"resnet18": 20, "mobilenet_v2": 53, "transformer_encoder_layer": 5,
           "simple_module": 0, "mlp": 0}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_pipeline_keeps_outputs(name):
    module, x = MODELS[name]
    tm = traced.trace(module, x)
    before = tm.interpret(x.numpy())[0]
    exprs_before = _exprs(tm)
    calls_before = _calls(tm)
    tm.run_passes(PIPELINE)
    tm.verify()
    after = tm.interpret(x.numpy())[0]
    scale = float(np.abs(before).max())
    assert float(np.abs(after - before).max()) <= 1e-5 * scale
    assert _conv_fed_batch_norms(tm) == 0
    # Everything is in the root's forward now, and it reads parameters and
    # buffers directly (getattr of self), not through submodule chains.
    assert [m.name for m in tm.modules() if m.info["graphs"]] == [tm.root_name]
    getattrs = [line for line in str(tm.graph).splitlines() if "= getattr(" in line]
    assert getattrs and all('getattr(self, "' in line and line.endswith("-> (Tensor)")
                            for line in getattrs), getattrs
    if name in ("resnet18", "mobilenet_v2", "transformer_encoder_layer"):
        assert _exprs(tm) < exprs_before
    # No more calls than before, and fewer by what was fused or folded.
    assert _calls(tm) == calls_before - REMOVED[name]


def test_fold_scale_does_seed001s_surgery():
    from models import BoxHead
    head = BoxHead().eval()
    x = torch.randn(1, 8, 10, 10)
    tm = traced.trace(head, x)
    before = tm.interpret(x.numpy())[0]
    tm.run_passes("traced-fold-scale,traced-dce")
    tm.verify()
    text = str(tm.graph)
    assert "mul" not in text and "truediv" not in text
    assert "relu" in text and "conv2d" in text
    after = tm.interpret(x.numpy())[0]
    assert np.abs(after - before).max() <= 1e-5 * np.abs(before).max()
    with torch.no_grad():
        expected = head(x).numpy()
    assert np.abs(after - expected).max() <= 1e-4 * np.abs(expected).max()


def test_fuse_add_mul_keeps_outputs():
    class Chain(torch.nn.Module):
        def forward(self, x):
            return ((x + 1) + 2) * 3 * 4

    x = torch.randn(5)
    tm = traced.trace(Chain(), x)
    before = tm.interpret(x.numpy())[0]
    tm.run_passes("traced-fuse-add-mul")
    text = str(tm.graph)
    assert text.count("torch.add(") == 1 and text.count("torch.mul(") == 1
    assert np.allclose(tm.interpret(x.numpy())[0], before, rtol=1e-6)


def test_user_patterns_from_python():
    import pathlib
    patterns = pathlib.Path(__file__).resolve().parents[2] / "docs" / "patterns"

    class Clamped(torch.nn.Module):
        def forward(self, x):
            return torch.clamp(torch.relu(x), 0, 6)

    x = torch.randn(6) * 10
    tm = traced.trace(Clamped(), x)
    tm.run_passes("traced-normalize")
    tm.run_passes(f"traced-apply-patterns{{patterns={patterns / 'clamp-to-relu6.pdl.mlir'}}}")
    assert "relu6" in str(tm.graph) and "clamp" not in str(tm.graph)
    got = tm.interpret(x.numpy())[0]
    assert np.allclose(got, torch.clamp(torch.relu(x), 0, 6).numpy())
    with pytest.raises(traced.Error, match="cannot use the patterns"):
        tm.run_passes("traced-apply-patterns{patterns=/nonexistent.mlir}")


def test_fused_conv_bn_keeps_torchs_parameters():
    # traced-fuse-conv-bn writes the fused weight and bias into the conv's own
    # parameters, as torch.fx's fuse does: the same state_dict keys and
    # values, the same parameter count in the summary (it used to count only
    # the fc layer's 513,000, the fused weights having become constants).
    import torch.fx.experimental.optimization as fx_optimization
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    for mod in model.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            mod.running_mean.uniform_(-1, 1)
            mod.running_var.uniform_(0.5, 2)
            mod.weight.data.uniform_(0.5, 2)
            mod.bias.data.uniform_(-1, 1)
    x = torch.randn(1, 3, 64, 64)
    m = traced.trace(model, x)
    m.run_passes("traced-fuse-conv-bn,canonicalize,traced-dce")
    fused = fx_optimization.fuse(model)
    expected = fused.state_dict()
    got = m.state_dict()
    assert sorted(got) == sorted(expected)
    for key, value in expected.items():
        torch.testing.assert_close(got[key], value, rtol=1e-5, atol=1e-6)
    assert m.summary(print=False).total_params == \
        sum(p.numel() for p in fused.parameters())
    assert "fused_conv_bn" not in str(m)  # no constants: all in parameters
    torch.testing.assert_close(torch.as_tensor(m.interpret(x.numpy())[0]),
                               model(x), rtol=1e-4, atol=1e-4)
