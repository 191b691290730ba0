"""Recurrent networks (nn.RNN, nn.LSTM, nn.GRU and their cells) as leaf
modules: traced as one call, interpreted against torch 1.13 eager; the
compiled path refuses them with a diagnostic naming the entry (no lowering
yet: docs/models.md, "Recurrent networks")."""
import itertools

import pytest
import torch
import torch.nn as nn

import traced


class Parent(nn.Module):
    def __init__(self, child):
        super().__init__()
        self.child = child

    def forward(self, x, *states):
        # LSTM's (h0, c0) comes as two graph inputs (graphs take tensors).
        if len(states) == 2:
            return self.child(x, (states[0], states[1]))
        return self.child(x, *states)


def _flat(value):
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flat(v)]
    return [value]


def _check(got, want, rtol=1e-5, atol=1e-5):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g = torch.as_tensor(g)
        assert tuple(g.shape) == tuple(w.shape)
        torch.testing.assert_close(g, w, rtol=rtol, atol=atol)


def _states(kind, layers, dirs, batch, hidden, proj):
    """Non-zero initial states of the module's shapes (batch None: unbatched)."""
    lead = (layers * dirs,) + ((batch,) if batch is not None else ())
    h = torch.randn(*lead, proj or hidden)
    if kind is nn.LSTM:
        return (h, torch.randn(*lead, hidden))
    return h


SEQ = [
    (kind, layers, bidir, batch_first, bias, states, unbatched)
    for kind in (nn.RNN, nn.LSTM, nn.GRU)
    for layers, bidir, batch_first, bias, states, unbatched in [
        (1, False, False, True, False, False),
        (2, False, False, True, True, False),
        (2, True, True, True, True, False),
        (1, True, False, False, False, False),
        (2, True, False, True, True, True),
        (1, False, True, True, False, True),
    ]
]


def _id(case):
    kind, layers, bidir, bf, bias, states, unb = case
    return (f"{kind.__name__}-L{layers}{'-bidir' if bidir else ''}"
            f"{'-bf' if bf else ''}{'' if bias else '-nobias'}"
            f"{'-h0' if states else ''}{'-unbatched' if unb else ''}")


@pytest.mark.parametrize("case", SEQ, ids=[_id(c) for c in SEQ])
def test_sequence_modules_interpreted(case):
    kind, layers, bidir, batch_first, bias, states, unbatched = case
    torch.manual_seed(0)
    m = kind(4, 5, num_layers=layers, bidirectional=bidir,
             batch_first=batch_first, bias=bias).eval()
    batch = None if unbatched else 2
    x = torch.randn(6, 4) if unbatched else \
        (torch.randn(2, 6, 4) if batch_first else torch.randn(6, 2, 4))
    args = [x]
    if states:
        args.append(_states(kind, layers, 2 if bidir else 1, batch, 5, 0))
    tm = traced.trace(Parent(m), *_flat(args))
    assert 'call_method %child["forward"]' in str(tm)
    with torch.no_grad():
        want = m(*args)
    _check(tm.interpret(*_flat(args)), want)


@pytest.mark.parametrize("states", [False, True])
@pytest.mark.parametrize("unbatched", [False, True])
def test_rnn_relu_and_lstm_proj(states, unbatched):
    torch.manual_seed(1)
    for m, kind, proj in [
            (nn.RNN(3, 4, num_layers=2, nonlinearity="relu"), nn.RNN, 0),
            (nn.LSTM(3, 6, num_layers=2, proj_size=2, bidirectional=True), nn.LSTM, 2)]:
        m.eval()
        x = torch.randn(5, 3) if unbatched else torch.randn(5, 2, 3)
        args = [x]
        if states:
            dirs = 2 if m.bidirectional else 1
            args.append(_states(kind, 2, dirs, None if unbatched else 2, m.hidden_size, proj))
        tm = traced.trace(Parent(m), *_flat(args))
        with torch.no_grad():
            want = m(*args)
        _check(tm.interpret(*_flat(args)), want)


CELLS = list(itertools.product((nn.RNNCell, nn.LSTMCell, nn.GRUCell),
                               (True, False), (True, False), (True, False)))


@pytest.mark.parametrize("kind,bias,states,unbatched", CELLS,
                         ids=[f"{k.__name__}-{b}-{s}-{u}" for k, b, s, u in CELLS])
