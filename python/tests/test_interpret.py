"""The reference interpreter against torch eager."""
import math

import numpy as np
import pytest
import torch
import torchvision

import traced
from models import SimpleModule, real_models

MODELS = real_models()


def _check_close(got, expected, tol=1e-4):
    expected = expected.detach().numpy()
    assert got.shape == expected.shape and got.dtype == expected.dtype
    scale = max(float(np.abs(expected).max()), 1e-30)
    assert float(np.abs(got - expected).max()) <= tol * scale


@pytest.mark.parametrize("name", sorted(MODELS))
def test_models_match_torch(name):
    module, x = MODELS[name]
    tm = traced.trace(module, x)
    with torch.no_grad():
        expected = module(x)
    got = tm.interpret(x.numpy())
    assert len(got) == 1
    _check_close(got[0], expected)
    # A second run reuses the cached plans and weights.
    _check_close(tm.interpret(x.numpy())[0], expected)


@pytest.mark.parametrize("name", ["shufflenet_v2_x0_5", "mobilenet_v3_small",
                                  "squeezenet1_0", "efficientnet_b0", "vit"])
def test_other_torchvision_models(name):
    if name == "vit":
        module = torchvision.models.VisionTransformer(
            image_size=32, patch_size=16, num_layers=2, num_heads=2,
            hidden_dim=32, mlp_dim=64)
        x = torch.randn(1, 3, 32, 32)
    else:
        module, x = getattr(torchvision.models, name)(), torch.randn(1, 3, 96, 96)
    module.eval()
    tm = traced.trace(module, x)
    with torch.no_grad():
        expected = module(x)
    _check_close(tm.interpret(x.numpy())[0], expected)


def test_after_surgery_the_interpreter_sees_the_edit():
    tm = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    x = np.random.rand(3, 4).astype(np.float32)
    before = tm.interpret(x)[0]
    tm.linear.bias = tm.linear.bias + 1
    assert np.allclose(tm.interpret(x)[0], before + 1)


def test_nan_and_inf_propagate():
    tm = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    x = np.zeros((3, 4), np.float32)
    x[0, 0] = math.nan
    x[1, 1] = math.inf
    out = tm.interpret(x)[0]
    assert np.isnan(out[0]).all()
    assert not np.isfinite(out[1]).all()
    assert np.isfinite(out[2]).all()


def test_input_errors_name_the_input():
    # The call-path rules (python/traced/_calls.py), as compiled modules
    # check them: inputs numbered from 1 after self, with their names.
    tm = traced.trace(SimpleModule().eval(), torch.zeros(3, 4))
    with pytest.raises(traced.InterpretError,
                       match=r"@SimpleModule::forward takes 1 input \(x\), got 2"):
        tm.interpret(np.zeros((3, 4), np.float32), np.zeros(1, np.float32))
    with pytest.raises(traced.InputError, match=r"input 1 \('x'\) has shape \(2, 4\); "
                                                r"@SimpleModule::forward takes \(3, 4\)"):
        tm.interpret(np.zeros((2, 4), np.float32))
    with pytest.raises(traced.InputError, match="input 1 \\('x'\\) has dtype float64"):
        tm.interpret(np.zeros((3, 4), np.float64))


def test_unknown_target_is_named_with_its_location():
    # (torch.poisson is random, which the op library leaves out.)
    class UsesPoisson(torch.nn.Module):
        def forward(self, x):
            return torch.poisson(x)

    tm = traced.trace(UsesPoisson(), torch.ones(3), mode="symbolic")
    with pytest.raises(traced.Error, match=r":\d+:\d+: error: the op library does not "
                                           r"know 'torch.poisson'"):
        tm.interpret(np.ones(3, np.float32))
