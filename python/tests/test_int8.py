"""The int8 path (docs/quantization.md, "int8 code"): quint8 convolutions
and linears with qint8 weights lower to traced.int8.conv2d and
traced.int8.linear, computed by the int8 runtime (exact int32 sums with
AMX, VNNI or a portable loop, then the float32 requantization).
Interpreted and compiled, they agree with each other exactly and with
torch's quantized CPU backend (onednn) within one quantization step; the
three paths agree exactly."""
import os
import subprocess
import sys

import pytest
import torch
import torch.ao.nn.quantized as nnq
import torch.nn.intrinsic.quantized as nniq

import host
import traced

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

# Without VNNI, torch's oneDNN sums pairs of uint8 x int8 products in int16
# with saturation (test_quantized.py, BACKEND): inputs stay within 7 bits
# there so that torch's answer is the exact one.
TOP = 255 if host.VNNI else 127


# The onednn engine for every test (an autouse fixture), and the wrapper
# that calls a quantized module.
from test_quantized import _Wrap as _Call, onednn  # noqa: E402,F401


def _weight(shape, per_channel, g):
    w = torch.randn(*shape, generator=g) * 0.1
    if per_channel:
        scales = torch.rand(shape[0], dtype=torch.float64, generator=g) * 0.004 + 0.001
        return torch.quantize_per_channel(w, scales, torch.zeros(shape[0], dtype=torch.long), 0,
                                          torch.qint8)
    return torch.quantize_per_tensor(w, 0.003, 0, torch.qint8)


def _input(shape, g, scale=0.05, zero_point=None):
    ints = torch.randint(0, TOP + 1, shape, generator=g)
    zp = int(torch.randint(0, TOP + 1, (), generator=g)) if zero_point is None else zero_point
    return torch._make_per_tensor_quantized_tensor(ints.to(torch.uint8), scale, zp)


# (in channels, out channels, kernel, stride, padding, dilation, H, W,
# batch, per-channel weight, ReLU[, groups])
CONVS = {
    "stem": (3, 16, (3, 3), 2, 1, 1, 17, 20, 1, True, False),
    "pointwise relu batch 2": (4, 6, (1, 1), 1, 0, 1, 7, 7, 2, False, True),
    "rectangular dilated": (5, 13, (3, 1), (1, 2), (2, 0), (2, 1), 9, 11, 1, True, True),
    "two pixel blocks": (16, 40, (3, 3), 1, 1, 1, 8, 9, 1, True, False),
    "7x7 stride 2": (64, 7, (7, 7), 2, 3, 1, 15, 15, 1, False, False),
    # 1020 pixels: 16 blocks of 64, each packed and computed by one thread
    # (16 + 8 channels: one AMX tile, then VNNI rows).
    "many blocks": (3, 24, (5, 5), 1, 2, 1, 30, 34, 1, True, False),
    # Channels a multiple of 64 and rows of 14 or more: AMX tiles read the
    # blocked input directly (a row of 37: 32 + 5 columns; 40 channels:
    # 32 + a tail of 8; a row of 15 in one tile, 16 channels).
    "direct relu": (64, 40, (3, 3), 1, 1, 1, 20, 37, 1, True, True),
    "direct stride 2 dilated": (128, 16, (3, 3), 2, 2, 2, 30, 30, 2, False, False),
    # Depthwise (groups = channels): a row of 17 is 16 + 1 columns.
    "depthwise stride 2 relu": (32, 32, (3, 3), 2, 1, 1, 15, 33, 1, True, True, 32),
    "depthwise 5x5 dilated": (8, 8, (5, 5), 1, 4, 2, 9, 10, 2, False, False, 8),
    "depthwise stride 3": (6, 6, (3, 3), 3, 1, 1, 11, 13, 1, True, False, 6),
    # Stride 3 (the blocked input's rows spread over three phases), 5
    # channels (a second group of 4 with 3 zero channels).
    "stride 3": (5, 8, (3, 3), 3, 1, 1, 13, 35, 1, False, False),
}