def test_cells_interpreted(kind, bias, states, unbatched):
    torch.manual_seed(2)
    m = kind(4, 5, bias=bias).eval()
    x = torch.randn(4) if unbatched else torch.randn(3, 4)
    args = [x]
    if states:
        shape = (5,) if unbatched else (3, 5)
        h = torch.randn(*shape)
        args.append((h, torch.randn(*shape)) if kind is nn.LSTMCell else h)
    tm = traced.trace(Parent(m), *_flat(args))
    assert 'call_method %child["forward"]' in str(tm)
    with torch.no_grad():
        want = m(*args)
    _check(tm.interpret(*_flat(args)), want)


def test_rnn_cell_relu():
    m = nn.RNNCell(3, 4, nonlinearity="relu").eval()
    x, h = torch.randn(2, 3), torch.randn(2, 4)
    tm = traced.trace(Parent(m), x, h)
    with torch.no_grad():
        _check(tm.interpret(x, h), m(x, h))


class Unpacked(nn.Module):
    """Returns the LSTM's (output, (h, c)) as it is."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 4, num_layers=2)

    def forward(self, x, h, c):
        return self.lstm(x, (h, c))


def test_tuple_returning_graph():
    torch.manual_seed(3)
    m = Unpacked().eval()
    args = (torch.randn(5, 2, 3), torch.randn(2, 2, 4), torch.randn(2, 2, 4))
    tm = traced.trace(m, *args)
    with torch.no_grad():
        want = m(*args)
    _check(tm.interpret(*args), want)


class LanguageModel(nn.Module):
    def __init__(self, vocab=11, dim=6, hidden=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


def test_lstm_language_model_interpreted():
    torch.manual_seed(4)
    m = LanguageModel().eval()
    ids = torch.randint(0, 11, (2, 7))
    tm = traced.trace(m, ids)
    with torch.no_grad():
        _check(tm.interpret(ids), m(ids))


def test_torch_refusals_are_refused_while_tracing():
    gru = nn.GRU(4, 5, num_layers=2).eval()
    with pytest.raises(Exception, match="input_size"):
        traced.trace(Parent(gru), torch.randn(3, 2, 3))
    with pytest.raises(Exception, match="hidden size"):
        traced.trace(Parent(gru), torch.randn(3, 2, 4), torch.randn(1, 2, 5))


_GRU_CALL = """traced.module root @M class "m.M" {{
  graph @forward(%self: !traced.module<@M>, %a0: tensor<{x}xf32>, %a1: tensor<{h}xf32>, %a2: tensor<6x3xf32>, %a3: tensor<6x2xf32>) -> tensor<4x1x2xf32> {{
    %r = call_function "traced.nn.rnn"(input=%a0, hx=%a1, params=[%a2, %a3], mode="GRU", input_size=3, hidden_size=2, bias=False) : (tensor<{x}xf32>, tensor<{h}xf32>, tensor<6x3xf32>, tensor<6x2xf32>) -> tuple<tensor<4x1x2xf32>, tensor<1x1x2xf32>>
    %o = call_function "operator.getitem"(input=%r, index=0) : (tuple<tensor<4x1x2xf32>, tensor<1x1x2xf32>>) -> tensor<4x1x2xf32>
    output %o : tensor<4x1x2xf32>
  }}
}}
"""


@pytest.mark.parametrize("x,h,message", [
    ("4x1x3", "1x1x2", None),
    ("4x1x5", "1x1x2", "input_size. Expected 3"),
    ("4x1x3", "1x1x3", "expected h0 of size \\(1, 1, 2\\)"),
    ("4x1x3", "1x2", "hx should also be 3-D"),
])
def test_op_library_refusals(x, h, message):
    """What torch refuses, the result rule refuses too, naming the entry."""
    if message is None:
        traced.parse(_GRU_CALL.format(x=x, h=h))
        return
    with pytest.raises(Exception, match=message) as info:
        traced.parse(_GRU_CALL.format(x=x, h=h))
    assert "traced.nn.rnn" in str(info.value)


def test_training_dropout_refused():
    m = nn.LSTM(3, 4, num_layers=2, dropout=0.5)  # training mode
    x = torch.randn(5, 2, 3)
    with pytest.raises(Exception, match="dropout"):
        tm = traced.trace(Parent(m), x)
        tm.interpret(x)


def test_compile_refused_clearly():
    m = nn.GRU(3, 4).eval()
    x = torch.randn(5, 2, 3)
    tm = traced.trace(Parent(m), x)
    with pytest.raises(Exception, match="traced.nn.rnn"):
        traced.compile(tm)
