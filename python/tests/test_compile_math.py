"""Compiled f32 transcendental functions against torch (docs/cpu.md,
"Transcendental functions"): exp, tanh and erf are upstream's polynomial
approximations, vectorized; they stay within 4 ulp of torch, and agree on
infinities, NaNs, zeros, subnormals and overflow. log keeps libm."""
import numpy as np
import pytest
import torch

import traced

SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e-40,
                    -1e-40, 1e-8, 88.7, 89.0, -87.0, -88.8, -104.0, -110.0,
                    3.4e38, -3.4e38, 0.5, -0.5, 9.0, -9.0, 20.0], np.float32)


def inputs():
    rng = np.random.default_rng(0)
    # An odd count: the last vector is a remainder.
    return np.concatenate([np.linspace(-20, 20, 40001, dtype=np.float32),
                           rng.standard_normal(20000).astype(np.float32) * 3,
                           SPECIAL])


def ulps(got, want):
    """|got - want| in units of the last place of want (0 where equal,
    NaN-for-NaN and infinities of the same sign)."""
    got64, want64 = got.astype(np.float64), want.astype(np.float64)
    same = (got64 == want64) | (np.isnan(got64) & np.isnan(want64))
    spacing = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        d = np.abs(got64 - want64) / spacing
    d[same] = 0
    return d


class Apply(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


FUNCTIONS = {
    "exp": torch.exp,
    "log": lambda x: torch.log(torch.abs(x)),
    "tanh": torch.tanh,
    "erf": torch.erf,
    "sigmoid": torch.sigmoid,
    "gelu": torch.nn.functional.gelu,
    "silu": torch.nn.functional.silu,
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_float32_within_4_ulp(name):
    fn = FUNCTIONS[name]
    x = inputs()
    compiled = traced.compile(traced.trace(Apply(fn), torch.from_numpy(x),
                                           mode="concrete"), progress=False)
    got = compiled(x)
    want = fn(torch.from_numpy(x)).numpy()
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite & ~np.isnan(want)],
                          want[~finite & ~np.isnan(want)])
    if name in ("exp", "log", "tanh", "erf"):
        d = ulps(got[finite], want[finite])
        assert d.max() <= 4, x[finite][np.argmax(d)]
    else:
        # Composites (gelu = x * (1 + erf(x / sqrt 2)) / 2, ...) cancel to
        # near zero in their tails, where ulps of the result mean nothing.
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["exp", "tanh", "erf"])
def test_float64_keeps_libm(name):
    fn = FUNCTIONS[name]
    x = inputs().astype(np.float64)
    compiled = traced.compile(traced.trace(Apply(fn), torch.from_numpy(x),
                                           mode="concrete"), progress=False)
    got, want = compiled(x), fn(torch.from_numpy(x)).numpy()
    finite = np.isfinite(want)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[finite], want[finite], rtol=4e-16, atol=0)
