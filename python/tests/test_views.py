"""In-place ops through views (issue 58, "no silent wrong answers"): a
write into a view updates its base, and every other view of that memory
read later sees it, as in torch eager; what the tracers cannot express is
refused with a TraceError at the user's line (docs/python.md, "In-place ops
and views"). Every case runs in both tracing modes (and "auto"), through
the interpreter and compiled code, against torch eager."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import traced

MODES = ["symbolic", "concrete", "auto"]

# ("auto" says when it traces concretely, as it does for the refusals here.)
pytestmark = pytest.mark.filterwarnings("ignore::traced.TracerWarning")


from models import Fn1, Fn2  # noqa: E402


def _module(fn, arity):
    return {1: Fn1, 2: Fn2}[arity](fn)


def _as_list(value):
    """A result's tensors, flat (a returned split tuple gives its elements)."""
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _as_list(v)]
    return [value]


def _same(got, expected):
    got, expected = _as_list(got), _as_list(expected)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        g = torch.from_numpy(np.asarray(g)) if not isinstance(g, torch.Tensor) else g
        torch.testing.assert_close(g, e)


def check(fn, *inputs, modes=MODES, compiled=True, dynamic_dims=None):
    """Traces `fn` (as a module's forward) in each mode and compares the
    interpreter and the compiled code with torch eager."""
    expected = fn(*[x.clone() for x in inputs])
    for mode in modes:
        tm = traced.trace(_module(fn, len(inputs)), *inputs, mode=mode,
                          dynamic_dims=dynamic_dims)
        _same(tm.interpret(*inputs), expected)
        if compiled:
            _same(traced.compile(tm)(*inputs), expected)
    return tm


# ---------------------------------------------------------------------------
# The two cases
# ---------------------------------------------------------------------------

def copy_into_slice(x, y):
    x[2:6].copy_(y)
    return x


def mul_through_view(x):
    v = x.view(-1)
    v.mul_(2)
    return x + 1


@pytest.mark.parametrize("mode", MODES)
def test_copy_into_a_slice(mode):
    check(copy_into_slice, torch.randn(8, 3), torch.randn(4, 3), modes=[mode])


@pytest.mark.parametrize("mode", MODES)
def test_mul_through_a_view(mode):
    tm = check(mul_through_view, torch.randn(4, 3), modes=[mode])
    assert "reshape_as" in str(tm)


# ---------------------------------------------------------------------------
# One case per view op: the write, then the base read
# ---------------------------------------------------------------------------

def _getitem_int(x):
    x[1].add_(1)
    return x


def _getitem_none_ellipsis(x):
    x[None, ..., 1].mul_(3)
    return x * 1


def _getitem_steps(x):
    x[::2, 1:].fill_(0.5)
    return x


def _getitem_negative(x):
    x[-2:, -1].sub_(4)
    return x


def _select(x):
    x.select(1, 2).zero_()
    return x


def _narrow(x):
    x.narrow(0, 1, 2).mul_(2)
    return x * 1


def _aten_slice(x):
    torch.ops.aten.slice(x, 1, 1, 3).add_(1)
    return x


def _reshape(x):
    x.reshape(3, 4)[0].add_(1)
    return x


def _flatten(x):
    x.flatten().sub_(1)
    return x


def _unflatten(x):
    x.unflatten(1, (2, 2)).mul_(2)
    return x


def _view_as(x, y):
    x.view_as(y).add_(y)
    return x


def _unsqueeze(x):
    x.unsqueeze(0).mul_(2)
    return x


def _squeeze(x):
    x[:, :1].squeeze(1).add_(1)
    return x


def _transpose(x):
    x.transpose(0, 1)[1].add_(5)
    return x


def _t(x):
    x.t().mul_(2)
    return x + 0


def _permute(x):
    x.permute(2, 0, 1)[0].zero_()
    return x


def _T(x):
    x.T[1:].add_(1)
    return x


