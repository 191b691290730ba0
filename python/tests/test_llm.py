"""Sizes as values (issue 50): decoder-only language models with their KV
cache as inputs and outputs, traced once with dynamic "seq" and "past"
dims and compiled once, against torch at prefill and decode sizes, and a
greedy generation that must give torch's tokens."""
import math

import numpy as np
import pytest
import torch

import traced

import llm_models as L

DIMS = [{1: "seq"}, {3: "past"}, {3: "past"}]


def _cache(model, past, seed=1):
    k, v = model.empty_cache()
    if past:
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            _, k, v = model(torch.randint(0, model.cfg.vocab, (1, past), generator=g), k, v)
    return k, v


def _ids(model, n, seed=2):
    return torch.randint(0, model.cfg.vocab, (1, n),
                         generator=torch.Generator().manual_seed(seed))


def _close(got, want):
    for g, w in zip(got, want):
        torch.testing.assert_close(torch.as_tensor(np.asarray(g)), w,
                                   rtol=1e-4, atol=1e-4)


def _model(name):
    cfg = dict(vocab=96, ctx=512, layers=2, heads=4, dim=32)
    if name == "gpt":
        return L.randomize(L.GPT(L.GPTConfig(**cfg)))
    return L.randomize(L.Llama(L.LlamaConfig(kv_heads=2, hidden=64, **cfg)))


@pytest.fixture(scope="module", params=["gpt", "llama"])
def lm(request):
    model = _model(request.param)
    k, v = _cache(model, 3)
    tm = traced.trace(model, _ids(model, 5), k, v, dynamic_dims=DIMS)
    return model, tm, traced.compile(tm)


def test_one_trace_has_size_values(lm):
    _, tm, _ = lm
    text = str(tm)
    assert 'call_method %ids["size"](dim=1)' in text
    assert 'call_method %k_cache["size"](dim=3)' in text
    assert '"operator.add"' in text
    # The text form round-trips.
    assert str(traced.parse(text)) == text


def test_sizes_carry_relations(lm, tmp_path):
    """The rules' relations between sizes: the caches returned are `seq +
    past` long (cat of the past and the step's keys), the logits `seq`; a
    `?` of no such expression has none. They print, round-trip through the
    text form and JSON, and show on the graph's nodes."""
    _, tm, _ = lm
    logits, k_out, v_out = tm.graph.outputs
    assert logits.dims == (1, "seq", 96)
    assert k_out.dims == v_out.dims == (2, 1, tm.graph.inputs[2].shape[2], "seq + past",
                                        tm.graph.inputs[2].shape[4])
    assert tm.graph.inputs[1].dims == (1, "seq")
    text = str(tm)
    assert '"seq + past"' in text
    assert str(traced.parse(text)) == text
    for suffix in (".json", ".mlirbc"):
        tm.save(str(tmp_path / f"lm{suffix}"))
        assert '"seq + past"' in str(traced.load(str(tmp_path / f"lm{suffix}")))


@pytest.mark.parametrize("seq, past", [(1, 0), (2, 0), (17, 0), (128, 0),
                                       (512, 0), (1, 1), (1, 100), (3, 250),
                                       (1, 511)])
def test_compiled_matches_torch(lm, seq, past):
    model, _, compiled = lm
    ids, (k, v) = _ids(model, seq), _cache(model, past)
    with torch.no_grad():
        want = model(ids, k, v)
    got = compiled(ids, k, v)
    assert tuple(got[1].shape) == tuple(want[1].shape)
    _close(got, want)


@pytest.mark.parametrize("seq, past", [(1, 0), (9, 0), (1, 20), (4, 33)])
def test_interpreted_matches_torch(lm, seq, past):
    model, tm, _ = lm
    ids, (k, v) = _ids(model, seq), _cache(model, past)
    with torch.no_grad():
        want = model(ids, k, v)
    _close(tm.interpret(ids, k, v), want)


