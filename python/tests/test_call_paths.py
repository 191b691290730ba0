"""One set of call-path rules (docs/python.md, "Calling a traced module"):
issue 58, part 3."""
import re

import numpy as np
import pytest
import torch
import torch.nn as nn

import traced


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x, scale):
        return self.fc(x) * scale


@pytest.fixture(scope="module")
def scaled():
    torch.manual_seed(0)
    model = Scaled().eval()
    x, scale = torch.randn(2, 4), torch.randn(2, 3)
    m = traced.trace(model, x, scale)
    return model, m, traced.compile(m, cache=False), x, scale


def _interpret(m, *args, **kwargs):
    out = m.interpret(*args, **kwargs)
    return out[0] if len(out) == 1 else tuple(out)


# -- 3. one set of call-path rules -----------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float64, torch.int64, torch.float16])
def test_other_dtypes_raise_on_every_path_unless_cast(scaled, dtype):
    # The compiled callable used to cast these with numpy's same_kind rule,
    # where interpret raised.
    model, m, c, x, scale = scaled
    bad = (x * 4).to(dtype)
    name = str(dtype).replace("torch.", "")
    message = (f"input 1 ('x') has dtype {name}; @Scaled::forward takes "
               f"float32 there (pass cast=True to convert it)")
    for call in (c, lambda *a, **k: _interpret(m, *a, **k)):
        for given in (bad, bad.numpy()):
            with pytest.raises(traced.InputError) as info:
                call(given, scale)
            assert str(info.value) == message
    with pytest.raises(traced.InterpretError):  # (interpret's is one too)
        m.interpret(bad, scale)
    with torch.no_grad():
        want = model(bad.float(), scale)
    torch.testing.assert_close(c(bad, scale, cast=True), want)
    torch.testing.assert_close(_interpret(m, bad, scale, cast=True), want)


def test_inputs_are_numbered_from_one_and_named_alike(scaled):
    _, m, c, x, scale = scaled
    messages = []
    for call in (c, lambda *a, **k: m.interpret(*a, **k)):
        found = []
        for args in ((x, torch.zeros(3, 3)), (x,), (x, scale, scale),
                     (x.numpy(), "scale")):
            with pytest.raises(traced.InputError) as info:
                call(*args)
            found.append(str(info.value))
        with pytest.raises(traced.InputError) as info:
            call(x, scales=scale)
        found.append(str(info.value))
        messages.append(found)
    assert messages[0] == messages[1]
    assert messages[0] == [
        "input 2 ('scale') has shape (3, 3); @Scaled::forward takes (2, 3)",
        "@Scaled::forward takes 2 inputs (x, scale), got 1",
        "@Scaled::forward takes 2 inputs (x, scale), got 3",
        "input 2 ('scale') is a str; @Scaled::forward takes a float32 tensor there",
        "@Scaled::forward has no input named 'scales' (its inputs: x, scale)",
    ]


def test_none_inputs_are_numbered_alike():
    m = nn.EmbeddingBag(10, 3, mode="sum").eval()
    i = torch.tensor([[1, 2], [4, 5]])
    tm = traced.trace(m, i)
    c = traced.compile(tm, cache=False)
    for call in (c, tm.interpret):
        with pytest.raises(traced.InputError, match=re.escape(
                "input 2 ('offsets') was traced as None; @EmbeddingBag::forward "
                "takes only None there")):
            call(i, i)
    torch.testing.assert_close(c(i, per_sample_weights=None), m(i))
    torch.testing.assert_close(tm.interpret(i, offsets=None)[0], m(i))


def test_torch_in_torch_out_numpy_in_numpy_out(scaled):
    model, m, c, x, scale = scaled
    with torch.no_grad():
        want = model(x, scale)
    got = c(x, scale)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.float32
    torch.testing.assert_close(got, want)
    got = m.interpret(x, scale)[0]
    assert isinstance(got, torch.Tensor)
    torch.testing.assert_close(got, want)
    # numpy in, numpy out; a torch tensor among numpy arrays: torch out.
    for out in (c(x.numpy(), scale.numpy()), m.interpret(x.numpy(), scale.numpy())[0]):
        assert isinstance(out, np.ndarray)
        torch.testing.assert_close(torch.from_numpy(out), want)
    assert isinstance(c(x.numpy(), scale), torch.Tensor)


def test_inputs_by_name(scaled):
    model, m, c, x, scale = scaled
    with torch.no_grad():
        want = model(x, scale)
    torch.testing.assert_close(c(scale=scale, x=x), want)
    torch.testing.assert_close(m.interpret(x, scale=scale)[0], want)
    assert c.input_names == ["x", "scale"]
    with pytest.raises(traced.InputError, match=re.escape(
            "input 1 ('x') of @Scaled::forward is given twice")):
        c(x, x=x, scale=scale)


def test_bfloat16_inputs_take_the_same_forms_on_both_paths():
    class Double(nn.Module):
        def forward(self, t):
            return t * 2

    x = torch.randn(3, 5).bfloat16()
    m = traced.trace(Double(), x)
    c = traced.compile(m, cache=False)
    bits = x.view(torch.int16).numpy().view(np.uint16)
    for call in (c, lambda *a, **k: m.interpret(*a, **k)[0]):
        for given in (x, bits):
            got = call(given)
            assert got.dtype == torch.bfloat16
            torch.testing.assert_close(got, x * 2)
        with pytest.raises(traced.InputError, match="has dtype float32.*raw bits"):
            call(x.float().numpy())
        torch.testing.assert_close(call(x.float().numpy(), cast=True), x * 2)