def _mT(x):
    x.mT[0].add_(1)
    return x


def _movedim(x):
    x.movedim(0, -1)[..., 0].fill_(1.0)
    return x


def _swapaxes(x):
    torch.swapaxes(x, 0, 2)[0].mul_(-1)
    return x


def _unbind(x):
    x.unbind(0)[1].mul_(2)
    return x


def _unbind_dim(x):
    x.unbind(1)[2].add_(1)
    return x


def _split(x):
    x.split(2, dim=1)[1].zero_()
    return x


def _split_unpacked(x):
    a, b = x.split(2, dim=1)  # (torch.fx cannot unpack a Proxy)
    b.zero_()
    return x


def _chunk(x):
    parts = x.chunk(3, 0)
    parts[1].add_(1)
    return x


def _tensor_split(x):
    parts = torch.tensor_split(x, (1, 3), dim=1)
    parts[1].mul_(3)
    return x


def _as_strided_slice(x):
    # An as_strided that is a slice of x: written back as the slice.
    x.as_strided((2, 4), (4, 1), 4).mul_(2)
    return x


def _detach(x):
    x.detach().add_(1)
    return x


def _contiguous(x):
    c = x.contiguous()  # x itself
    c.add_(1)
    return x


def _to_same_dtype(x):
    x.to(torch.float32)[0].add_(1)
    return x


V34 = lambda: torch.randn(3, 4)
V234 = lambda: torch.randn(2, 3, 4)

