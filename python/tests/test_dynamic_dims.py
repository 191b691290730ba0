"""traced.trace(..., dynamic_dims=...): `?` dims found by tracing twice,
carried by the result rules, run by the interpreter at any size."""
import ctypes
import json

import numpy as np
import pytest
import torch
import torch.nn as nn

import traced
from models import randomize_batchnorm, real_models

BATCHES = (1, 3, 8)


def _batch(x, b):
    """An input like the example `x` with batch size `b`."""
    torch.manual_seed(b)
    return torch.randn(b, *x.shape[1:], dtype=x.dtype)


def _close(got, expected):
    if isinstance(got, (list, tuple)):
        (got,) = got
    expected = expected.detach()
    scale = max(expected.abs().max().item(), 1.0)
    torch.testing.assert_close(torch.from_numpy(np.asarray(got)), expected,
                               rtol=1e-5, atol=2e-5 * scale)


@pytest.fixture(scope="module")
def dynamic_models():
    """name -> (model, example, traced with a dynamic batch)."""
    out = {}
    for name, (model, x) in real_models().items():
        randomize_batchnorm(model)
        out[name] = (model, x,
                     traced.trace(model, x, dynamic_dims={0: "batch"}))
    return out


@pytest.mark.parametrize("name", list(real_models()))
def test_signature_has_named_dynamic_batch(dynamic_models, name):
    _, x, m = dynamic_models[name]
    head = next(l for l in str(m).splitlines() if "graph @forward" in l)
    rest = "x".join(str(d) for d in x.shape[1:])
    assert f"tensor<?x{rest}xf32> {{traced.dim_names = [\"batch\"" in head
    # The batch reaches the output, and nothing else became dynamic.
    out_type = head.rsplit("->", 1)[1]
    assert out_type.strip().startswith("tensor<?x")
    assert out_type.count("?") == 1


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("name", list(real_models()))
def test_interpreter_runs_any_batch(dynamic_models, name, batch):
    model, x, m = dynamic_models[name]
    xb = _batch(x, batch)
    with torch.no_grad():
        expected = model(xb)
    got = m.interpret(xb.numpy())
    got = got[0] if isinstance(got, (list, tuple)) else got
    assert np.asarray(got).shape == tuple(expected.shape)
    _close(got, expected)


def test_static_dims_still_checked(dynamic_models):
    _, _, m = dynamic_models["mlp"]
    with pytest.raises(traced.InterpretError,
                       match=r"input 1 \('x'\) has shape \(3, 15\); @MLP::forward takes \(\?, 16\)"):
        m.interpret(np.zeros((3, 15), np.float32))


def test_round_trips_keep_dim_names(dynamic_models, tmp_path):
    _, _, m = dynamic_models["mlp"]
    for suffix in (".mlir", ".mlirbc", ".json"):
        path = tmp_path / f"m{suffix}"
        m.save(str(path))
        again = traced.load(str(path))
        assert 'traced.dim_names = ["batch", ""]' in str(again), suffix
    doc = json.loads((tmp_path / "m.json").read_text())
    inputs = doc["modules"][0]["graphs"][0]["inputs"]
    assert inputs[1]["dim_names"] == ["batch", ""]
    assert inputs[1]["type"]["tensor"]["shape"] == [-1, 16]


class TwoInputs(nn.Module):
    def forward(self, a, b):
        return a * 2 + b.sum(1, keepdim=True)


def test_shared_names_have_one_size():
    m = traced.trace(TwoInputs(), torch.randn(2, 4), torch.randn(2, 3),
                     dynamic_dims=[{0: "n"}, {0: "n"}])
    a, b = torch.randn(5, 4), torch.randn(5, 3)
    _close(m.interpret(a.numpy(), b.numpy()), TwoInputs()(a, b))
    with pytest.raises(traced.InterpretError,
                       match=r"input 2 \('\w+'\) has size 4 in dim 0 \('n'\), "
                             r"but input 1 \('\w+'\) has 5 there"):
        m.interpret(a.numpy(), torch.randn(4, 3).numpy())


def test_several_dynamic_dims_and_none_entries():
    class M(nn.Module):
        def forward(self, x, y):
            return torch.matmul(x, y.t()), y

    m = traced.trace(M(), torch.randn(2, 3, 4), torch.randn(5, 4),
                     dynamic_dims=[{0: "batch", -2: "seq"}, None])
    head = next(l for l in str(m).splitlines() if "graph @forward" in l)
    assert '["batch", "seq", ""]' in head
    assert "-> (tensor<?x?x5xf32>, tensor<5x4xf32>)" in head
    x, y = torch.randn(4, 6, 4), torch.randn(5, 4)
    got = m.interpret(x.numpy(), y.numpy())
    _close(got[0], M()(x, y)[0])