def _conv_module(case, seed=0):
    c, oc, k, stride, padding, dilation, h, w, n, per_channel, relu, *groups = CONVS[case]
    groups = groups[0] if groups else 1
    g = torch.Generator().manual_seed(seed)
    conv = (nniq.ConvReLU2d if relu else nnq.Conv2d)(c, oc, k, stride=stride, padding=padding,
                                                      dilation=dilation, groups=groups)
    conv.set_weight_bias(_weight((oc, c // groups) + k, per_channel, g),
                         torch.randn(oc, generator=g))
    conv.scale, conv.zero_point = 0.11, int(torch.randint(0, 256, (), generator=g))
    return _Call(conv), _input((n, c, h, w), g)


# (input shape, out features, per-channel weight, ReLU)
LINEARS = {
    "one row": ((1, 64), 33, True, False),
    "rows relu, k not a multiple of 4": ((3, 5), 7, False, True),
    "3-d input": ((2, 3, 100), 1, True, False),
    # k a multiple of 64 and 14 rows or more: AMX tiles read the rows'
    # channel groups directly (20 rows: 16 + 4; 40 outputs: 32 + 8).
    "rows direct relu": ((20, 128), 40, True, True),
}


def _linear_module(case, seed=0):
    shape, n, per_channel, relu = LINEARS[case]
    g = torch.Generator().manual_seed(seed)
    lin = (nniq.LinearReLU if relu else nnq.Linear)(shape[-1], n)
    lin.set_weight_bias(_weight((n, shape[-1]), per_channel, g), torch.randn(n, generator=g))
    lin.scale, lin.zero_point = 0.2, int(torch.randint(0, 256, (), generator=g))
    return _Call(lin), _input(shape, g, scale=0.03)


def _lowered_targets(tm):
    """The entries traced-lower-quantized leaves in the flattened graph."""
    opt = os.path.join(os.path.dirname(traced.__file__), "..", "..", "bin", "traced-opt")
    out = subprocess.run([opt, "--traced-flatten", "--traced-dce", "--traced-lower-quantized"],
                         input=str(tm), capture_output=True, text=True, check=True).stdout
    return out


def _check(module, x):
    tm = traced.trace(module, x)
    with torch.no_grad():
        expected = module(x)
    interpreted = tm.interpret(x)[0]
    compiled = traced.compile(tm)(x)
    assert interpreted.is_quantized and compiled.is_quantized
    assert interpreted.q_scale() == expected.q_scale()
    assert interpreted.q_zero_point() == expected.q_zero_point()
    assert torch.equal(compiled.int_repr(), interpreted.int_repr())
    steps = (interpreted.int_repr().int() - expected.int_repr().int()).abs()
    assert steps.max() <= 1
    assert (steps == 0).float().mean() >= 0.99
    return tm


@pytest.mark.parametrize("case", list(CONVS))
def test_conv(case):
    module, x = _conv_module(case)
    tm = _check(module, x)
    assert '"traced.int8.conv2d"' in _lowered_targets(tm)


@pytest.mark.parametrize("case", list(LINEARS))
def test_linear(case):
    module, x = _linear_module(case)
    tm = _check(module, x)
    assert '"traced.int8.linear"' in _lowered_targets(tm)


class _AddAfter(torch.nn.Module):
    """A quantized conv or linear, then torch.ops.quantized.add or add_relu
    of its output and a residual (the add of a ResNet block), with the
    residual first when `swapped`."""

    def __init__(self, m, relu, swapped, scale=0.09, zero_point=71):
        super().__init__()
        self.m, self.relu, self.swapped = m, relu, swapped
        self.scale, self.zero_point = scale, zero_point

    def forward(self, x, r):
        y = self.m(x)
        a, b = (r, y) if self.swapped else (y, r)
        add = torch.ops.quantized.add_relu if self.relu else torch.ops.quantized.add
        return add(a, b, self.scale, self.zero_point)


def _residual(like, g):
    return _input(tuple(like.shape), g, scale=0.13)


# (conv or linear case, add_relu, residual first)
ADDS = {
    "direct conv, add_relu": ("conv", "direct relu", True, False),
    "packed conv, add, swapped": ("conv", "two pixel blocks", False, True),
    "depthwise conv, add": ("conv", "depthwise stride 2 relu", False, False),
    "linear rows, add_relu": ("linear", "rows direct relu", True, True),
    "3-d linear, add": ("linear", "3-d input", False, False),
}


def _add_module(case, seed=0):
    kind, inner, relu, swapped = ADDS[case]
    m, x = (_conv_module if kind == "conv" else _linear_module)(inner, seed)
    g = torch.Generator().manual_seed(seed + 100)
    with torch.no_grad():
        r = _residual(m(x), g)
    return _AddAfter(m, relu, swapped), (x, r)


@pytest.mark.parametrize("case", list(ADDS))
def test_residual_add_fused(case):
    """A quantized add of an int8 contraction's output and a residual
    fuses into the contraction's epilogue (traced.int8.conv2d/linear with a
    residual): it gives the integers the unfused graph gives (the float
    path of the add after the int8 contraction), interpreted and compiled,
    and torch's within one step."""
    module, (x, r) = _add_module(case)
    tm = traced.trace(module, (x, r))
    lowered = _lowered_targets(tm)
    assert "residual=" in lowered and "torch.ops.quantized.add" not in lowered
    with torch.no_grad():
        expected = module(x, r)
    interpreted = tm.interpret(x, r)[0]
    compiled = traced.compile(tm)(x, r)
    assert interpreted.q_scale() == expected.q_scale()
    assert interpreted.q_zero_point() == expected.q_zero_point()
    assert torch.equal(compiled.int_repr(), interpreted.int_repr())
    # The add alone, interpreted (torch.ops.quantized.add's kernel), of the
    # int8 contraction's integers: exactly the fused answer.
    with torch.no_grad():
        y = module.m(x)
    inner = traced.trace(module.m, x)
    y_ours = inner.interpret(x)[0]
    a, b = (r, y_ours) if module.swapped else (y_ours, r)
    add_only = traced.trace(_AddAfter(_Identity(), module.relu, False, module.scale,
                                      module.zero_point), (a, b))
    assert torch.equal(add_only.interpret(a, b)[0].int_repr(), interpreted.int_repr())
    steps = (interpreted.int_repr().int() - expected.int_repr().int()).abs()
    assert steps.max() <= 1
    del y


class _Identity(torch.nn.Module):
    def forward(self, x):
        return x


def test_residual_add_not_fused_when_shared():
    """The contraction's output read by something else besides the add
    stays a separate call, and the add keeps its float path."""
    class Shared(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x, r):
            y = self.m(x)
            return torch.ops.quantized.add(y, r, 0.1, 3), y

    m, x = _conv_module("direct relu")
    with torch.no_grad():
        r = _residual(m(x), torch.Generator().manual_seed(5))
    module = Shared(m)
    tm = traced.trace(module, (x, r))
    lowered = _lowered_targets(tm)
    assert "residual=" not in lowered
    expected = module(x, r)
    for got, want in zip(traced.compile(tm)(x, r), expected):
        steps = (got.int_repr().int() - want.int_repr().int()).abs()
        assert steps.max() <= 1


_PATHS_SCRIPT = r"""
import sys, torch
sys.path.insert(0, {tests!r})
import test_int8, traced
torch.backends.quantized.engine = "onednn"
out = []
for case in test_int8.CONVS:
    m, x = test_int8._conv_module(case, seed=1)
    tm = traced.trace(m, x)
    out += [tm.interpret(x)[0].int_repr(), traced.compile(tm)(x).int_repr()]
for case in test_int8.LINEARS:
    m, x = test_int8._linear_module(case, seed=1)
    tm = traced.trace(m, x)
    out += [tm.interpret(x)[0].int_repr(), traced.compile(tm)(x).int_repr()]
for case in test_int8.ADDS:
    m, xs = test_int8._add_module(case, seed=1)
    tm = traced.trace(m, xs)
    out += [tm.interpret(*xs)[0].int_repr(), traced.compile(tm)(*xs).int_repr()]
torch.save(out, sys.argv[1])
"""


def test_vnni_and_portable_paths_agree(tmp_path):
    """The runtime's AMX tiles (where the CPU has them), its VNNI tiles
    (TRACED_INT8_NO_AMX) and its portable loops (TRACED_INT8_PORTABLE) give
    the same integers, interpreted and compiled."""
    script = _PATHS_SCRIPT.format(tests=os.path.dirname(os.path.abspath(__file__)))
    results = []
    for mode in (None, "TRACED_INT8_NO_AMX", "TRACED_INT8_PORTABLE"):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRACED_INT8_")}
        if mode:
            env[mode] = "1"
        path = tmp_path / f"{mode}.pt"
        subprocess.run([sys.executable, "-c", script, str(path)], env=env, check=True)
        results.append(torch.load(path))
    assert len(results[0]) == 2 * (len(CONVS) + len(LINEARS) + len(ADDS))
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert torch.equal(a, b)


def test_runtime_refuses_a_bad_packed_weight():
    """traced.int8.conv2d's rule checks the packed weight's layout."""
    text = """
traced.module root @Bad class "Bad" {
  graph @forward(%self: !traced.module<@Bad>, %x: tensor<1x3x4x4xui8>, %w: tensor<2x32xi8>, %m: tensor<2xf32>, %k: tensor<2xi32>) -> tensor<1x2x4x4xui8> {
    %c = call_function "traced.int8.conv2d"(%x, %w, %m, %m, %k, [1, 1]) : (tensor<1x3x4x4xui8>, tensor<2x32xi8>, tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) -> tensor<1x2x4x4xui8>
    output %c : tensor<1x2x4x4xui8>
  }
}"""
    with pytest.raises(traced.Error, match="packed in rows of 64"):
        traced.parse(text)


def test_shared_library(tmp_path):
    """A saved library of an int8 convolution carries the int8 runtime (no
    C++ runtime library needed) and gives the JIT's integers."""
    import ctypes

    import numpy as np
    module, x = _conv_module("stem")
    tm = traced.trace(module, x)
    path = traced.save_library(tm, tmp_path / "libint8.so")
    lib = ctypes.CDLL(str(path))
    entry = lib.traced_forward
    entry.argtypes = [ctypes.POINTER(ctypes.c_void_p)] * 2
    entry.restype = ctypes.c_int
    expected = traced.compile(tm)(x).int_repr().numpy()
    inp = np.ascontiguousarray(x.int_repr().numpy())
    out = np.zeros_like(expected)
    assert entry((ctypes.c_void_p * 1)(inp.ctypes.data),
                 (ctypes.c_void_p * 1)(out.ctypes.data)) == 0
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3), stride=None, padding=(1, 0), dilation=(2, 1)),
    dict(kernel_size=3, stride=2, ceil_mode=True),
])
def test_max_pool_by_taps(kwargs):
    """max_pool2d of quint8 tensors, compiled as the maximum of its taps'
    strided slices of the storage integers: exactly torch's."""
    class Pool(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.max_pool2d(x, **kwargs)

    x = _input((2, 3, 11, 12), torch.Generator().manual_seed(3))
    tm = traced.trace(Pool(), x)
    expected = Pool()(x)
    for got in (tm.interpret(x)[0], traced.compile(tm)(x)):
        assert got.q_scale() == expected.q_scale()
        assert torch.equal(got.int_repr(), expected.int_repr())
    assert '"torch.maximum"' in _lowered_targets(tm)


def test_compiled_quantized_io_in_place(monkeypatch):
    """A compiled call reads a contiguous quantized input's storage
    integers in place and writes a quantized output straight into a torch
    quantized tensor: no int_repr or copy on torch's thread pool, whose
    workers would then spin beside the compiled code's (docs/cpu.md). A
    strided input is copied; per-channel outputs are made too."""
    scales = torch.tensor([0.1, 0.2, 0.05], dtype=torch.float64)
    zps = torch.tensor([0, 3, -2])

    class M(torch.nn.Module):
        def forward(self, x):
            y = torch.quantize_per_channel(x.dequantize(), scales, zps, 1, torch.qint8)
            return torch.nn.functional.relu(x), y

    x = _input((2, 3, 4, 5), torch.Generator().manual_seed(4))
    tm = traced.trace(M(), x)
    compiled = traced.compile(tm)
    want = tm.interpret(x)
    strided = _input((2, 3, 5, 4), torch.Generator().manual_seed(5),
                     zero_point=x.q_zero_point()).transpose(2, 3)
    want_strided = tm.interpret(strided)
    with monkeypatch.context() as m:
        def refuse(self):
            raise AssertionError("int_repr called")
        m.setattr(torch.Tensor, "int_repr", refuse)
        got = compiled(x)
    for g, w in zip(got, want):
        assert g.is_quantized and g.qscheme() == w.qscheme() and g.dtype == w.dtype
        assert torch.equal(g.dequantize(), w.dequantize())
        assert torch.equal(g.int_repr(), w.int_repr())
    assert x.is_contiguous() and not strided.is_contiguous()
    for g, w in zip(compiled(strided), want_strided):
        assert torch.equal(g.int_repr(), w.int_repr())


def test_set_num_threads():
    """traced.set_num_threads sets the thread count of every compiled call
    (libomp's, which torch.set_num_threads does not reach); each call says
    the count it used, and 0 restores libomp's default. The answers do
    not depend on it."""
    module, x = _conv_module("direct relu")
    compiled = traced.compile(traced.trace(module, x))
    default = traced.get_num_threads()
    assert compiled.last_threads is None
    want = compiled(x).int_repr()
    assert compiled.last_threads == default
    import ctypes
    libomp = ctypes.CDLL("libomp.so.5")  # (already loaded: compiled code's)
    try:
        for n in (1, 3):
            traced.set_num_threads(n)
            assert traced.get_num_threads() == n
            assert torch.equal(compiled(x).int_repr(), want)
            assert compiled.last_threads == n
            # The calling thread's OpenMP regions now start n threads.
            assert libomp.omp_get_max_threads() == n
    finally:
        traced.set_num_threads(0)
    assert traced.get_num_threads() == default
    compiled(x)
    assert compiled.last_threads == default
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="non-negative int"):
            traced.set_num_threads(bad)


@pytest.mark.parametrize("mode", [None, "TRACED_INT8_NO_AMX", "TRACED_INT8_PORTABLE"])
def test_saturating_outputs(mode):
    """An output scale so small that most sums land far outside [0, 255]
    (past 2^24 and past int32 once scaled): every path saturates them as
    torch does, to 0 or 255."""
    code = r"""
import sys, torch
sys.path.insert(0, {tests!r})
import test_int8, traced
torch.backends.quantized.engine = "onednn"
m, x = test_int8._conv_module("direct relu")
m.m.scale, m.m.zero_point = 1e-9, 3
tm = traced.trace(m, x)
want = m(x).int_repr()
assert (want == 255).any() and (want == 3).any()
for got in (tm.interpret(x)[0], traced.compile(tm)(x)):
    assert torch.equal(got.int_repr(), want)
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRACED_INT8_")}
    if mode:
        env[mode] = "1"
    subprocess.run([sys.executable, "-c",
                    code.format(tests=os.path.dirname(os.path.abspath(__file__)))],
                   env=env, check=True)