CASES = {
    "getitem int": (_getitem_int, [V34]),
    "getitem None, Ellipsis": (_getitem_none_ellipsis, [V234]),
    "getitem steps": (_getitem_steps, [lambda: torch.randn(5, 4)]),
    "getitem negative": (_getitem_negative, [V34]),
    "select": (_select, [V34]),
    "narrow": (_narrow, [V34]),
    "aten.slice": (_aten_slice, [V34]),
    "reshape": (_reshape, [V34]),
    "flatten": (_flatten, [V234]),
    "unflatten": (_unflatten, [V34]),
    "view_as": (_view_as, [V34, lambda: torch.randn(4, 3)]),
    "unsqueeze": (_unsqueeze, [V34]),
    "squeeze": (_squeeze, [V34]),
    "transpose": (_transpose, [V34]),
    "t": (_t, [V34]),
    "permute": (_permute, [V234]),
    "T": (_T, [V34]),
    "mT": (_mT, [V234]),
    "movedim": (_movedim, [V234]),
    "swapaxes": (_swapaxes, [V234]),
    "unbind": (_unbind, [V34]),
    "unbind dim": (_unbind_dim, [V34]),
    "split": (_split, [V34]),
    "chunk": (_chunk, [lambda: torch.randn(6, 2)]),
    "tensor_split": (_tensor_split, [V34]),
    "as_strided slice": (_as_strided_slice, [V34]),
    "detach": (_detach, [V34]),
    "contiguous": (_contiguous, [V34]),
    "to same dtype": (_to_same_dtype, [V34]),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_write_through_a_view(case, mode):
    fn, makers = CASES[case]
    check(fn, *[m() for m in makers], modes=[mode])


# ---------------------------------------------------------------------------
# Chains, other live views, the view returned, in-place spellings
# ---------------------------------------------------------------------------

def _chain(x):
    x.view(2, 6)[:, ::2].t()[1].mul_(-1)
    return x


def _view_of_view(x):
    v = x[1:]
    w = v[0]
    w.add_(1)
    return x, v, w


def _other_views_read_later(x):
    row = x[0]
    col = x.t()[1]
    flat = x.view(-1)
    x[1:3].mul_(2)
    return row + 0, col * 1, flat.sum(), x


def _base_written_then_view_read(x):
    v = x[0]
    x.add_(1)
    return v


def _views_after_two_writes(x):
    parts = x.split(2)
    parts[0].mul_(2)
    parts[1].add_(parts[0][0])
    return x, parts[0], parts[1]


def _write_a_stale_view(x):
    v = x[1]
    x.mul_(2)  # v is x[1] of the new x
    v.add_(1)
    return x


def _returns_the_view(x):
    v = x[1:3]
    v.mul_(2)
    return v, x


def _augmented(x, y):
    v = x[0]
    v += y[0]
    w = x[1:]
    w *= 2
    return x


def _augmented_keeps_the_dtype(x, y):
    v = x[0]
    v += y[0].double()  # (x + y would be float64; the write stays float32)
    return x


def _setitem_on_a_view(x, y):
    v = x[1]
    v[0:2] = y
    return x


def _alias_of_an_inplace_result(x):
    y = x.relu_()
    y.add_(1)
    return x


def _inplace_functional(x):
    F.relu(x[0], inplace=True)
    torch.relu_(x[1])
    return x


def _expand_read_after_write(x):
    e = x.expand(3, 4)
    x.mul_(2)
    return e


def _diagonal_read_after_write(x):
    d = x.diagonal()
    x.add_(1)
    return d


def _unfold_read_after_write(x):
    u = x.unfold(0, 2, 1)
    x.add_(1)
    return u + 0


def _split_read_after_write(x):
    parts = x.split(2)
    x.mul_(2)
    return parts[0], parts[1]


def _split_tuple_returned(x):
    parts = x.split(2)
    x.mul_(2)
    return x + 0, parts


def _loop(x):
    for i in range(3):
        x[i].add_(i)
    return x


def _copy_between_views(x):
    x[0].copy_(x[1])
    return x


def _int_tensor(x):
    x[:, 1].mul_(3)
    return x


MORE = {
    "chain": (_chain, [V34]),
    "view of a view": (_view_of_view, [V34]),
    "other views read later": (_other_views_read_later, [V34]),
    "base written, then the view read": (_base_written_then_view_read, [V34]),
    "two writes": (_views_after_two_writes, [lambda: torch.randn(4, 3)]),
    "write into a stale view": (_write_a_stale_view, [V34]),
    "the view returned": (_returns_the_view, [V34]),
    "augmented assignment": (_augmented, [V34, V34]),
    "augmented assignment keeps the dtype": (_augmented_keeps_the_dtype, [V34, V34]),
    "alias of an in-place result": (_alias_of_an_inplace_result, [V34]),
    "in-place functional": (_inplace_functional, [V34]),
    "expand read after a write": (_expand_read_after_write, [lambda: torch.randn(1, 4)]),
    "diagonal read after a write": (_diagonal_read_after_write, [V34]),
    "unfold read after a write": (_unfold_read_after_write, [V34]),
    "split read after a write": (_split_read_after_write, [lambda: torch.randn(4, 3)]),
    "loop": (_loop, [V34]),
    "copy between views": (_copy_between_views, [V34]),
    "int tensor": (_int_tensor, [lambda: torch.randint(-5, 5, (3, 4))]),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(MORE))
def test_views_stay_exact(case, mode):
    fn, makers = MORE[case]
    check(fn, *[m() for m in makers], modes=[mode])


@pytest.mark.parametrize("mode", MODES)
def test_split_tuple_returned_after_a_write(mode):
    # (Compiled graphs return no tuples: interpreted only.)
    check(_split_tuple_returned, torch.randn(4, 3), modes=[mode], compiled=False)


# torch 1.13's fx Proxy has no item assignment, and cannot unpack a tuple:
# symbolic tracing refuses these models, "auto" traces them concretely.
@pytest.mark.parametrize("mode", ["concrete", "auto"])
def test_setitem_on_a_view(mode):
    check(_setitem_on_a_view, torch.randn(3, 4), torch.randn(2), modes=[mode])


@pytest.mark.parametrize("mode", ["concrete", "auto"])
def test_unpacked_split(mode):
    check(_split_unpacked, torch.randn(3, 4), modes=[mode])


class _InplaceChild(torch.nn.Module):
    def forward(self, x):
        x.mul_(3)
        return x


class _WritesThroughChildren(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.relu = torch.nn.ReLU(inplace=True)
        self.child = _InplaceChild()

    def forward(self, x):
        self.relu(x[0])
        self.child(x[1:])
        return x + 0


@pytest.mark.parametrize("mode", MODES)
def test_modules_writing_a_view(mode):
    x = torch.randn(3, 4)
    expected = _WritesThroughChildren()(x.clone())
    tm = traced.trace(_WritesThroughChildren(), x, mode=mode)
    _same(tm.interpret(x), expected)
    _same(traced.compile(tm)(x), expected)


class _ChildWritesItsInput(torch.nn.Module):
    def forward(self, x):
        x.add_(1)
        return x * 2


class _ReadsAfterChild(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.child = _ChildWritesItsInput()

    def forward(self, x):
        y = self.child(x)
        return x + y


@pytest.mark.parametrize("mode", MODES)
def test_a_write_the_graph_cannot_pass_back_is_refused(mode):
    # The child writes x and returns another tensor: the caller's graph has
    # no value for the new x.
    line = _line_of(_ReadsAfterChild.forward, "return x + y")
    with pytest.raises(traced.TraceError, match="written in place by a call") as info:
        traced.trace(_ReadsAfterChild(), torch.randn(3), mode=mode)
    assert f"read again at {__file__}:{line}" in str(info.value)


# ---------------------------------------------------------------------------
# What is refused, at the user's line
# ---------------------------------------------------------------------------

def _line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, l in enumerate(lines) if text in l)


def _write_diagonal(x):
    x.diagonal().add_(1)
    return x


def _write_as_strided_diagonal(x):
    torch.as_strided(x, (3,), (5,)).add_(1)
    return x


def _write_view_dtype(x):
    x.view(torch.int32).bitwise_and_(0)
    return x


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
@pytest.mark.parametrize("fn,text", [(_write_diagonal, ".diagonal()"),
                                     (_write_as_strided_diagonal, "as_strided(x"),
                                     (_write_view_dtype, ".view(torch.int32)")])
def test_unexpressible_views_are_refused(fn, text, mode):
    line = _line_of(fn, text)
    with pytest.raises(traced.TraceError,
                       match=rf"in-place write at {__file__}:{line}") as info:
        traced.trace(_module(fn, 1), torch.randn(3, 4), mode=mode)
    assert "base would not see the write" in str(info.value)


def _copy_smears(x):
    x[:, 1:].copy_(x[:, :-1])
    return x


@pytest.mark.parametrize("mode", MODES)
def test_writes_reading_their_own_memory_are_refused(mode):
    # torch's copy_ goes element by element: x[:, 1:].copy_(x[:, :-1])
    # smears column 0 over the row, which no graph of values computes.
    # (torch itself refuses add_, mul_, ... and `x[1:] = x[:-1]` there.)
    line = _line_of(_copy_smears, "x[")
    with pytest.raises(traced.TraceError,
                       match=f"write at {__file__}:{line} reads memory it writes"):
        traced.trace(_module(_copy_smears, 1), torch.randn(3, 4), mode=mode)


class _WritesAParameter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3, 4))
        self.register_buffer("b", torch.randn(3))

    def forward(self, x):
        self.w[0].zero_()
        return x + self.w


