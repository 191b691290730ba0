"""One set of call-path rules (docs/python.md, "Calling a traced module"),
the everyday forms of traced.trace (keyword inputs, functions, a tuple of
inputs, namedtuple outputs, TorchScript modules, dynamic dims) and small
papercuts: issue 58, parts 3, 4 and 6."""
import collections
import ctypes
import pathlib
import re
import shlex
import shutil
import subprocess
from typing import Tuple

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import traced
from traced import _traced

ROOT = pathlib.Path(__file__).resolve().parents[2]


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


# -- 4. everyday forms --------------------------------------------------------------

class Encoder(nn.Module):
    """A forward with keyword inputs, as Hugging Face models have."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8)
        self.fc = nn.Linear(8, 8)

    def forward(self, input_ids, token_type_ids=None, attention_mask=None):
        h = self.fc(self.embed(input_ids))
        if attention_mask is not None:
            h = h * attention_mask.unsqueeze(-1)
        return h


@pytest.mark.parametrize("mode", ["auto", "symbolic", "concrete"])
def test_keyword_example_inputs(mode):
    torch.manual_seed(0)
    model = Encoder().eval()
    ids = torch.randint(0, 20, (2, 5))
    am = torch.tensor([[1.0] * 5, [1.0] * 3 + [0.0] * 2])
    m = traced.trace(model, ids, attention_mask=am, mode=mode)
    # The graph's inputs follow forward's signature; the skipped one took
    # its default.
    assert [n.name for n in m.graph.inputs[1:]] == \
        ["input_ids", "token_type_ids", "attention_mask"]
    assert str(m.graph.inputs[2].type) == "!traced.none"
    with torch.no_grad():
        want = model(ids, attention_mask=am)
    torch.testing.assert_close(m.interpret(ids, attention_mask=am)[0], want)
    c = traced.compile(m, cache=False)
    torch.testing.assert_close(c(ids, attention_mask=am), want)
    torch.testing.assert_close(c(ids, None, am), want)


class TypedEncoder(Encoder):
    """Hugging Face's pattern: a None input replaced by a default tensor."""

    def __init__(self):
        super().__init__()
        self.types = nn.Embedding(2, 8)

    def forward(self, input_ids, token_type_ids=None, attention_mask=None):
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        h = self.fc(self.embed(input_ids) + self.types(token_type_ids))
        return h * attention_mask.unsqueeze(-1)


def test_none_keyword_inputs_trace_concretely():
    # torch.fx proxies the None token_type_ids, so `is None` takes the other
    # branch: mode="auto" falls back to concrete tracing, and "symbolic"
    # says so.
    torch.manual_seed(0)
    model = TypedEncoder().eval()
    ids, am = torch.randint(0, 20, (2, 5)), torch.ones(2, 5)
    m = traced.trace(model, ids, attention_mask=am)
    with torch.no_grad():
        want = model(ids, attention_mask=am)
    torch.testing.assert_close(traced.compile(m, cache=False)(ids, attention_mask=am),
                               want)
    with pytest.raises(traced.TraceError, match="None input.* token_type_ids .*"
                                                "mode='concrete' traces them"):
        traced.trace(model, ids, attention_mask=am, mode="symbolic")


def test_keyword_dynamic_dims_by_input_name():
    torch.manual_seed(0)
    model = Encoder().eval()
    ids = torch.randint(0, 20, (2, 5))
    am = torch.ones(2, 5)
    m = traced.trace(model, ids, attention_mask=am,
                     dynamic_dims={"input_ids": {1: "seq"},
                                   "attention_mask": {1: "seq"}})
    ids7, am7 = torch.randint(0, 20, (2, 7)), torch.rand(2, 7)
    with torch.no_grad():
        want = model(ids7, attention_mask=am7)
    torch.testing.assert_close(m.interpret(ids7, attention_mask=am7)[0], want)
    with pytest.raises(traced.TraceError, match="names 'mask', which is no input"):
        traced.trace(model, ids, attention_mask=am, dynamic_dims={"mask": {1: "s"}})


def gelu_mlp(x, w, bias=None):
    y = F.gelu(x @ w)
    return y if bias is None else y + bias


@pytest.mark.parametrize("mode", ["auto", "concrete"])
def test_plain_function(mode):
    x, w = torch.randn(3, 4), torch.randn(4, 5)
    m = traced.trace(gelu_mlp, x, w, mode=mode)
    assert m.root_name == "gelu_mlp"
    assert [n.name for n in m.graph.inputs[1:]] == ["x", "w"]
    # The function's own lines are the exprs' locations.
    assert "test_call_paths.py" in m.to_string(debuginfo=True)
    want = gelu_mlp(x, w)
    torch.testing.assert_close(m.interpret(x, w)[0], want)
    torch.testing.assert_close(traced.compile(m, cache=False)(x, w), want)
    b = torch.randn(5)
    m = traced.trace(gelu_mlp, x, w, bias=b, mode=mode)
    torch.testing.assert_close(m.interpret(x, w, b)[0], gelu_mlp(x, w, b))


