"""Leaf-module rows: a module the op library describes is one call in its
parent's graph (no graph of its own), and runs as its functional does."""
import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import traced


class Parent(nn.Module):
    def __init__(self, child):
        super().__init__()
        self.child = child

    def forward(self, *args):
        return self.child(*args)


def _randomized_bn(bn):
    """An eval BatchNorm whose statistics and affine parameters are not the
    identity (else the comparison proves little)."""
    with torch.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-1, 1)
    return bn.eval()


def _probs(*shape):
    return torch.rand(*shape)


CASES = [
    (nn.MSELoss(reduction="sum"), [torch.randn(2, 3), torch.randn(2, 3)]),
    (nn.L1Loss(reduction="none"), [torch.randn(4), torch.randn(4)]),
    (nn.SmoothL1Loss(beta=0.5), [torch.randn(2, 3), torch.randn(2, 3)]),
    (nn.HuberLoss(delta=2.0), [torch.randn(5), torch.randn(5)]),
    (nn.SoftMarginLoss(), [torch.randn(5), torch.sign(torch.randn(5))]),
    (nn.BCELoss(weight=torch.rand(3)), [_probs(2, 3), _probs(2, 3)]),
    (nn.BCEWithLogitsLoss(pos_weight=torch.rand(3) + 0.5), [torch.randn(2, 3), _probs(2, 3)]),
    (nn.KLDivLoss(reduction="batchmean"), [F.log_softmax(torch.randn(2, 3), 1), F.softmax(torch.randn(2, 3), 1)]),
    (nn.NLLLoss(weight=torch.rand(4), ignore_index=1), [F.log_softmax(torch.randn(3, 4), 1), torch.tensor([1, 0, 3])]),
    (nn.CrossEntropyLoss(label_smoothing=0.1), [torch.randn(3, 4), torch.tensor([1, 0, 3])]),
    (nn.PixelShuffle(2), [torch.randn(1, 8, 2, 3)]),
    (nn.PixelUnshuffle(2), [torch.randn(1, 2, 4, 2)]),
    (nn.ChannelShuffle(2), [torch.randn(1, 4, 3, 3)]),
    (nn.Softmax2d(), [torch.randn(2, 3, 4, 4)]),
    (nn.Unflatten(1, (2, 3)), [torch.randn(4, 6)]),
    (nn.Dropout2d(0.4), [torch.randn(1, 2, 3, 3)]),
    (nn.AlphaDropout(0.4), [torch.randn(3, 3)]),
    (nn.MaxPool1d(3, 2, padding=1, ceil_mode=True), [torch.randn(2, 3, 8)]),
    (nn.MaxPool2d((3,), stride=1, dilation=(2,)), [torch.randn(1, 2, 7, 7)]),
    (nn.MaxPool3d(2, stride=(1, 2, 2)), [torch.randn(1, 2, 3, 4, 4)]),
    (nn.AvgPool1d(3, 2, 1, count_include_pad=False), [torch.randn(2, 3, 8)]),
    (nn.AvgPool2d((3,), padding=(1,)), [torch.randn(1, 2, 6, 6)]),
    (nn.AvgPool3d(2, divisor_override=3), [torch.randn(1, 2, 4, 4, 4)]),
    (nn.AdaptiveAvgPool1d(3), [torch.randn(2, 3, 7)]),
    (nn.AdaptiveAvgPool3d((2, None, 3)), [torch.randn(1, 2, 5, 3, 7)]),
    (nn.AdaptiveMaxPool1d(3), [torch.randn(2, 3, 7)]),
    (nn.AdaptiveMaxPool2d((None, 2)), [torch.randn(1, 2, 3, 5)]),
    (nn.AdaptiveMaxPool3d(2), [torch.randn(1, 2, 4, 5, 6)]),
    (nn.LPPool1d(2, 3, stride=2), [torch.randn(2, 3, 9)]),
    (nn.LPPool2d(3, (2, 3)), [torch.rand(1, 2, 6, 6)]),
    (nn.Conv2d(2, 3, (2, 3), padding="same"), [torch.randn(1, 2, 5, 6)]),
    (nn.Conv3d(2, 4, 3, stride=2, padding=1, groups=2), [torch.randn(1, 2, 5, 6, 7)]),
    (_randomized_bn(nn.BatchNorm3d(3)), [torch.randn(2, 3, 2, 4, 3)]),
    (nn.ConvTranspose1d(2, 3, 3, stride=2, padding=1, output_padding=1), [torch.randn(2, 2, 5)]),
    (nn.ConvTranspose2d(4, 6, 3, stride=(2, 1), groups=2, dilation=2), [torch.randn(1, 4, 4, 5)]),
    (nn.ConvTranspose3d(2, 2, 2, stride=2, bias=False), [torch.randn(1, 2, 2, 3, 2)]),
]


@pytest.mark.parametrize("module, inputs", CASES, ids=[type(m).__name__ for m, _ in CASES])
def test_leaf_module_is_one_call(module, inputs):
    torch.manual_seed(0)
    parent = Parent(module).eval()
    tm = traced.trace(parent, *inputs)
    text = str(tm)
    assert '["forward"]' in text
    # The child has no graph of its own: the op library gives its meaning.
    assert text.count("graph @forward") == 1
    with torch.no_grad():
        want = parent(*inputs)
    got = tm.interpret(*inputs)[0]
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


def test_unknown_torch_modules_get_graphs_of_their_own():
    """A torch.nn module the op library does not describe (nn.ConstantPad2d,
    nn.ZeroPad2d) is traced into, with a graph of its own, by both tracers:
    recorded as a leaf it could not run."""
    m = torch.nn.Sequential(torch.nn.ConstantPad2d((1, 2, 0, 1), 3.5),
                            torch.nn.ZeroPad2d(1), torch.nn.ReLU()).eval()
    x = torch.randn(1, 2, 3, 3)
    for mode in ("symbolic", "concrete"):
        tm = traced.trace(m, x, mode=mode)
        text = str(tm)
        assert 'class "torch.nn.modules.padding.ConstantPad2d"' in text
        assert 'call_function "torch.nn.functional.pad"' in text
        np.testing.assert_allclose(tm.interpret(x)[0], m(x).numpy(), rtol=1e-6)


def test_modules_with_pre_hooks_are_traced_into():
    """nn.utils.weight_norm computes a Conv1d's or Linear's weight in a
    forward pre-hook: such a module is traced into (its weight, as the hook
    left it, a constant), in both modes, and compiles."""
    m = torch.nn.Sequential(
        torch.nn.utils.weight_norm(torch.nn.Conv1d(4, 8, 3)), torch.nn.ReLU(),
        torch.nn.utils.weight_norm(torch.nn.Linear(6, 5), dim=None)).eval()
    x = torch.randn(2, 4, 8)
    want = m(x).detach().numpy()
    for mode in ("symbolic", "concrete"):
        tm = traced.trace(m, x, mode=mode)
        assert "torch.nn.modules.conv.Conv1d" in str(tm)
        got = tm.interpret(x)
        got = got[0] if isinstance(got, (list, tuple)) else got
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(traced.compile(tm)(x.numpy()), want, rtol=1e-5, atol=1e-6)
