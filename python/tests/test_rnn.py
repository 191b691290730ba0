"""Recurrent networks (nn.RNN, nn.LSTM, nn.GRU and their cells) as leaf
modules: traced as one call, interpreted and compiled (an scf.for over the
time steps) against torch 1.13 eager (docs/models.md, "Recurrent
networks")."""
import itertools

import numpy as np
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


class Flat(nn.Module):
    """Returns the module's result flattened: (output, h_n[, c_n]) or a
    cell's h[, c] (compiled graphs return tensors, not nested tuples)."""

    def __init__(self, child):
        super().__init__()
        self.child = child

    def forward(self, x, *states):
        if len(states) == 2:
            states = ((states[0], states[1]),)
        r = self.child(x, *states)
        return tuple(_flat(r)) if isinstance(r, tuple) else r


PATHS = ["interpreted", "compiled"]


def _run(m, args, path):
    """The module's result through `path` (compiled graphs return the
    flattened result: Flat) against torch; 1e-4 compiled (the CPU pipeline
    reassociates the sums), 1e-5 interpreted (double accumulation)."""
    tm = traced.trace(Flat(m), *_flat(args))
    assert 'call_method %child["forward"]' in str(tm)
    flat = _flat(args)
    got = tm.interpret(*flat) if path == "interpreted" else \
        traced.compile(tm)(*flat)
    tol = 1e-5 if path == "interpreted" else 1e-4
    with torch.no_grad():
        want = m(*args)
    _check(got, want, rtol=tol, atol=tol)


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


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", SEQ, ids=[_id(c) for c in SEQ])
def test_sequence_modules(case, path):
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
    _run(m, args, path)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("states", [False, True])
@pytest.mark.parametrize("unbatched", [False, True])
def test_rnn_relu_and_lstm_proj(states, unbatched, path):
    torch.manual_seed(1)
    for m, kind, proj in [
            (nn.RNN(3, 4, num_layers=2, nonlinearity="relu"), nn.RNN, 0),
            (nn.LSTM(3, 6, num_layers=2, proj_size=2, bidirectional=True), nn.LSTM, 2),
            (nn.LSTM(3, 6, proj_size=4, batch_first=True), nn.LSTM, 4)]:
        m.eval()
        x = torch.randn(5, 3) if unbatched else \
            (torch.randn(2, 5, 3) if m.batch_first else torch.randn(5, 2, 3))
        args = [x]
        if states:
            dirs = 2 if m.bidirectional else 1
            args.append(_states(kind, m.num_layers, dirs,
                                None if unbatched else 2, m.hidden_size, proj))
        _run(m, args, path)


CELLS = list(itertools.product((nn.RNNCell, nn.LSTMCell, nn.GRUCell),
                               (True, False), (True, False), (True, False)))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("kind,bias,states,unbatched", CELLS,
                         ids=[f"{k.__name__}-{b}-{s}-{u}" for k, b, s, u in CELLS])
def test_cells(kind, bias, states, unbatched, path):
    torch.manual_seed(2)
    m = kind(4, 5, bias=bias).eval()
    x = torch.randn(4) if unbatched else torch.randn(3, 4)
    args = [x]
    if states:
        shape = (5,) if unbatched else (3, 5)
        h = torch.randn(*shape)
        args.append((h, torch.randn(*shape)) if kind is nn.LSTMCell else h)
    _run(m, args, path)


@pytest.mark.parametrize("path", PATHS)
def test_rnn_cell_relu(path):
    torch.manual_seed(2)
    m = nn.RNNCell(3, 4, nonlinearity="relu").eval()
    _run(m, [torch.randn(2, 3), torch.randn(2, 4)], path)


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


def test_lstm_output_and_states_compiled():
    """The (output, (h_n, c_n)) of a 2-layer LSTM, read through getitems of
    getitems (Unpacked's trace) and compiled."""
    torch.manual_seed(3)
    m = Unpacked().eval()
    args = (torch.randn(5, 2, 3), torch.randn(2, 2, 4), torch.randn(2, 2, 4))

    class Reads(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = m

        def forward(self, x, h, c):
            out, (hn, cn) = self.inner(x, h, c)
            return out, hn, cn

    tm = traced.trace(Reads(), *args)
    text = str(tm)
    assert 'call_function "operator.getitem"(input=%getitem' in text
    with torch.no_grad():
        want = m(*args)
    _check(traced.compile(tm)(*args), want, rtol=1e-4, atol=1e-4)


def test_tuple_returning_graph_compiled():
    """A graph returning the nested tuple itself compiles: the compiled code
    returns its leaves (convert-traced-to-linalg reads the tuple outputs with
    operator.getitem) and the call nests them again, (output, (h, c)) as
    torch returns it."""
    torch.manual_seed(4)
    m = Unpacked().eval()
    args = (torch.randn(5, 2, 3), torch.randn(2, 2, 4), torch.randn(2, 2, 4))
    got = traced.compile(traced.trace(m, *args))(*args)
    want = m(*args)
    assert isinstance(got, tuple) and len(got) == 2
    assert isinstance(got[1], tuple) and len(got[1]) == 2
    _check(got, want)
    # numpy in, numpy out, nested the same way.
    got = traced.compile(traced.trace(m, *args))(*[a.numpy() for a in args])
    assert isinstance(got[1], tuple) and isinstance(got[1][0], np.ndarray)
    _check(got, want)


@pytest.mark.parametrize("kind,batch_first,bidir", [
    (nn.LSTM, False, False), (nn.GRU, True, True), (nn.RNN, False, True)])
def test_dynamic_sequence_length(kind, batch_first, bidir):
    torch.manual_seed(5)
    m = kind(3, 4, num_layers=2, batch_first=batch_first,
             bidirectional=bidir).eval()
    seq_dim = 1 if batch_first else 0

    def make(t):
        shape = [2, 3]
        shape.insert(seq_dim, t)
        return torch.randn(*shape)

    tm = traced.trace(Flat(m), make(6), dynamic_dims=[{seq_dim: "seq"}])
    f = traced.compile(tm)
    for t in (1, 2, 5, 9):
        x = make(t)
        with torch.no_grad():
            want = m(x)
        _check(f(x), want, rtol=1e-4, atol=1e-4)


def test_lstm_language_model_compiled_dynamic_length():
    torch.manual_seed(4)
    m = LanguageModel().eval()
    tm = traced.trace(m, torch.randint(0, 11, (2, 7)),
                      dynamic_dims=[{1: "seq"}])
    assert "tensor<2x?x" in str(tm)
    f = traced.compile(tm)
    for t in (1, 3, 7, 12):
        ids = torch.randint(0, 11, (2, t))
        with torch.no_grad():
            want = m(ids)
        _check(f(ids), want, rtol=1e-4, atol=1e-4)


def test_compiled_from_text():
    """The entry called in a parsed graph (parameters as inputs) compiles."""
    text = _GRU_CALL.format(x="4x1x3", h="1x1x2")
    f = traced.compile(traced.parse(text))
    x, h = torch.randn(4, 1, 3), torch.randn(1, 1, 2)
    w_ih, w_hh = torch.randn(6, 3), torch.randn(6, 2)
    gru = nn.GRU(3, 2, bias=False).eval()
    with torch.no_grad():
        gru.weight_ih_l0.copy_(w_ih)
        gru.weight_hh_l0.copy_(w_hh)
        want = gru(x, h)[0]
    _check(f(x, h, w_ih, w_hh), want, rtol=1e-4, atol=1e-4)
