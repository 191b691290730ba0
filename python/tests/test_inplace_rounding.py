"""In-place arithmetic with a wider operand (issue 55): `x += y` with x
float32 and y float64 keeps x's dtype, but torch computes in float64 and
rounds once; compiled code used to round y to float32 first (1 ulp off)."""
import warnings

import numpy as np
import pytest
import torch

import traced


class InPlace(torch.nn.Module):
    def forward(self, x, y):
        x = x.clone()
        x += y
        z = x.clone()
        z.mul_(y)
        z.sub_(y, alpha=3)
        w = z.clone()
        w /= y
        return x, z, w


@pytest.mark.parametrize("dtypes", [(torch.float32, torch.float64),
                                    (torch.float16, torch.float32),
                                    (torch.bfloat16, torch.float32)],
                         ids=lambda d: f"{d[0]}+={d[1]}".replace("torch.", ""))
def test_in_place_ops_round_once(dtypes):
    torch.manual_seed(0)
    x = torch.randn(4096).to(dtypes[0])
    y = (torch.randn(4096, dtype=torch.float64) * 1e-3 + 1 / 3).to(dtypes[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", traced.TracerWarning)
        tm = traced.trace(InPlace(), x, y)
    expected = InPlace()(x, y)
    fn = traced.compile(tm)
    for got in (fn(x, y), tm.interpret(x, y)):
        for g, e in zip(got, expected):
            g = g if isinstance(g, torch.Tensor) else torch.from_numpy(np.asarray(g))
            # Exactly torch's values: one rounding, as torch rounds.
            torch.testing.assert_close(g, e, rtol=0, atol=0)
