"""The special-values sweep: each op library entry's first floating samples
(opinfo.py) with NaN, inf and -inf (then also -0.0, +-60000 and 0) written
over a quarter of their floating elements, torch 1.13 against the
interpreter and against the entry's decomposition (what the compiled path
runs), interpreted.

The conformance samples draw finite values; models meet infinities anyway
(-inf attention masks, overflowing activations) and NaN. Where torch's
answer is NaN, ours must be NaN; where it is finite, ours must be finite
and close (floats within the dtype sweep's loose tolerances).

KNOWN lists what differs on purpose or is still open, by entry, as a regex
over the sweep's message and the reason; a listed entry that passes fails
the suite, so the list only shrinks.
"""
import random

import pytest
import torch

import traced
from opinfo import OPS
from sweeps import assert_known, check, tensor_samples
from test_conformance import compare
from test_dtype_sweep import LOOSE

SAMPLES_PER_ENTRY = 3
SEEDS = 4
SPECIALS = [float("nan"), float("inf"), float("-inf"), -0.0, 6e4, -6e4, 0.0]

_ORDER = ("the sum meets inf and -inf products in another order than torch's "
          "kernel, or torch skips a product that is NaN here")
KNOWN = {
    **{name: (r"NaN positions differ", "zero padding: torch's convolution "
              "skips padded taps, the interpreter multiplies the padding's 0 by an "
              "infinite weight (NaN)")
       for name in ("torch.conv_tbc", "torch.convolution",
                    "torch.nn.functional.conv1d", "torch.nn.functional.conv2d",
                    "torch.nn.functional.conv3d")},
    "torch.nn.functional.bilinear": (r"interp NaN positions differ", _ORDER),
    "torch.linalg.det": (r"NaN positions differ", "torch's LU pivots on an "
                         "infinite entry; ours eliminates in another order"),
    "torch.nn.functional.adaptive_avg_pool2d": (
        r"max error", "a mean that cancels +-60000: torch sums in float32, "
        "the interpreter in float64"),
    "torch.var_mean": (
        r"NaN positions differ", "the mean of a slice holding an infinity: "
        "torch's Welford update gives NaN (inf - inf), our sum the infinity"),
    "torch.logcumsumexp": (r"decomp non-finite value where torch has a finite one",
                           "the decomposition scales by the slice's maximum, so a "
                           "prefix 87 below it underflows (torch scans pairwise)"),
    "torch.nn.functional.embedding_bag": (
        r"decomp NaN positions differ",
        "mode='max' of a bag holding NaN: torch keeps the first value unless a "
        "later one compares greater (NaN is dropped after the first element); "
        "the decomposition's amax propagates it"),
    "torch.ops.aten.elu_backward.default": (
        r"NaN positions differ", "torch's vectorized and scalar kernels "
        "differ on NaN (elements past the last full vector take the scalar one)"),
    "torch.ops.aten.hardtanh_backward.default": (
        r"max error", "torch's vectorized and scalar kernels differ on NaN; "
        "we follow the vectorized one, small tensors take the scalar one"),
    "torch.ops.aten.native_layer_norm.default": (
        r"NaN positions differ", "the mean output of a slice holding an "
        "infinity: torch's Welford update gives NaN, our sum gives the infinity "
        "(the normalized output is NaN in both)"),
    "torch.ops.aten.native_group_norm.default": (
        r"\[torch\.float32 1\] seed \d: (interp|decomp) NaN positions differ",
        "as native_layer_norm's: the mean of a group holding an infinity"),
    "torch.topk": (r"values differ", "the index torch picks among NaNs"),
}