class SizeAsValue(nn.Module):
    """Computes with the batch size: a value of the graph (issue 50)."""

    def forward(self, x):
        return x + torch.ones(x.shape[0], 1).sum()


class ShapeConstant(nn.Module):
    """Bakes the batch size into a Python float, which the trace cannot
    follow: refused, not specialized."""

    def forward(self, x):
        return x + float(x.shape[0])


class BranchOnSize(nn.Module):
    def forward(self, x):
        if x.shape[0] > 2:
            return x * 2
        return x


class ViewByExampleSize(nn.Module):
    def forward(self, x):
        return x.reshape(2, -1)


class ViewBySymbolicSize(nn.Module):
    def forward(self, x):
        return x.reshape(x.size(0), -1)


def test_size_read_is_a_value():
    m = traced.trace(SizeAsValue(), torch.randn(2, 3), mode="concrete",
                     dynamic_dims={0: "batch"})
    assert 'call_method %x["size"](dim=0)' in str(m)
    for n in (1, 5):
        x = torch.randn(n, 3)
        _close(m.interpret(x.numpy()), SizeAsValue()(x))
        _close(traced.compile(m)(x.numpy()), SizeAsValue()(x))


def test_size_dependent_graph_is_refused():
    with pytest.raises(traced.TraceError,
                       match="depends on the size of the dynamic dim 'batch'"):
        traced.trace(ShapeConstant(), torch.randn(2, 3), mode="concrete",
                     dynamic_dims={0: "batch"})


def test_branch_on_dynamic_size_is_refused():
    with pytest.raises(traced.TraceError,
                       match=r"Python control flow on a dynamic size at .*"
                             r"test_dynamic_dims.py:\d+"):
        traced.trace(BranchOnSize(), torch.randn(3, 3), mode="concrete",
                     dynamic_dims={0: "batch"})


def test_constant_shapes_stay_what_the_model_says():
    # reshape(2, -1) reads no size: the same graph at every batch, whose
    # result has 2 rows (as in torch), the other dim dynamic.
    m = traced.trace(ViewByExampleSize(), torch.randn(2, 3, 4),
                     dynamic_dims={0: "batch"})
    assert "-> tensor<2x?xf32>" in str(m)
    x = torch.randn(4, 3, 4)
    _close(m.interpret(x.numpy()), x.reshape(2, -1))


def test_symbolic_size_stays_symbolic():
    m = traced.trace(ViewBySymbolicSize(), torch.randn(2, 3, 4),
                     dynamic_dims={0: "batch"})
    x = torch.randn(5, 3, 4)
    _close(m.interpret(x.numpy()), x.reshape(5, -1))


@pytest.mark.parametrize("dims, message", [
    ({0: "batch"}, "one dict, but the model takes 2 inputs"),
    ([{0: "batch"}], "1 entries for 2 inputs"),
    ([{2: "batch"}, None], r"input 1 \('a'\) has 2 dims; dynamic dim 2"),
    ([{0: "1x"}, None], "needs a name"),
    ([{0: "n"}, {1: "n"}], "the dims named 'n' have sizes 2 and 3"),
    ("batch", "takes a dict"),
])
def test_bad_dynamic_dims(dims, message):
    with pytest.raises(traced.TraceError, match=message):
        traced.trace(TwoInputs(), torch.randn(2, 4), torch.randn(2, 3),
                     dynamic_dims=dims)


def test_empty_dynamic_dim_refused():
    with pytest.raises(traced.TraceError, match="empty in the example"):
        traced.trace(real_models()["mlp"][0], torch.randn(0, 16),
                     dynamic_dims={0: "batch"})


def test_dim_names_verified():
    text = """
    module {
      traced.module root @M class "M" {
        graph @forward(%self: !traced.module<@M>, %x: tensor<2x3xf32> {traced.dim_names = ["b", ""]}) -> tensor<2x3xf32> {
          output %x : tensor<2x3xf32>
        }
      }
    }"""
    with pytest.raises(traced.ParseError, match="names dim 0 'b', but that dim is static"):
        traced.parse(text)


# -- compiled code: one compilation, any batch ---------------------------------