def _torch_greedy(model, ids, n):
    k, v = model.empty_cache()
    out, step = ids, ids
    with torch.no_grad():
        for _ in range(n):
            logits, k, v = model(step, k, v)
            step = logits[:, -1].argmax(-1, keepdim=True)
            out = torch.cat([out, step], 1)
    return out


def test_greedy_generation_matches_torch(lm):
    model, _, compiled = lm
    prompt = _ids(model, 7)
    got = traced.generate(compiled, prompt, 32)
    assert got.shape == (1, 39)
    assert torch.equal(got, _torch_greedy(model, prompt, 32))


def test_top_k_generation_is_seeded(lm):
    _, _, compiled = lm
    prompt = torch.tensor([[1, 2, 3]])
    a = traced.generate(compiled, prompt, 8, top_k=5, seed=0)
    b = traced.generate(compiled, prompt, 8, top_k=5, seed=0)
    assert torch.equal(a, b)
    assert a.shape == (1, 11) and torch.equal(a[:, :3], prompt)


def test_shorter_cache_than_the_trace_runs(lm):
    # (A past of 0, in prefill, is the empty cache the signature gives.)
    _, _, compiled = lm
    caches = traced.generate.__globals__["empty_cache"](compiled, 1)
    assert [c.shape[3] for c in caches] == [0, 0]


@pytest.mark.parametrize("bad, message", [
    (torch.zeros(3, dtype=torch.int64), "must be \\(batch, T\\)"),
    (torch.zeros(1, 0, dtype=torch.int64), "T >= 1"),
])
def test_generate_refuses_bad_prompts(lm, bad, message):
    _, _, compiled = lm
    with pytest.raises(traced.InputError, match=message):
        traced.generate(compiled, bad, 2)


def test_branch_on_sequence_length_is_refused():
    class Branchy(torch.nn.Module):
        def forward(self, ids):
            if ids.size(1) > 3:
                return ids * 2
            return ids

    with pytest.raises(traced.TraceError, match="Python control flow on a "
                       "dynamic size at .*test_llm.py"):
        traced.trace(Branchy(), torch.zeros(1, 5, dtype=torch.int64),
                     mode="concrete", dynamic_dims={1: "seq"})


class SizeOps(torch.nn.Module):
    """The size computations of a decoder, one of each: arange from traced
    bounds, a mask from traced sizes and diagonal, slices with negative and
    traced bounds, a cat of dynamic parts, a batched matmul with dynamic M
    and N, an expand of a dynamic dim."""

    def forward(self, ids, k):
        T = ids.size(1)
        P = k.size(1)
        S = P + T
        pos = torch.arange(P, S)
        mask = torch.full((T, S), float("-inf")).triu(P + 1)
        full = torch.cat([k, k[:, -T:]], dim=1)
        kk = full[:, P:S]
        att = torch.matmul(kk, full.transpose(1, 2)) + mask
        return att, pos, kk[None].expand(2, -1, -1, -1)


@pytest.mark.parametrize("mode", ["interpret", "compile"])
def test_size_ops_match_torch(mode):
    m = traced.trace(SizeOps(), torch.zeros(1, 3, dtype=torch.int64),
                     torch.randn(2, 5, 4), mode="concrete",
                     dynamic_dims=[{1: "seq"}, {1: "past"}])
    run = m.interpret if mode == "interpret" else traced.compile(m)
    for seq, past in [(1, 1), (2, 4), (3, 9), (6, 6)]:  # (k[:, -T:] needs T <= P)
        ids = torch.arange(seq)[None]
        k = torch.randn(2, past, 4)
        got = run(ids, k)
        for g, w in zip(got, SizeOps()(ids, k)):
            torch.testing.assert_close(torch.as_tensor(np.asarray(g)), w)