class _WritesABuffer(_WritesAParameter):
    def forward(self, x):
        self.b[1:].add_(x[0, :2])
        return x + self.b[:, None]


class _WritesAClone(_WritesAParameter):
    def forward(self, x):
        w = self.w.clone()
        w[0].zero_()
        return x + w


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("cls,what", [(_WritesAParameter, "parameter 'w'"),
                                      (_WritesABuffer, "buffer 'b'")])
def test_writes_into_module_state_are_refused(cls, what, mode):
    # (torch.fx reads a buffer as a plain tensor: `self.b[1:]` is a constant
    # of the fx graph.)
    if mode == "symbolic" and cls is _WritesABuffer:
        what = "a tensor torch.fx keeps as a constant"
    else:
        what = f"view of the {what}"
    with pytest.raises(traced.TraceError, match=what):
        traced.trace(cls(), torch.randn(3, 4), mode=mode)


@pytest.mark.parametrize("mode", MODES)
def test_writes_into_a_clone_of_state(mode):
    m, x = _WritesAClone(), torch.randn(3, 4)
    tm = traced.trace(m, x, mode=mode)
    _same(tm.interpret(x), m(x))
    _same(traced.compile(tm)(x), m(x))


def _constant_written(x):
    c = torch.zeros(4, 3)
    c[1:3].copy_(x[1:3])
    return c + x