@pytest.fixture(scope="module")
def compiled(dynamic_models):
    return {name: traced.compile(m)
            for name, (_, _, m) in dynamic_models.items()}


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("name", list(real_models()))
def test_compiled_runs_any_batch(dynamic_models, compiled, name, batch):
    model, x, m = dynamic_models[name]
    c = compiled[name]
    assert c.dim_names == ["batch"]
    xb = _batch(x, batch)
    with torch.no_grad():
        expected = model(xb)
    got = c(xb.numpy())
    assert got.shape == tuple(expected.shape)
    _close(got, expected)
    interpreted = m.interpret(xb.numpy())
    _close(got, torch.from_numpy(np.asarray(interpreted[0])))
    if batch > 1:  # the samples are not one repeated answer
        assert not np.allclose(got[0], got[1])


def test_compiled_checks_sizes(compiled):
    c = compiled["mlp"]
    with pytest.raises(traced.Error, match=r"takes \(\?, 16\)"):
        c(np.zeros((3, 15), np.float32))
    # An empty batch is a batch too.
    assert c(np.zeros((0, 16), np.float32)).shape == (0, 4)


def test_compiled_shared_names_agree():
    m = traced.trace(TwoInputs(), torch.randn(2, 4), torch.randn(2, 3),
                     dynamic_dims=[{0: "n"}, {0: "n"}])
    c = traced.compile(m)
    assert c.dim_names == ["n"]
    a, b = torch.randn(5, 4), torch.randn(5, 3)
    _close(c(a.numpy(), b.numpy()), TwoInputs()(a, b))
    with pytest.raises(traced.InputError, match=r"input 2 \('b'\) has size 4 in dim 0 "
                                                r"\('n'\), but input 1 \('a'\) has 5 there"):
        c(a.numpy(), torch.randn(4, 3).numpy())


def test_compiled_separate_names_do_not_broadcast():
    # Two names meet in an add: torch would broadcast a size of 1, the
    # compiled code reports it (a run-time check), never reads past a buffer.
    m = traced.trace(TwoInputs(), torch.randn(2, 4), torch.randn(2, 3),
                     dynamic_dims=[{0: "n"}, {0: "m"}])
    c = traced.compile(m)
    assert c.dim_names == ["n", "m"]
    a, b = torch.randn(3, 4), torch.randn(3, 3)
    _close(c(a.numpy(), b.numpy()), TwoInputs()(a, b))
    with pytest.raises(traced.Error, match="operands differ in a dynamic dim"):
        c(a.numpy(), torch.randn(1, 3).numpy())


def test_cuda_refuses_dynamic_dims(dynamic_models):
    with pytest.raises(traced.CompileError,
                       match="the GPU pipeline compiles static shapes only"):
        traced.compile(dynamic_models["mlp"][2], target="cuda")


# -- the ahead-of-time library: sizes at run time ------------------------------

class TracedTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


def _described(a):
    dims = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
    t = TracedTensor(a.ctypes.data, 9, a.ndim, dims, None)
    t._keep = dims
    return t


def test_library_takes_sizes_at_run_time(dynamic_models, tmp_path):
    model, _, m = dynamic_models["mlp"]
    lib = ctypes.CDLL(str(traced.save_library(m, tmp_path / "libmlp.so")))
    text = lambda name: ctypes.cast(getattr(lib, name), ctypes.c_char_p).value
    assert text("traced_forward_signature") == b"(tensor<?x16xf32>) -> tensor<?x4xf32>"
    assert text("traced_forward_dim_names") == b"batch"
    assert not hasattr(lib, "traced_forward")  # the static entry is not there
    shapes_fn = lib.traced_forward_output_shapes
    shapes_fn.argtypes = [ctypes.POINTER(ctypes.c_int64)] * 2
    sized = lib.traced_forward_sized
    sized.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2 + [
        ctypes.POINTER(ctypes.c_int64)]
    checked = lib.traced_forward_checked
    checked.argtypes = [ctypes.POINTER(TracedTensor), ctypes.c_int64,
                        ctypes.POINTER(TracedTensor), ctypes.c_int64,
                        ctypes.c_char_p, ctypes.c_int64]
    for batch in (3, 5):
        x = _batch(torch.zeros(1, 16), batch)
        with torch.no_grad():
            expected = model(x).numpy()
        sizes = (ctypes.c_int64 * 1)(batch)
        shape = (ctypes.c_int64 * 2)()
        assert shapes_fn(sizes, shape) == 0
        assert list(shape) == [batch, 4]
        inp = np.ascontiguousarray(x.numpy())
        out = np.empty((batch, 4), np.float32)
        assert sized((ctypes.c_void_p * 1)(inp.ctypes.data),
                     (ctypes.c_void_p * 1)(out.ctypes.data), sizes) == 0
        _close(out, torch.from_numpy(expected))
        out2 = np.zeros_like(out)
        err = ctypes.create_string_buffer(256)
        ins = (TracedTensor * 1)(_described(inp))
        outs = (TracedTensor * 1)(_described(out2))
        assert checked(ins, 1, outs, 1, err, 256) == 0, err.value
        np.testing.assert_array_equal(out2, out)
    # The checked entry compares the outputs with the inputs' batch.
    bad = np.empty((4, 4), np.float32)
    ins = (TracedTensor * 1)(_described(inp))
    outs = (TracedTensor * 1)(_described(bad))
    assert checked(ins, 1, outs, 1, err, 256) == 4  # TRACED_ERROR_SHAPE
    assert err.value.decode() == ("output 1: dim 0 is 4, expected 5 "
                                  "(tensor<?x4xf32> for these inputs)")