class Coincidence(torch.nn.Module):
    """`T - T // 2` is 2 at both traced lengths (3 and 4), but it is
    computed from a traced int: the rules cannot know it, so the dim is
    `?` (traced-in sizes never count as static by coincidence) and every
    length is answered."""

    def forward(self, ids):
        return ids[:, ids.size(1) // 2:] * 2


class Clamped(torch.nn.Module):
    """`ids[:, 2:5]` has 3 columns at both traced lengths (5 and 6) and
    fewer below 5: the slice's bounds are constants, so the trace keeps 3,
    and another length must be refused, never answered with the traced
    size."""

    def forward(self, ids):
        return ids[:, 2:5] * 2


def test_coincident_computed_size_is_dynamic():
    m = traced.trace(Coincidence(), torch.zeros(1, 3, dtype=torch.int64),
                     mode="concrete", dynamic_dims={1: "seq"})
    assert "-> tensor<1x?xi64>" in str(m)
    compiled = traced.compile(m)
    for n in (1, 4, 7):
        x = torch.arange(n)[None]
        torch.testing.assert_close(torch.as_tensor(compiled(x)), Coincidence()(x))
        _close(m.interpret(x), [Coincidence()(x)])


def test_coincident_static_size_is_checked():
    m = traced.trace(Clamped(), torch.zeros(1, 5, dtype=torch.int64),
                     mode="concrete", dynamic_dims={1: "seq"})
    compiled = traced.compile(m)
    ok = torch.arange(9)[None]  # (3 columns, as traced)
    torch.testing.assert_close(torch.as_tensor(compiled(ok)), Clamped()(ok))
    bad = torch.arange(4)[None]
    with pytest.raises(traced.InterpretError, match="shape"):
        m.interpret(bad)
    with pytest.raises(traced.Error, match="test_llm.py:\\d+: .*another size"):
        compiled(bad)


# Each op that takes an int, given a traced size (issue 50's list): traced
# once with a dynamic dim 1, interpreted and compiled at other sizes.
_SIZE_OPS = {
    "narrow": lambda x: x.narrow(1, 1, x.size(1) - 2),
    "view": lambda x: x.view(x.size(0), x.size(1) * 2, -1),
    "reshape": lambda x: x.reshape(-1, x.shape[1]),
    "expand_1": lambda x: x[:, :1].expand(x.size(0), x.size(1), 4),
    "expand_new": lambda x: x.unsqueeze(2).expand(-1, -1, x.size(1), -1),
    "ones": lambda x: x + torch.ones(x.size(1), 4),
    "zeros": lambda x: x + torch.zeros(1, x.size(1), 1),
    "new_zeros": lambda x: x.new_zeros(x.size(0), x.size(1)),
    "new_ones": lambda x: x.new_ones(x.size(1)),
    "full_like": lambda x: torch.full_like(x, 2.0),
    "arange": lambda x: torch.arange(x.size(1)).float(),
    "tril": lambda x: torch.ones(x.size(1), x.size(1)).tril(),
    "triu_k": lambda x: torch.ones(x.size(1), x.size(1)).triu(x.size(1) // 2),
    "repeat": lambda x: x.repeat(1, 2, 1),
    "repeat_traced": lambda x: x[:, :1].repeat(1, x.size(1), 1),
    "pad": lambda x: torch.nn.functional.pad(x, (0, 0, 0, 8 - x.size(1))),
    "last": lambda x: x[:, -1],
    "index_traced": lambda x: x[:, x.size(1) - 1],
    "numel": lambda x: x.reshape(x.numel()),
    "mean_by_size": lambda x: x.sum(1) / x.size(1),
    "mask": lambda x: x.masked_fill(
        torch.ones(x.size(1), 4, dtype=torch.bool).triu(1), 0.0),
    "softmax": lambda x: x.softmax(1),
    "cat": lambda x: torch.cat([x, torch.zeros(x.size(0), 1, 4)], 1),
    "stack": lambda x: torch.stack([x, x], 0),
    "chunk": lambda x: x.chunk(2, dim=2)[1],
    "matmul": lambda x: x @ x.transpose(1, 2),
    "permute_view": lambda x: x.permute(1, 0, 2).contiguous().view(x.size(1), -1),
}


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


@pytest.mark.parametrize("name", sorted(_SIZE_OPS))
def test_op_takes_a_traced_size(name):
    fn = _SIZE_OPS[name]
    m = traced.trace(_Fn(fn), torch.randn(2, 5, 4), mode="concrete",
                     dynamic_dims={1: "seq"})
    compiled = traced.compile(m)
    for n in (1, 3, 7):
        x = torch.randn(2, n, 4)
        try:
            want = fn(x)
        except RuntimeError:
            # torch refuses this size (narrow's length -1 at 1): so must we.
            for run in (lambda: m.interpret(x), lambda: compiled(x)):
                with pytest.raises(traced.Error):
                    run()
            continue
        for got in (m.interpret(x)[0], compiled(x)):
            torch.testing.assert_close(torch.as_tensor(np.asarray(got)), want)


def test_split_into_a_traced_number_of_pieces_is_refused():
    # The number of pieces depends on the size: the graph cannot hold it.
    fn = lambda x: torch.split(x, x.size(1) // 2 + 1, dim=1)[0]  # noqa: E731
    m = traced.trace(_Fn(fn), torch.randn(2, 5, 4), mode="concrete",
                     dynamic_dims={1: "seq"})
    with pytest.raises(traced.InterpretError, match="computed a tuple of 1"):
        m.interpret(torch.randn(2, 1, 4))


def test_len_of_a_dynamic_dim_is_refused():
    # Python's len() turns the traced size back into a plain int: the two
    # traces then differ, and the trace says where.
    fn = lambda x: x[:, :len(x[0]) - 1]  # noqa: E731
    with pytest.raises(traced.TraceError, match="depends on the size"):
        traced.trace(_Fn(fn), torch.randn(2, 5, 4), mode="concrete",
                     dynamic_dims={1: "seq"})


# -- A preallocated cache updated in place (compile(donate=)) -------------------

@pytest.fixture(scope="module")
def static_lm():
    """GPT-2 with its whole-context cache written at P:P + T each step
    (GPTStaticCache), traced once with dynamic "seq" and "total" dims and
    compiled with both caches donated; the cat-cache GPT of the same
    weights is the reference."""
    model = L.randomize(L.GPTStaticCache(L.GPTConfig(vocab=96, ctx=64, layers=2,
                                                     heads=4, dim=32)))
    ref = L.GPT(model.cfg)
    ref.load_state_dict(model.state_dict())
    k, v = model.static_cache()
    tm = traced.trace(model, _ids(model, 5), torch.ones(1, 5), k, v,
                      dynamic_dims={"ids": {1: "seq"}, "attention_mask": {1: "total"}})
    return model, ref.eval(), tm, traced.compile(tm, donate={"k_cache": 1, "v_cache": 2})


def test_static_cache_is_updated_in_place(static_lm):
    """Prefill then decode steps: the caller's caches are the outputs,
    written in place, and the logits are torch's at every step."""
    model, ref, _, compiled = static_lm
    k, v = model.static_cache()
    rk, rv = ref.empty_cache()
    ids = _ids(model, 7)
    seen = 0
    with torch.no_grad():
        for step in range(6):
            seen += ids.size(1)
            logits, k_out, v_out = compiled(ids, torch.ones(1, seen), k, v)
            want, rk, rv = ref(ids, rk, rv)
            assert k_out is k and v_out is v
            torch.testing.assert_close(logits, want, rtol=1e-4, atol=1e-5)
            torch.testing.assert_close(k[:, :, :, :seen], rk, rtol=1e-4, atol=1e-5)
            assert not k[:, :, :, seen:].any(), "rows past the sequence were written"
            ids = want[:, -1:].argmax(-1)


def test_static_cache_interpreted_matches_compiled(static_lm):
    model, _, tm, compiled = static_lm
    k, v = model.static_cache()
    with torch.no_grad():
        model(_ids(model, 4, seed=5), torch.ones(1, 4), k, v)
    ids, mask = _ids(model, 2, seed=6), torch.ones(1, 6)
    want = model(ids, mask, k.clone(), v.clone())
    got = tm.interpret(ids, mask, k.clone(), v.clone())
    _close(got, want)
    _close(compiled(ids, mask, k.clone(), v.clone()), want)


def test_donated_input_of_another_dtype_is_a_copy(static_lm):
    """A cache the call must convert (float64 with cast=True) is not the
    buffer the compiled code writes: the caller's tensor stays as it was
    and the output holds the update."""
    model, _, _, compiled = static_lm
    k, v = (c.double() for c in model.static_cache())
    logits, k_out, _ = compiled(_ids(model, 3), torch.ones(1, 3), k, v, cast=True)
    assert not k.any() and k_out[:, :, :, :3].abs().sum() > 0
    assert k_out.dtype == torch.float32


def test_donated_numpy_array_is_updated():
    class Write(torch.nn.Module):
        def forward(self, cache, k):
            cache[1:3] = k
            return cache.sum(), cache
    tm = traced.trace(Write(), torch.zeros(6, 4), torch.ones(2, 4))
    compiled = traced.compile(tm, donate=["cache"])
    cache = np.zeros((6, 4), np.float32)
    total, out = compiled(cache, np.full((2, 4), 2.0, np.float32))
    assert out is cache and total == 16.0
    assert cache[1:3].tolist() == [[2.0] * 4] * 2 and not cache[[0, 3, 4, 5]].any()
    # Two buffers (the caller's cache not given as the output): the same
    # result, the input untouched.
    fresh = np.zeros((6, 4), np.float32)
    total, out = compiled(fresh.astype(np.float64), np.ones((2, 4)), cast=True)
    assert out is not fresh and out[1:3].sum() == 8.0


class _ReadsOldCache(torch.nn.Module):
    def forward(self, cache, k):
        new = cache.index_copy(0, torch.tensor([1, 2]), k)
        return (cache * 2).sum(), new


@pytest.mark.parametrize("donate, message", [
    ({"cache": 1}, "could not update it in place: its old value is read after the write"),
    ({"cache": 0}, "cannot be donated to output 0: its type"),
    (["nope"], "no input is named 'nope'"),
    ({"cache": 5}, "output 5 of input 'cache' is not an output index below 2"),
    ([7], "7 names no input"),
])
def test_donation_refusals(donate, message):
    tm = traced.trace(_ReadsOldCache(), torch.zeros(6, 4), torch.ones(2, 4))
    with pytest.raises(traced.CompileError, match=message):
        traced.compile(tm, donate=donate, cache=False)


def test_ambiguous_donation_asks_for_the_output():
    class Two(torch.nn.Module):
        def forward(self, a, b):
            a[0] = 1.0
            b[0] = 2.0
            return a, b
    tm = traced.trace(Two(), torch.zeros(3), torch.zeros(3))
    with pytest.raises(traced.CompileError, match="matches 2 outputs of its type"):
        traced.compile(tm, donate=["a"], cache=False)
    compiled = traced.compile(tm, donate={"a": 0, "b": 1}, cache=False)
    a, b = np.zeros(3, np.float32), np.zeros(3, np.float32)
    ra, rb = compiled(a, b)
    assert ra is a and rb is b and a[0] == 1.0 and b[0] == 2.0


def test_greedy_generation_with_the_static_cache(static_lm):
    """traced.generate on the in-place model: the tokens of torch's greedy
    loop over the concatenated-cache model of the same weights."""
    model, ref, _, compiled = static_lm
    prompt = _ids(model, 6, seed=9)
    got = traced.generate(compiled, prompt, 32)
    assert torch.equal(got, _torch_greedy(ref, prompt, 32))


def test_max_and_min_of_sizes_are_values():
    """Python's max and min of sizes record torch.ops.prim.max/min (they
    compared the sizes, which a trace refuses), pairwise; compiled, they
    follow each size; on plain numbers they stay the builtins."""
    class Clip(torch.nn.Module):
        def forward(self, x):
            n = x.size(1)
            keep = max(n - 2, 1)
            window = min([n, 100, keep + 1])
            return x[:, :keep] * 2, x[:, -window:].sum(1), max(3, 5), min((2, 7))
    tm = traced.trace(Clip(), torch.randn(2, 6), dynamic_dims={"x": {1: "n"}})
    text = str(tm)
    assert text.count('"torch.ops.prim.max"') == 1 and text.count('"torch.ops.prim.min"') == 2
    compiled = traced.compile(tm)
    for n in (1, 2, 3, 6, 9):
        x = torch.randn(2, n)
        want = Clip()(x)
        got = compiled(x)
        torch.testing.assert_close(got[0], want[0])
        torch.testing.assert_close(got[1], want[1])
        assert got[2:] == want[2:] == (5, 2)
        _close(tm.interpret(x)[:2], want[:2])


class Rounding(torch.nn.Module):
    """Sizes through floats: true division gives a float of the trace
    (SymFloat), and math.ceil/floor/trunc of it an int, as torch.fx records
    them. `ceil(n / 2)` is 3 at both traced lengths (5 and 6): kept as a
    constant, it would answer 3 at every length."""

    def forward(self, x):
        n = x.size(1)
        half = math.ceil(n / 2)
        low = math.floor(n * 0.75)
        return x[:, :half] * 2, x[:, math.trunc(n / 3):low], x * (n / 4)


@pytest.mark.parametrize("mode", ["concrete", "symbolic"])
def test_rounded_sizes_are_values(mode):
    tm = traced.trace(Rounding(), torch.randn(2, 5), mode=mode,
                      dynamic_dims={"x": {1: "n"}})
    text = str(tm)
    for target in ("operator.truediv", "math.ceil", "math.floor", "math.trunc"):
        assert f'"{target}"' in text, target
    compiled = traced.compile(tm)
    for n in (1, 2, 5, 7, 12):
        x = torch.randn(2, n)
        want = Rounding()(x)
        _close(compiled(x), want)
        _close(tm.interpret(x), want)


class _Twice(torch.nn.Module):
    """One submodule called on two inputs of other dynamic dims ("n" and
    "m", equal in the example): its graph's sizes are `n` in one call and
    `m` in the other, so no relation is claimed inside it; the root's
    results still carry theirs."""

    def __init__(self):
        super().__init__()
        self.proj = _Fn(lambda x: x[:, 1:] * 2)

    def forward(self, x, y):
        return self.proj(x), self.proj(y), torch.cat([x, y, x], 1)


def test_relations_of_a_graph_called_twice():
    tm = traced.trace(_Twice(), torch.randn(2, 5), torch.randn(2, 5),
                      dynamic_dims={"x": {1: "n"}, "y": {1: "m"}})
    a, b, c = tm.graph.outputs
    assert (a.dims, b.dims, c.dims) == ((2, "n - 1"), (2, "m - 1"), (2, "2 * n + m"))
    inner = [op for op in str(tm).splitlines() if "getitem" in op]
    assert inner and not any("traced.dim_names" in op for op in inner)
    compiled = traced.compile(tm)
    for n, m in ((2, 7), (9, 3)):
        x, y = torch.randn(2, n), torch.randn(2, m)
        _close(compiled(x, y), _Twice()(x, y))
        _close(tm.interpret(x, y), _Twice()(x, y))