def _constant_folded(x):
    c = torch.zeros(4, 3)
    c.copy_(x)
    return c * 2  # (torch.fx computes c * 2 while tracing: zeros)


@pytest.mark.parametrize("fn", [_constant_written, _constant_folded])
def test_tensor_constants_written(fn):
    # torch.fx runs what takes no Proxy while it traces, and keeps the
    # results as constants: `c[1:3]` and `c` as two unrelated ones, `c * 2`
    # as zeros. Symbolic tracing refuses writes into them; concrete tracing
    # (and "auto") records the write.
    x = torch.randn(4, 3)
    line = _line_of(fn, ".copy_(")
    with pytest.raises(traced.TraceError,
                       match=f"write at {__file__}:{line} into a tensor torch.fx keeps"):
        traced.trace(_module(fn, 1), x, mode="symbolic")
    check(fn, x, modes=["concrete", "auto"])


# ---------------------------------------------------------------------------
# Dynamic dims
# ---------------------------------------------------------------------------

def _dynamic_slices(x):
    x[:, 1:3].mul_(2)
    v = x.view(-1, 4)
    v[:, 0].add_(1)
    x.narrow(1, 3, 1).sub_(1)
    x.view(-1).mul_(-1)
    return x


def _dynamic_permutes(x):
    x.t().add_(1)
    x.permute(1, 0).mul_(2)
    return x


@pytest.mark.parametrize("mode", ["symbolic", "concrete"])
@pytest.mark.parametrize("fn", [_dynamic_slices, _dynamic_permutes])
def test_dynamic_batch(fn, mode):
    x = torch.randn(2, 4)
    tm = traced.trace(_module(fn, 1), x, mode=mode, dynamic_dims={0: "batch"})
    # The CPU compiler lowers neither basic indexing, the scatters nor
    # reshape_as over a `?` dim yet (it refuses them): slices are interpreted.
    c = traced.compile(tm) if fn is _dynamic_permutes else None
    for n in (1, 2, 5):
        x = torch.randn(n, 4)
        expected = fn(x.clone())
        _same(tm.interpret(x), expected)
        if c is not None:
            _same(c(x), expected)


# ---------------------------------------------------------------------------
# swin_v2_t: `qkv_bias[length:2 * length].zero_()` in every attention block
# ---------------------------------------------------------------------------

def _swin_v2_t():
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.swin_v2_t().eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias") or not p.abs().sum():
                p.copy_(torch.randn_like(p) * 0.1)
        for m in model.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
    return model


# (torch.fx cannot trace swin's attention, `B, H, W, C = input.shape`:
# "auto" traces it concretely.)
@pytest.mark.parametrize("mode", ["concrete", "auto"])
def test_swin_v2_t(mode):
    model = _swin_v2_t()
    assert all(blk.attn.qkv.bias.abs().min() > 0
               for stage in model.features[1::2] for blk in stage)
    x = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        expected = model(x)
    tm = traced.trace(model, x, mode=mode)
    assert "torch.slice_scatter" in str(tm) or "operator.setitem" in str(tm)
    _same(tm.interpret(x), expected)
    _same(traced.compile(tm)(x), expected)