def test_lambda_and_bound_method():
    x = torch.randn(2, 4)
    m = traced.trace(lambda t: torch.relu(t) + 1, x)
    assert m.root_name == "lambda"
    torch.testing.assert_close(m.interpret(x)[0], torch.relu(x) + 1)
    model = Scaled().eval()
    m = traced.trace(model.forward, x, torch.ones(2, 3))
    # The module is the submodule `model`: its weights stay parameters.
    assert m.model.fc.weight.shape == (3, 4)
    with torch.no_grad():
        want = model(x, torch.ones(2, 3))
    torch.testing.assert_close(traced.compile(m, cache=False)(x, torch.ones(2, 3)), want)


class AddOne(nn.Module):
    def forward(self, x):
        return x + 1


class Pair(nn.Module):
    def forward(self, x, y):
        return x * y


class TakesTuple(nn.Module):
    def forward(self, xs: Tuple[torch.Tensor, ...]):
        return xs[0] - xs[-1]


class TakesTupleUnannotated(nn.Module):
    def forward(self, xs):
        return xs[0] - xs[1]


def test_a_single_tuple_is_the_inputs():
    x, y = torch.randn(3), torch.randn(3)
    m = traced.trace(AddOne(), (x,))
    assert [n.name for n in m.graph.inputs[1:]] == ["x"]
    torch.testing.assert_close(m.interpret(x)[0], x + 1)
    m = traced.trace(Pair(), (x, y))
    torch.testing.assert_close(traced.compile(m, cache=False)(x, y), x * y)
    # A forward that takes a tuple keeps it: annotated, or the elements do
    # not bind to its parameters.
    for module in (TakesTuple(), TakesTupleUnannotated()):
        m = traced.trace(module, (x, y))
        assert len(m.graph.inputs) == 2
        assert str(m.graph.inputs[1].type).startswith("tuple<")
    m = traced.trace(TakesTuple(), (x,))
    assert str(m.graph.inputs[1].type).startswith("tuple<")


Out = collections.namedtuple("Out", "logits features")


class NamedOutputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        h = torch.relu(x)
        return Out(self.fc(h), h)


@pytest.mark.parametrize("mode", ["auto", "symbolic", "concrete"])
def test_namedtuple_outputs(mode):
    # One graph output per field in every mode (symbolic traces recorded a
    # call of the namedtuple class, which nothing could run).
    torch.manual_seed(0)
    model = NamedOutputs().eval()
    x = torch.randn(3, 4)
    m = traced.trace(model, x, mode=mode)
    assert len(m.graph.outputs) == 2
    assert "test_call_paths.Out" not in str(m)
    with torch.no_grad():
        want = tuple(model(x))
    torch.testing.assert_close(tuple(m.interpret(x)), want)
    torch.testing.assert_close(traced.compile(m, cache=False)(x), want)


class Scriptable(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.seq = nn.Sequential(nn.ReLU(), nn.Linear(3, 3))
        self.register_buffer("shift", torch.full((3,), 0.5))
        self.k = 2.0

    def forward(self, x):
        return self.seq(self.fc(x) * self.k + self.shift)


def test_jit_script_module_traces_its_python():
    torch.manual_seed(0)
    model = Scriptable().eval()
    scripted = torch.jit.script(model)
    x = torch.randn(2, 4)
    m = traced.trace(scripted, x)
    assert m.root_name == "Scriptable"
    assert "call_method %seq" in str(m)
    with torch.no_grad():
        want = scripted(x)
    torch.testing.assert_close(m.interpret(x)[0], want)
    torch.testing.assert_close(traced.compile(m, cache=False)(x), want)


def test_torchscript_without_python_is_a_trace_error(tmp_path):
    model = Scriptable().eval()
    x = torch.randn(2, 4)
    torch.jit.save(torch.jit.script(model), str(tmp_path / "s.pt"))
    for scripted, how in ((torch.jit.load(str(tmp_path / "s.pt")), "torch.jit.load"),
                          (torch.jit.trace(model, x), "torch.jit.trace")):
        with pytest.raises(traced.TraceError, match=rf"\({re.escape(how)}\).*"
                                                    r"trace the torch.nn.Module itself"):
            traced.trace(scripted, x)

    @torch.jit.script
    def scripted_fn(t):
        return t + 1

    with pytest.raises(traced.TraceError, match="trace the Python function itself"):
        traced.trace(scripted_fn, x)


def test_summary_with_dynamic_dims():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)).eval()
    m = traced.trace(model, torch.randn(2, 16), dynamic_dims={0: "batch"})
    s = m.summary(print=False)
    assert s.dynamic and s.input_shapes == [(None, 16)]
    assert s.rows[0].output_shapes == [(None, 4)]
    # MACs at size 1 of the dynamic dim: those of a batch-1 trace.
    one = traced.trace(model, torch.randn(1, 16)).summary(print=False)
    assert s.total_macs == one.total_macs == 16 * 32 + 32 * 4
    table = str(s)
    assert "[?, 32]" in table and "Input: [?, 16] float32" in table
    assert "MACs at size 1 of every dynamic dim" in table


class Fixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 32)

    def forward(self, x):
        return self.fc(x)


@pytest.mark.parametrize("mode", ["auto", "concrete"])
def test_dynamic_dim_the_model_fixes(mode):
    with pytest.raises(traced.TraceError) as info:
        traced.trace(Fixed(), torch.randn(2, 16), dynamic_dims={1: "f"}, mode=mode)
    message = str(info.value)
    assert message.startswith("dim 1 ('f') of input 1 ('x') cannot be dynamic: "
                              "the model fixes its size, 16. At 17, ")
    assert re.search(r"test_call_paths\.py:\d+ \(return self\.fc\(x\)\) raises "
                     r"RuntimeError: mat1 and mat2 shapes", message), message
    # With several dynamic dims, the one the model fixes is named.
    with pytest.raises(traced.TraceError, match=r"^dim 1 \('f'\) of input 1"):
        traced.trace(Fixed(), torch.randn(2, 16), dynamic_dims={0: "b", 1: "f"})


def test_example_inputs_that_do_not_fit_are_trace_errors():
    x = torch.randn(3)
    with pytest.raises(traced.TraceError, match=r"do not fit .*AddOne\.forward\(x\)"):
        traced.trace(AddOne(), x, x)
    with pytest.raises(traced.TraceError, match="unexpected keyword argument 'y'"):
        traced.trace(AddOne(), x, y=x)
    with pytest.raises(traced.TraceError, match="takes a torch.nn.Module or a "
                                                "Python function, not int"):
        traced.trace(42, x)
    with pytest.raises(traced.TraceError, match="leaf_functions takes a list"):
        traced.trace(AddOne(), x, leaf_functions=len)


# -- 6. small things ----------------------------------------------------------------

def test_save_refuses_unknown_suffixes(scaled, tmp_path):
    _, m, _, _, _ = scaled
    for name in ("r.pt", "r.onnx", "r"):
        with pytest.raises(traced.Error, match=r"\.mlir \(MLIR text\), \.mlirbc "
                                               r"\(MLIR bytecode\) or \.json"):
            m.save(tmp_path / name)
        assert not (tmp_path / name).exists()
    m.save(tmp_path / "r.mlir")
    assert traced.load(tmp_path / "r.mlir").root_name == "Scaled"


def _readme_link_command():
    """README's clang-22 line (with its continuation lines)."""
    lines = (ROOT / "README.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("clang-22 -shared"))
    command = ""
    for line in lines[start:]:
        command += line.rstrip("\\").split("#")[0] + " "
        if not line.endswith("\\"):
            break
    return shlex.split(command)


@pytest.mark.skipif(shutil.which("clang-22") is None, reason="no clang-22")
def test_readme_link_line_builds_a_library_that_loads(tmp_path):
    # The README's line once linked with -lm only: a model whose matmul
    # runs on several threads calls libomp, and dlopen then failed on
    # `undefined symbol: __kmpc_barrier`.
    torch.manual_seed(0)
    model = nn.Linear(256, 256).eval()
    x = torch.randn(64, 256)
    m = traced.trace(model, x)
    obj = tmp_path / "m.o"
    _traced.write_cpu_object(m._state, str(obj), "forward", True, False)
    undefined = subprocess.run(["nm", "-u", str(obj)], capture_output=True,
                               text=True).stdout
    assert "__kmpc_barrier" in undefined  # (what makes the link line matter)
    command = _readme_link_command()
    assert command[:2] == ["clang-22", "-shared"]
    command = [str(obj) if a == "/tmp/m.o" else
               str(tmp_path / "libm.so") if a == "/tmp/libm.so" else a
               for a in command]
    subprocess.run(command, check=True, capture_output=True)
    lib = ctypes.CDLL(str(tmp_path / "libm.so"))
    entry = lib.traced_forward
    entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
    a = np.ascontiguousarray(x.numpy())
    out = np.empty((64, 256), np.float32)
    assert entry((ctypes.c_void_p * 1)(a.ctypes.data),
                 (ctypes.c_void_p * 1)(out.ctypes.data)) == 0
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(out), model(x),
                                   rtol=1e-4, atol=1e-4)