def test_result_rules_carry_dynamic_dims(dynamic_models):
    # A call added by graph surgery is typed by its result rule from the
    # `?` operand; the node shows the dynamic dim as None.
    model, _, original = dynamic_models["mlp"]
    m = traced.parse(str(original))
    graph = m.graph
    out = graph.outputs[0]
    with graph.insert_exprs(out.expr) as b:
        y = b.call_function("torch.softmax", out, dim=-1)
        z = b.call_method(y, "sum", 1, keepdim=True)
        w = b.call_function("torch.mul", y, z)
    assert y.shape == (None, 4) and z.shape == (None, 1)
    assert "(tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>" in str(m)
    graph.replace_node({out: w})
    graph.compile()
    x = torch.randn(6, 16)
    with torch.no_grad():
        expected = torch.softmax(model(x), -1)
    _close(m.interpret(x.numpy()), expected)
    _close(traced.compile(m)(x.numpy()), expected)


class ConvViewLinear(nn.Module):
    """The common user-CNN head: x.view(x.size(0), -1)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.fc = nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        y = self.conv(x)
        return self.fc(y.view(y.size(0), -1)).relu()


def test_size_of_dynamic_dim_compiles():
    model = ConvViewLinear().eval()
    m = traced.trace(model, torch.randn(2, 3, 8, 8), dynamic_dims={0: "b"})
    assert '["size"](dim=0) : (tensor<?x4x6x6xf32>) -> i64' in str(m)
    c = traced.compile(m)
    for batch in (1, 4):
        x = torch.randn(batch, 3, 8, 8)
        with torch.no_grad():
            _close(c(x.numpy()), model(x))
    # Concrete tracing reads the size as a value too (issue 50).
    m = traced.trace(model, torch.randn(2, 3, 8, 8), mode="concrete",
                     dynamic_dims={0: "b"})
    assert '["size"](dim=0) : (tensor<?x4x6x6xf32>) -> i64' in str(m)
    c = traced.compile(m)
    for batch in (1, 4):
        x = torch.randn(batch, 3, 8, 8)
        with torch.no_grad():
            _close(c(x.numpy()), model(x))


class Products(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(16, 8))

    def forward(self, x):
        y = torch.matmul(x, self.w)  # (b, 7, 16) @ (16, 8): collapsed rows
        return torch.bmm(y, y.transpose(1, 2)).softmax(-1)  # dynamic B


def test_products_with_a_dynamic_batch_compile():
    model = Products().eval()
    m = traced.trace(model, torch.randn(2, 7, 16), dynamic_dims={0: "b"})
    c = traced.compile(m)
    for batch in (1, 5):
        x = torch.randn(batch, 7, 16)
        with torch.no_grad():
            _close(c(x.numpy()), model(x))


class ShapeElement(nn.Module):
    def forward(self, x):
        return x.reshape(x.shape[0], -1).relu() + x.size()[1]


def test_shape_elements_of_dynamic_dims_compile():
    m = traced.trace(ShapeElement(), torch.randn(2, 3, 4),
                     dynamic_dims={0: "b"})
    c = traced.compile(m)
    for batch in (1, 5):
        x = torch.randn(batch, 3, 4)
        _close(c(x.numpy()), ShapeElement()(x))


class SumAll(nn.Module):
    def forward(self, x):
        return (x * x).sum(), x.relu().sum() * 2


def test_dynamic_inputs_with_only_0d_outputs_compile():
    """Every output 0-d: the entry's output-dims function returns nothing
    (traced-emit-entry read its missing result and crashed)."""
    m = traced.trace(SumAll(), torch.randn(3, 4), dynamic_dims={0: "b"})
    c = traced.compile(m)
    for batch in (1, 6):
        x = torch.randn(batch, 4)
        got = c(x.numpy())
        want = SumAll()(x)
        for g, w in zip(got, want):
            torch.testing.assert_close(torch.as_tensor(g), w)
