"""The special-values sweep: each op library entry's first floating samples
(opinfo.py) with NaN, inf and -inf (then also -0.0, +-60000 and 0) written
over a quarter of their floating elements, torch 1.13 against the
interpreter and against the entry's decomposition (what the compiled path
runs), interpreted.

The conformance samples draw finite values; models meet infinities anyway
(-inf attention masks, overflowing activations) and NaN. Where torch's
answer is NaN, ours must be NaN; where it is finite, ours must be finite
and close (floats within the dtype sweep's loose tolerances).

Floats compare element by element (test_conformance.compare), at LOOSE
or an entry's own tolerance (_CANCELLING, with the reason). KNOWN,
INT_KNOWN and COMPILED_KNOWN list what differs on purpose or is still open,
by entry: the exact cases ("[sample] seed N: path") and the reason; a
listed case that passes fails the suite, so the lists only shrink.
"""
import random

import pytest
import torch

import traced
from opinfo import OPS
from sweeps import Finding, assert_known, check, tensor_samples
from test_conformance import compare
from test_dtype_sweep import LOOSE

SAMPLES_PER_ENTRY = 3
SEEDS = 4
SPECIALS = [float("nan"), float("inf"), float("-inf"), -0.0, 6e4, -6e4, 0.0]

_ORDER = ("the sum meets inf and -inf products in another order than torch's "
          "kernel, or torch skips a product that is NaN here")


def _cases(sample, seeds, paths=("interp",)):
    """The exact cases (sweeps.Finding.case) of `sample` at `seeds`."""
    return [f"[{sample}] seed {s}: {p}" for s in seeds for p in paths]


_BOTH = ("interp", "decomp")
_CONV_PADDING = ("zero padding: torch's convolution skips padded taps, the "
                 "interpreter multiplies the padding's 0 by an infinite weight (NaN)")
# What differs, by entry: the exact cases ("[sample] seed N: path") and why.
# A listed case that no longer differs fails the suite, as does any case
# not listed.
KNOWN = {
    # Refused on purpose: a scale that is NaN, infinite or not positive has
    # no quantized type (torch computes with it, meaninglessly).
    "torch.quantize_per_channel": (_cases("qint8 axis 0", range(4), ("refusal",)) +
                                   _cases("quint8 axis 1", range(4), ("refusal",)),
                                   "scales of NaN, infinity or zero have no quantized type"),
    "torch.conv_tbc": (_cases("pad", (0, 2, 3)), _CONV_PADDING),
    # (n = 60000 written over the grid's n: 60000 float32 recurrence steps
    # with cancellation, whose rounding torch's AVX2 kernel changes by
    # contracting them into FMAs.)
    "torch.special.laguerre_polynomial_l": (
        _cases("torch.float32 grid", (2, 3)),
        "60000 float32 recurrence steps: torch's kernel rounds them through FMAs"),
    "torch.convolution": (_cases("conv1d", range(4)), _CONV_PADDING),
    "torch.nn.functional.conv1d": (_cases("basic", range(4)), _CONV_PADDING),
    "torch.nn.functional.conv2d": (_cases("basic", (1, 2, 3)) + _cases("depthwise", range(4)),
                                   _CONV_PADDING),
    "torch.nn.functional.conv3d": (_cases("basic", range(4)), _CONV_PADDING),
    "torch.nn.functional.bilinear": (_cases("torch.bfloat16", (2, 3)) +
                                     _cases("torch.float32", (2,)), _ORDER),
    "torch.linalg.det": (_cases("torch.float32", (1,), _BOTH),
                         "torch's LU pivots on an infinite entry; ours eliminates "
                         "in another order"),
    "torch.var_mean": (_cases("all f64", (2,), _BOTH),
                       "the mean of a slice holding an infinity: torch's Welford "
                       "update gives NaN (inf - inf), our sum the infinity"),
    "torch.logcumsumexp": (_cases("torch.bfloat16", (2, 3), ("decomp",)) +
                           _cases("torch.float32", (2, 3), ("decomp",)),
                           "the decomposition scales by the slice's maximum, so a "
                           "prefix 87 below it underflows (torch scans pairwise)"),
    "torch.nn.functional.embedding_bag": (
        _cases("2-d max", (3,), ("decomp",)),
        "mode='max' of a bag holding NaN: torch keeps the first value unless a "
        "later one compares greater (NaN is dropped after the first element); "
        "the decomposition's amax propagates it"),
    "torch.ops.aten.elu_backward.default": (
        _cases("torch.bfloat16", (0, 2, 3), _BOTH) + _cases("torch.float32", (1,), _BOTH),
        "torch's vectorized and scalar kernels differ on NaN (elements past the "
        "last full vector take the scalar one)"),
    "torch.ops.aten.hardtanh_backward.default": (
        _cases("torch.float32", (1,), _BOTH),
        "torch's vectorized and scalar kernels differ on NaN; we follow the "
        "vectorized one, small tensors take the scalar one (1.61 where torch has 0)"),
    "torch.ops.aten.native_layer_norm.default": (
        _cases("torch.float32 1", (1, 3), _BOTH),
        "the mean output of a slice holding an infinity: torch's Welford update "
        "gives NaN, our sum gives the infinity (the normalized output is NaN in both)"),
    "torch.ops.aten.native_group_norm.default": (
        _cases("torch.float32 1", range(4), _BOTH),
        "as native_layer_norm's: the mean of a group holding an infinity"),
    "torch.nn.functional.lp_pool2d": (
        _cases("p3 rect stride", (2,), _BOTH),
        "x ** 3 of +-60000 is +-2.16e14 (float32 ulp 1.7e7): a window sum that "
        "cancels two of them keeps only what its order did not absorb, so "
        "torch's 3.62 and our 3.71 differ by 2.5%; a tolerance that wide would "
        "hide real errors"),
}