def _with_specials(sample, seed, count):
    """The sample's inputs with special values over a quarter of each floating
    tensor (seeds below 2: NaN and infinities only)."""
    rng = random.Random(seed * 7919 + count)
    pool = SPECIALS[:3] if seed < 2 else SPECIALS
    out = []
    for x in sample.inputs:
        x = x.clone()
        if x.dtype.is_floating_point and x.numel() and x.is_contiguous():
            flat = x.view(-1)
            for _ in range(max(1, flat.numel() // 4)):
                flat[rng.randrange(flat.numel())] = rng.choice(pool)
        out.append(x)
    return out


def _floats(sample):
    return any(x.dtype.is_floating_point and x.numel() for x in sample.inputs)


def _sweep(entry):
    found = []
    for count, sample in tensor_samples(entry, _floats, SAMPLES_PER_ENTRY):
        for seed in range(SEEDS):
            check(entry, sample.fn, _with_specials(sample, seed, count),
                  f"[{sample.name}] seed {seed}", LOOSE, found)
    return found


@pytest.mark.parametrize("entry", sorted(k for k in OPS if not k.startswith("_")))
def test_special_values(entry):
    assert_known(_sweep(entry), KNOWN.get(entry), "KNOWN")


# Compiled code on special values: one module, every op below applied to a
# row of NaN, +-inf, +-0, overflowing, subnormal and ordinary values. The
# polynomial exp/tanh/erf, the fused softmax and norm kernels and pow's
# number exponents are the compiled path's own code, not the interpreter's.
_F = torch.nn.functional
COMPILED_SPECIALS = {
    "exp": torch.exp, "tanh": torch.tanh, "erf": torch.erf, "erfc": torch.erfc,
    "sigmoid": torch.sigmoid, "gelu": _F.gelu,
    "gelu_tanh": lambda x: _F.gelu(x, approximate="tanh"), "silu": _F.silu,
    "softmax": lambda x: _F.softmax(x, -1), "log_softmax": lambda x: _F.log_softmax(x, -1),
    "softmin": lambda x: _F.softmin(x, -1), "logsumexp": lambda x: torch.logsumexp(x, -1),
    "elu": _F.elu, "selu": _F.selu, "celu": _F.celu, "softplus": _F.softplus, "mish": _F.mish,
    "hardswish": _F.hardswish, "hardsigmoid": _F.hardsigmoid, "relu6": _F.relu6,
    "leaky_relu": _F.leaky_relu, "log": torch.log, "expm1": torch.expm1, "log1p": torch.log1p,
    "exp2": torch.exp2, "log2": torch.log2, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal, "layer_norm": lambda x: _F.layer_norm(x, (x.shape[-1],)),
    "max": lambda x: x.max(-1)[0], "amax": lambda x: x.amax(-1), "min": lambda x: torch.min(x, -1)[0],
    "argmax": lambda x: x.argmax(-1), "argmin": lambda x: x.argmin(-1),
    "max_pool1d": lambda x: _F.max_pool1d(x[None], 2)[0], "clamp": lambda x: x.clamp(-1, 1),
    "sum": lambda x: x.sum(-1), "mean": lambda x: x.mean(-1), "prod": lambda x: x.prod(-1),
    "norm": lambda x: x.norm(dim=-1), "var": lambda x: x.var(-1), "cumsum": lambda x: x.cumsum(-1),
    "sign": torch.sign, "round": torch.round, "floor": torch.floor,
    "pow_half": lambda x: x ** 0.5, "pow_minus_half": lambda x: x ** -0.5,
    "pow_2": lambda x: x ** 2, "pow_3": lambda x: x ** 3, "pow_minus_1": lambda x: x ** -1,
    "pow_minus_2": lambda x: x ** -2, "pow_1_5": lambda x: x ** 1.5,
    "atan2": lambda x: torch.atan2(x, x.flip(-1)), "div": lambda x: x / x.flip(-1),
    "remainder": lambda x: torch.remainder(x, 3.0), "fmod": lambda x: torch.fmod(x, 3.0),
    "nan_to_num": torch.nan_to_num, "maximum": lambda x: torch.maximum(x, x.flip(-1)),
    "minimum": lambda x: torch.minimum(x, x.flip(-1)), "sin": torch.sin, "cos": torch.cos,
    "atan": torch.atan, "asinh": torch.asinh, "logit": torch.logit, "sort": lambda x: x.sort(-1)[0],
    "softsign": _F.softsign, "tanhshrink": _F.tanhshrink,
}


class _Specials(torch.nn.Module):
    def forward(self, x):
        return tuple(fn(x) for fn in COMPILED_SPECIALS.values())


def test_compiled_special_values():
    row = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 100.0, -100.0,
           1e-40, 20.0, -20.0, 3.0, -3.0, 0.5, -0.5]
    x = torch.tensor([row, row[::-1], row[3:] + row[:3]], dtype=torch.float32)
    expected = _Specials()(x)
    tm = traced.trace(_Specials(), x)
    interpreted = tm.interpret(x)
    compiled = traced.compile(tm)(x.numpy())
    bad = []
    for name, e, i, c in zip(COMPILED_SPECIALS, expected, interpreted, compiled):
        for path, got in (("interpreted", i), ("compiled", c)):
            why = compare(got, e, LOOSE)
            if why:
                bad.append(f"{name} {path}: {why}")
    assert not bad, "\n".join(bad)


# Integer extremes: each entry's first samples with their floating and
# integer tensors in int32 and int64, a quarter of the elements replaced by
# the dtype's minimum, maximum, 0, +-1 and maximum - 1. Results must be
# exact: integer kernels wrap as torch's do and keep int64 values beyond
# 2^53 (which a round trip through double would not).
INT_KNOWN = {
    "torch.bucketize": (r"interp values differ", "boundaries and values "
                        "compare as doubles: int64 values beyond 2^53 that "
                        "differ by less than their spacing compare equal"),
    "torch.nn.functional.bilinear": (r"values differ", "integer bilinear "
                                     "sums its products in double, not "
                                     "wrapping int64 arithmetic"),
    "torch.nn.functional.lp_pool1d": (r"NaN positions differ|max error",
                                      "x ** p of int64 extremes (inf in "
                                      "float32, where torch's integer pow wraps)"),
    "torch.nn.functional.lp_pool2d": (r"NaN positions differ|max error",
                                      "as lp_pool1d"),
    "torch.linalg.inv": (r"max error", "ill-conditioned matrices of "
                         "integer extremes: another elimination order"),
}


# Entries torch 1.13 itself cannot take integer extremes into: their
# result's size is a value (bincount's largest, repeat_interleave's counts
# added up), and int64 max overflows the size and crashes the process;
# int32 max asks for 8-16 GiB.
_NO_INT_EXTREMES = {"torch.bincount", "torch.ops.aten.repeat_interleave.Tensor"}


def _int_sweep(entry):
    found = []
    if entry in _NO_INT_EXTREMES:
        return found
    numeric = lambda sample: any(x.numel() and x.dtype != torch.bool  # noqa: E731
                                 for x in sample.inputs)
    for count, sample in tensor_samples(entry, numeric, SAMPLES_PER_ENTRY):
        for dtype in (torch.int32, torch.int64):
            rng = random.Random(count)
            info = torch.iinfo(dtype)
            pool = [info.min, info.max, 0, -1, 1, info.max - 1]
            inputs = []
            for x in sample.inputs:
                if x.numel() and x.dtype != torch.bool:
                    x = x.to(dtype).clone()
                    flat = x.view(-1)
                    for _ in range(max(1, flat.numel() // 4)):
                        flat[rng.randrange(flat.numel())] = rng.choice(pool)
                inputs.append(x)
            # (Refusals are the dtype sweep's part.)
            check(entry, sample.fn, inputs, f"[{sample.name}] {dtype}", LOOSE, found,
                  refusals=False)
    return found


@pytest.mark.parametrize("entry", sorted(k for k in OPS if not k.startswith("_")))
def test_integer_extremes(entry):
    assert_known(_int_sweep(entry), INT_KNOWN.get(entry), "INT_KNOWN")


# The compiled path on the same special values: each entry's samples that
# the interpreter gets right (above) compiled and run, seeds 0 and 2 (NaN
# and infinities; then also -0.0 and +-60000).
COMPILED_KNOWN = {
    "torch.logcumsumexp": (r"non-finite value where torch has a finite one",
                           "as the decomposition (KNOWN above)"),
    **{f"torch.nn.functional.conv_transpose{n}d": (
        r"NaN positions differ", "the compiled transposed convolution "
        "convolves the zero-dilated input, so an infinite weight meets the "
        "inserted zeros (NaN); torch scatters, as the interpreter does")
       for n in (1, 2, 3)},
    "torch.ops.aten.convolution_backward.default": (
        r"\[plain 0\] seed \d: compiled NaN positions differ",
        "grad_input decomposes into a transposed convolution: the same "
        "inserted zeros as conv_transpose's above"),
}


def _to_callable(x):
    return x if x.dtype == torch.bfloat16 else x.numpy()


def _compiled_sweep(entry):
    found = []
    for count, sample in tensor_samples(entry, _floats, SAMPLES_PER_ENTRY):
        for seed in (0, 2):
            inputs = _with_specials(sample, seed, count)
            where = f"[{sample.name}] seed {seed}"
            # Only what the interpreter gets right (the sweeps above report
            # the rest): its own differences land in a list thrown away.
            interpreted = []
            ran = check(entry, sample.fn, inputs, where, LOOSE, interpreted, refusals=False)
            if not ran or not isinstance(ran[0], torch.Tensor) or \
                    any(": interp " in f for f in interpreted):
                continue
            expected, tm, _ = ran
            try:
                compiled = traced.compile(tm)
            except traced.Error:
                continue  # not compiled at all: the conformance suite's part
            try:
                out = compiled(*[_to_callable(x.clone()) for x in inputs])
            except Exception as e:  # noqa: BLE001
                found.append(f"{where}: compiled raises {(str(e).splitlines() or [type(e).__name__])[0][:200]}")
                continue
            why = compare(out[0] if isinstance(out, (list, tuple)) else out, expected, LOOSE)
            if why:
                found.append(f"{where}: compiled {why}")
    return found


@pytest.mark.parametrize("entry", sorted(k for k in OPS if not k.startswith("_")))
def test_compiled_special_sweep(entry):
    assert_known(_compiled_sweep(entry), COMPILED_KNOWN.get(entry), "COMPILED_KNOWN")
