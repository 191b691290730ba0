"""A small language model assembled from nn modules (issue 15's check):
token and positional embeddings, a TransformerEncoder with a causal mask
and a padding mask, a final LayerNorm, and a linear head tied to the token
embedding. Traced, interpreted and compiled, against torch eager."""
import numpy as np
import pytest
import torch
import torch.nn as nn

import traced


class TinyLM(nn.Module):
    def __init__(self, vocab=50, d=32, heads=4, layers=2, ctx=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        layer = nn.TransformerEncoderLayer(d, heads, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied

    def forward(self, ids, pad):
        n = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(n))
        causal = torch.triu(torch.full((n, n), float("-inf")), diagonal=1)
        x = self.encoder(x, mask=causal, src_key_padding_mask=pad)
        return self.head(self.norm(x))


def _inputs():
    torch.manual_seed(0)
    ids = torch.randint(0, 50, (2, 10))
    pad = torch.zeros(2, 10, dtype=torch.bool)
    pad[1, 7:] = True  # the second sequence has 7 tokens
    return ids, pad


def _close(got, want):
    # Element by element, float32's sums in another order than torch's.
    torch.testing.assert_close(torch.as_tensor(np.asarray(got)),
                               torch.as_tensor(want), rtol=1e-4, atol=1e-5)


@pytest.fixture(scope="module")
def traced_lm():
    torch.manual_seed(0)
    model = TinyLM().eval()
    ids, pad = _inputs()
    with torch.no_grad():
        want = model(ids, pad).numpy()
    return traced.trace(model, ids, pad), want, (ids, pad)


def test_interpreter_matches_torch(traced_lm):
    tm, want, (ids, pad) = traced_lm
    _close(tm.interpret(ids, pad)[0], want)


def test_compiled_matches_torch(traced_lm):
    tm, want, (ids, pad) = traced_lm
    compiled = traced.compile(tm)
    # (A compiled module with one output returns that array.)
    got = compiled(ids, pad)
    assert got.shape == want.shape
    _close(got, want)