# Tolerances (rtol, atol) of entries whose float32 sums meet +-60000 (seeds
# 2 and 3): ulp(60000) in float32 is 0.0039, and torch sums in float32 in
# its own order where the interpreter sums in another order or precision
# (float64, for the pools), so a sum that cancels +-60000 keeps an absolute
# error of a fraction of that ulp (or a few). Each atol is about three times the largest error seen, in ulps of
# 60000; every other dtype and entry keeps LOOSE.
_CANCELLING = {
    # one rounding of the window sum, divided by the window (4 or more)
    "torch.nn.functional.adaptive_avg_pool2d": 1e-3,  # 3.0e-4 seen
    "torch.nn.functional.adaptive_avg_pool3d": 1e-3,  # 3.0e-4 seen
    "torch.nn.functional.avg_pool2d": 1e-3,  # 3.05e-4 seen
    # a bilinear weighting of four corners: half an ulp
    "torch.ops.aten.grid_sampler.default": 2e-3,  # 8.2e-4 seen
    # grad - exp(output) x the sum of grad over the dim: two ulps
    "torch.ops.aten._log_softmax_backward_data.default": 8e-3,  # 1.83e-3 seen
    # the sum of the 8 gradients an upsampled element received: four ulps
    "torch.ops.aten.upsample_nearest3d_backward.default": 1.6e-2,  # 6.2e-3 seen
    # a sum over two dims of a [2, 3, 4] sample: the order of its 8 terms
    "Tensor.sum_to_size": 8e-3,  # 2.29e-3 seen
}


def _tolerance(entry):
    if entry in _CANCELLING:
        return {**LOOSE, torch.float32: (LOOSE[torch.float32], _CANCELLING[entry])}
    return LOOSE


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
                  f"[{sample.name}] seed {seed}", _tolerance(entry), found)
    return found


# torch's own LAPACK (Debian's reference liblapack.so.3: sbdsqr under
# gesdd, the QR iteration under syevd) loops forever on NaN and infinite
# input, so torch hangs on these entries' special values (two pytest
# workers sat in torch.linalg.pinv's sgesdd for 15 minutes): they get none.
# Their NaN handling is checked by their conformance samples instead.
_ITERATIVE_LAPACK = {
    "torch.linalg.svd", "torch.svd", "torch.linalg.svdvals", "torch.linalg.pinv",
    "torch.pinverse", "torch.linalg.matrix_rank", "torch.linalg.cond",
    "torch.linalg.eigh", "torch.linalg.eigvalsh", "torch.symeig",
}
_SWEPT = sorted(k for k in OPS if not k.startswith("_") and k not in _ITERATIVE_LAPACK)
# torch calls that reference LAPACK, the interpreter OpenBLAS's (the linear-
# algebra runtime, docs/linalg-runtime.md): on NaN and infinite input their
# getrf pivots differently, so NaN lands in other places (finite inputs
# agree: the conformance samples and op_db).
_GETRF = {"torch.linalg.inv_ex", "torch.linalg.solve", "torch.linalg.solve_ex", "torch.logdet",
          "torch.linalg.tensorinv", "torch.linalg.tensorsolve"}
# torch 1.13's matrix_exp picks a polynomial by the 1-norm and computes
# none for a NaN norm: its result is then uninitialized memory (ours NaN).
_UNDEFINED_ON_NAN = {"torch.linalg.matrix_exp"}


# The FFTs of real input (docs/fft.md) are sums against cosine and sine
# tables; torch's are pocketfft's butterflies. On NaN and infinite input the
# two meet inf - inf in other places (NaN positions differ); on the integer
# extremes (values near 2^31 and 2^63, summed to near 0) torch's float32
# rounding, about 1e-7 of the inputs' magnitude, is far above an elementwise
# tolerance at the outputs that cancel (ours sums in float64 and rounds
# once). Finite, ordinary inputs agree (their conformance samples, op_db).
_FFT = {"torch.fft.irfft", "torch.fft.irfft2", "torch.fft.irfftn", "torch.fft.hfft",
        "torch.fft.hfft2", "torch.fft.hfftn", "torch.functional.stft", "torch.istft"}


@pytest.mark.parametrize("entry", [k for k in _SWEPT if k not in _GETRF | _UNDEFINED_ON_NAN | _FFT])
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
def _int_cases(sample, dtypes=("torch.int32", "torch.int64"), paths=("interp",)):
    return [f"[{sample}] {d}: {p}" for d in dtypes for p in paths]


INT_KNOWN = {
    "torch.bucketize": (_int_cases("torch.int8", ("torch.int64",)),
                        "boundaries and values compare as doubles: int64 values "
                        "beyond 2^53 that differ by less than their spacing compare equal"),
    "torch.nn.functional.bilinear": (
        [c for d in ("torch.int16", "torch.int8", "torch.uint8") for c in _int_cases(d)],
        "integer bilinear sums its products in double, not wrapping int64 arithmetic"),
    "torch.nn.functional.lp_pool1d": (_int_cases("p2", ("torch.int64",)) +
                                      _int_cases("p3 negative", ("torch.int64",)),
                                      "x ** p of int64 extremes (inf in float32, where "
                                      "torch's integer pow wraps)"),
    "torch.nn.functional.lp_pool2d": (_int_cases("p2", ("torch.int64",)) +
                                      _int_cases("p3 rect stride", ("torch.int64",)),
                                      "as lp_pool1d"),
    "torch.linalg.inv": (_int_cases("batched", paths=("interp", "decomp")),
                         "ill-conditioned matrices of integer extremes, inverted "
                         "in float32 in another elimination order than torch's "
                         "LAPACK: an element 0.09 where torch has 0"),
}


# Entries torch 1.13 itself cannot take integer extremes into: their
# result's size is a value (bincount's largest, repeat_interleave's counts
# added up), and int64 max overflows the size and crashes the process;
# int32 max asks for 8-16 GiB. (And the polynomials below.)
_NO_INT_EXTREMES = {"torch.bincount", "torch.ops.aten.repeat_interleave.Tensor"}
# torch.special's orthogonal polynomials take n recurrence steps per element
# outside the closed forms' range (torch 1.13's kernels too): an int32
# maximum n is 2^31 steps each.
_NO_INT_EXTREMES |= {f"torch.special.{n}" for n in (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p")}


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


@pytest.mark.parametrize("entry", sorted(k for k in OPS if not k.startswith("_") and k not in _FFT))
def test_integer_extremes(entry):
    assert_known(_int_sweep(entry), INT_KNOWN.get(entry), "INT_KNOWN")


# The compiled path on the same special values: each entry's samples that
# the interpreter gets right (above) compiled and run, seeds 0 and 2 (NaN
# and infinities; then also -0.0 and +-60000).
COMPILED_KNOWN = {
    "torch.logcumsumexp": (_cases("torch.bfloat16", (2,), ("compiled",)) +
                           _cases("torch.float32", (2,), ("compiled",)),
                           "as the decomposition (KNOWN above)"),
    **{f"torch.nn.functional.conv_transpose{n}d": (
        [c for name in names for c in _cases(name, (0, 2), ("compiled",))
         if c != "[groups dilated] seed 2: compiled"],
        "the compiled transposed convolution convolves the zero-dilated input, "
        "so an infinite weight meets the inserted zeros (NaN); torch scatters, "
        "as the interpreter does")
       for n, names in ((1, ("basic", "groups dilated")), (2, ("basic", "depthwise", "groups")),
                        (3, ("basic", "dilated", "groups")))},
    "torch.ops.aten.convolution_backward.default": (
        _cases("plain 0", (0, 2), ("compiled",)),
        "grad_input decomposes into a transposed convolution: the same inserted "
        "zeros as conv_transpose's above"),
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
            ran = check(entry, sample.fn, inputs, where, _tolerance(entry), interpreted,
                        refusals=False)
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
                found.append(Finding(f"{where}: compiled", f"{where}: compiled raises "
                                     f"{(str(e).splitlines() or [type(e).__name__])[0][:200]}"))
                continue
            why = compare(out[0] if isinstance(out, (list, tuple)) else out, expected,
                          _tolerance(entry))
            if why:
                found.append(Finding(f"{where}: compiled", f"{where}: compiled {why}"))
    return found


@pytest.mark.parametrize("entry", _SWEPT)
def test_compiled_special_sweep(entry):
    assert_known(_compiled_sweep(entry), COMPILED_KNOWN.get(entry), "COMPILED_KNOWN")
