"""Conformance samples for every op library entry, in the spirit of
PyTorch's OpInfo: each entry lists sample calls over the dtypes torch
accepts, 0-d, empty, broadcast and non-contiguous operands and special
values. test_conformance.py runs every sample through torch eager, the
reference interpreter and the compiled CPU path and compares dtype, shape
and values.

A sample is (fn, inputs): `fn` takes the tensors `inputs` and calls the
entry once or a few times; everything else it needs is captured. `fn` may
be a torch.nn.Module (a leaf module class of the library). A sample
that torch itself rejects (a dtype the op does not support) cannot be
traced: the op library must refuse it too, which test_conformance.py checks
on the calls rebuilt without torch (refusals.py).
"""
import math
import zlib

import torch
import torch.nn.functional as F
import torch.nn as nn

ALL_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32,
              torch.int64, torch.float16, torch.bfloat16, torch.float32,
              torch.float64]
INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]

# Per-dtype tolerances t, element by element: |got - expected| <= t + t x
# |expected| (test_conformance.compare; a (rtol, atol) pair is also taken):
# exact ops are rounded once in their dtype, so f32/f64 agree to 1e-6.
EXACT = {torch.float16: 1e-3, torch.bfloat16: 1e-2, torch.float32: 1e-6,
         torch.float64: 1e-12}
# Transcendental ops: libm against our libm/polynomials.
TRANSCENDENTAL = {torch.float16: 2e-3, torch.bfloat16: 2e-2, torch.float32: 1e-5,
                  torch.float64: 1e-10}
# Floor and trunc division in half precision: the quotient is rounded to
# the dtype before flooring, and torch's own vectorized and scalar paths
# round it differently, so a result may differ by one.
ROUNDED_QUOTIENT = {torch.float16: 0.07, torch.bfloat16: 0.07, torch.float32: 1e-6,
                    torch.float64: 1e-12}
# Reductions and contractions: summation order differs.
ACCUMULATE = {torch.float16: 1e-2, torch.bfloat16: 5e-2, torch.float32: 1e-5,
              torch.float64: 1e-10}
# A convolution's weight and bias gradients sum over every output
# position, terms of up to ~10 into values of up to ~200: an element near 0
# is off by the sum's rounding, not its own. (convolution_backward's "3-d
# 1": torch's own float32 answer is 4.7e-5 off the float64 one.)
GRAD_SUMS = {**ACCUMULATE, torch.float32: (1e-5, 1e-4)}


class Sample:
    def __init__(self, name, fn, inputs, tol=None, dtype=None, record=None):
        self.name = name
        self.fn = fn
        self.inputs = list(inputs)
        self.tol = tol or EXACT
        # For unary samples: the input's dtype, whose rejection by torch the
        # op library's dtype table must match.
        self.dtype = dtype
        # For a call torch's argument parser refuses before torch.fx can
        # record it (torch.ge(2, x)): `record(*inputs)` gives (function,
        # args), the call the op library must refuse (refusals.py).
        self.record = record


def tensor(shape, dtype, special=False, low=-5, high=5, gen=None):
    """Random values of `dtype` in [low, high) (unsigned: [0, high));
    `special` puts 0, -0, NaN, +-Inf first for floats."""
    # A seed from the shape and dtype (not hash(): str hashes vary between
    # processes), so every run draws the same samples.
    gen = gen or torch.Generator().manual_seed(zlib.crc32(repr((tuple(shape), str(dtype))).encode()))
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).bool()
    if not dtype.is_floating_point:
        lo = 0 if dtype == torch.uint8 else low
        return torch.randint(lo, high, shape, generator=gen).to(dtype)
    t = (torch.rand(shape, generator=gen, dtype=torch.float64) * (high - low) + low).to(dtype)
    if special and t.numel() >= 5:
        flat = t.view(-1)
        for i, v in enumerate([0.0, -0.0, math.nan, math.inf, -math.inf]):
            flat[i] = v
    return t


def positive(shape, dtype):
    t = tensor(shape, dtype, low=1, high=6)
    return t


# Shapes every elementwise op sees: 0-d, empty, a matrix, and a transposed
# (non-contiguous) view made inside the graph.
UNARY_SHAPES = [(), (0,), (2, 3), (2, 0, 3), (5,)]


def unary(fn, dtypes=ALL_DTYPES, tol=EXACT, special=True, domain=tensor):
    def samples():
        for dtype in dtypes:
            for shape in UNARY_SHAPES:
                x = domain(shape, dtype)
                yield Sample(f"{dtype}{list(shape)}", fn, [x], tol, dtype=dtype)
            # special values (NaN, Inf, signed zero)
            if dtype.is_floating_point and special:
                yield Sample(f"{dtype} special", fn, [tensor((2, 4), dtype, special=True)], tol)
            # non-contiguous: a transposed view inside the graph
            yield Sample(f"{dtype} transposed", lambda x: fn(x.transpose(0, 1)),
                         [domain((3, 4), dtype)], tol)
    return samples


PAIRS = [(a, a) for a in ALL_DTYPES] + [
    (torch.int32, torch.int64), (torch.uint8, torch.int8), (torch.bool, torch.int16),
    (torch.int64, torch.float32), (torch.float16, torch.bfloat16),
    (torch.float16, torch.float32), (torch.float32, torch.float64),
    (torch.bool, torch.float16), (torch.uint8, torch.float64)]


def binary(fn, pairs=PAIRS, tol=EXACT, scalars=(2, -3, 2.5, True), divisor=False,
           rhs_domain=None, scalar_first=True, tensors=True):
    """Tensor-tensor (same and mixed dtypes, broadcast, 0-d against a
    tensor) and tensor-number samples; `tensors=False` keeps the
    tensor-number ones only (reversed operators: `2 - x` is __rsub__, but
    `x - y` is torch.sub)."""
    def rhs(shape, dtype):
        t = (rhs_domain or tensor)(shape, dtype)
        if divisor and not dtype.is_floating_point:
            t = torch.where(t == 0, torch.ones_like(t), t)
        return t

    def samples():
        for a, b in (pairs if tensors else []):
            yield Sample(f"{a},{b}", fn, [tensor((2, 3), a), rhs((2, 3), b)], tol)
            yield Sample(f"{a},{b} broadcast", fn, [tensor((2, 1, 3), a), rhs((4, 1), b)], tol)
            yield Sample(f"{a},{b} 0-d rhs", fn, [tensor((3,), a), rhs((), b)], tol)
            yield Sample(f"{a},{b} 0-d lhs", fn, [tensor((), a), rhs((3,), b)], tol)
            yield Sample(f"{a},{b} empty", fn, [tensor((0, 3), a), rhs((3,), b)], tol)
        for dtype in ALL_DTYPES:
            for s in scalars:
                if divisor and s is True:
                    continue
                yield Sample(f"{dtype} op {s!r}", lambda x, s=s: fn(x, s), [tensor((2, 3), dtype)], tol)
                if scalar_first:
                    yield Sample(f"{s!r} op {dtype}", lambda x, s=s: fn(s, x),
                                 [rhs((2, 3), dtype)], tol,
                                 record=lambda x, s=s: (fn, (s, x)))
        # special values
        for dtype in (FLOAT_DTYPES if tensors else []):
            yield Sample(f"{dtype} special", fn, [tensor((2, 4), dtype, special=True),
                                                  tensor((2, 4), dtype, special=True).flip(1)], tol)
    return samples


def reduction(fn, dims=(None, 1), dtypes=ALL_DTYPES, multi=True, tol=ACCUMULATE):
    """A reduction over all dtypes, each dim spec (None: no dim argument),
    with and without keepdim, on a 3-d, a 0-d and an empty-but-kept input."""
    def samples():
        for dtype in dtypes:
            x = tensor((2, 3, 4), dtype)
            for d in dims:
                if d is None:
                    yield Sample(f"{dtype} all", lambda x: fn(x), [x], tol, dtype=dtype)
                    continue
                for keep in (False, True):
                    yield Sample(f"{dtype} dim {d} keep {keep}",
                                 lambda x, d=d, keep=keep: fn(x, dim=d, keepdim=keep), [x], tol)
            yield Sample(f"{dtype} 0-d", lambda x: fn(x, dim=0) if dims[-1] is not None
                         else fn(x), [tensor((), dtype)], tol)
            yield Sample(f"{dtype} empty kept", lambda x, d=dims[-1]: fn(x, dim=2)
                         if d is not None else fn(x, dim=2), [tensor((2, 3, 0), dtype)], tol)
    return samples


def fixed(*entries):
    """Hand-written samples: (name, fn, inputs[, tol])."""
    def samples():
        for e in entries:
            yield Sample(*e)
    return samples


def chain(*generators):
    def samples():
        for g in generators:
            yield from g()
    return samples


def polynomial(fn):
    """Samples of an orthogonal polynomial fn(x, n): x around [-1, 1] (and
    beyond), n a tensor (fractional, negative, NaN, large) or a number,
    the ends of the interval, int and float64 operands."""
    xs = [-1.0, 1.0, 0.0, -0.0, 0.5, -0.5, 0.999, -0.3, 2.0, -1.5, 1e-20, math.nan, 0.25, 0.75]
    ns = [0.0, 1.0, 2.0, 3.0, 5.0, 7.0, 9.0, 12.0, 3.7, -1.0, math.nan, 1e30, 6.0, 4.0]
    return chain(
        fixed(*[(f"{d} grid", fn,
                 [torch.tensor(xs, dtype=d).reshape(-1, 1), torch.tensor(ns, dtype=d)])
                for d in (torch.float32, torch.float64)]),
        fixed(*[(f"n={n}", lambda x, n=n: fn(x, n),
                 [tensor((2, 3), torch.float32, low=-1.5, high=1.5)]) for n in (0, 1, 4, 10)]),
        fixed(("int n", fn, [tensor((2, 3), torch.float64, low=-1, high=1),
                             torch.tensor([2, 5, 9])]),
              ("int x", fn, [torch.tensor([[-1, 0, 1, 2]]), torch.tensor([[3.0], [8.0]])]),
              ("number x", lambda n: fn(0.5, n), [torch.tensor([1.0, 4.0, 11.0])]),
              ("empty", fn, [tensor((0, 3), torch.float32), torch.tensor(2.0)])),
        binary(fn, pairs=[(torch.float16, torch.float16), (torch.bfloat16, torch.float32)],
               scalars=()))


def points(fn, values, dtypes=(torch.float32, torch.float64), tol=None):
    """One sample per dtype of `fn` at the hand-picked `values` (poles,
    zeros, the ends of an approximation's intervals, overflow)."""
    return fixed(*[(f"{d} points", fn, [torch.tensor(values, dtype=d)],
                    tol or TRANSCENDENTAL) for d in dtypes])


def fft_c2r(fn):
    """Samples of a 1-d complex-to-real FFT (irfft, hfft) of real input:
    every dtype, n cropping and zero-padding the input, each dim, each
    norm, odd and even lengths, and torch's refusals."""
    FFT = {torch.float32: 1e-5, torch.float64: 1e-10}
    return fixed(
        *[(f"{d}", fn, [dt(d, 3, 5)], FFT) for d in ALL_DTYPES],
        *[(f"norm={norm}", lambda x, norm=norm: fn(x, norm=norm), [f64(4, 6)], FFT)
          for norm in ("backward", "forward", "ortho")],
        ("n crops, dim 0", lambda x: fn(x, n=4, dim=0), [f32(6, 3)], FFT),
        ("n pads, odd", lambda x: fn(x, 11, 1, "ortho"), [f32(2, 4, 3)], FFT),
        ("n=1", lambda x: fn(x, n=1), [f64(4)], FFT),
        ("n=2", lambda x: fn(x, n=2), [f64(3, 4)], FFT),
        ("empty batch", fn, [f32(0, 4)], FFT),
        ("n=0", lambda x: fn(x, n=0), [f32(3, 4)]),
        ("one point", fn, [f32(3, 1)]),
        ("bad norm", lambda x: fn(x, norm="sideways"), [f32(3, 4)]),
        ("dim out of range", lambda x: fn(x, dim=2), [f32(3, 4)]),
        ("float16", fn, [dt(torch.float16, 3, 4)]))


def fft_c2r_nd(fn, two):
    """Samples of irfft2/irfftn/hfft2/hfftn of real input: every dtype, s
    cropping and padding (-1: the default), dims in any order, each norm,
    and torch's refusals."""
    FFT = {torch.float32: 1e-5, torch.float64: 1e-10}
    return fixed(
        *[(f"{d}", fn, [dt(d, 2, 3, 5)], FFT) for d in ALL_DTYPES],
        *[(f"norm={norm}", lambda x, norm=norm: fn(x, norm=norm), [f64(3, 4, 6)], FFT)
          for norm in ("backward", "forward", "ortho")],
        ("s and dim", lambda x: fn(x, s=(3, 10), dim=(1, 2), norm="ortho"), [f32(5, 6, 7)], FFT),
        ("dims reversed", lambda x: fn(x, s=(4, 5), dim=(2, 0)), [f64(3, 2, 6)], FFT),
        ("s with -1", lambda x: fn(x, s=(-1, 7)), [f32(2, 4, 5)], FFT),
        ("negative dims", lambda x: fn(x, dim=(-1, -3)), [f32(3, 2, 4)], FFT),
        *([] if two else [
            ("one dim", lambda x: fn(x, dim=(1,)), [f32(3, 4, 2)], FFT),
            ("three dims", lambda x: fn(x, s=(2, 3, 4)), [f64(3, 4, 5)], FFT),
            ("no dims", lambda x: fn(x, dim=()), [f32(3, 4)])]),
        ("duplicate dims", lambda x: fn(x, dim=(0, 0)), [f32(3, 4)]),
        ("s longer than dim", lambda x: fn(x, s=(2, 3), dim=(0,)), [f32(3, 4)]),
        ("s of zero", lambda x: fn(x, s=(0, 4)), [f32(3, 4)]),
        ("bad norm", lambda x: fn(x, norm="sideways"), [f32(3, 4)]),
        ("float16", fn, [dt(torch.float16, 3, 4)]))


def pos(n):
    """A window of n values in [1, 6) (no zeros)."""
    return positive((n,), torch.float32)


def stft_samples():
    """torch.stft of real signals, in its real form (return_complex=False):
    n_fft, hop and win_length, windows (None, a tensor, float64), center
    with each pad_mode, normalized, two-sided, batched; torch's refusals.
    (return_complex=True's complex result is refused by the tracer.)"""
    F = {torch.float32: 1e-4, torch.float64: 1e-10}
    st = lambda **kw: (lambda x: torch.stft(x, return_complex=False, **kw))
    stw = lambda **kw: (lambda x, w: torch.stft(x, window=w, return_complex=False, **kw))
    return fixed(
        ("n_fft=10", st(n_fft=10), [f32(100)], F),
        ("n_fft=7 not centred", st(n_fft=7, center=False), [f32(10)], F),
        ("n_fft=7 centred", st(n_fft=7), [f64(10)], F),
        ("batched hop 4", st(n_fft=16, hop_length=4), [f32(3, 50)], F),
        ("batched not centred", st(n_fft=16, hop_length=4, center=False), [f64(2, 40)], F),
        ("window", stw(n_fft=16), [f32(2, 60), pos(16)], F),
        ("float64 window on float32", stw(n_fft=8), [f32(30), pos(8).double()], F),
        ("win_length < n_fft", stw(n_fft=12, win_length=7, hop_length=3), [f32(40), pos(7)], F),
        ("win_length, no window", st(n_fft=12, win_length=6), [f32(40)], F),
        ("two-sided", stw(n_fft=16, onesided=False), [f32(3, 50), pos(16)], F),
        ("normalized", st(n_fft=9, normalized=True, hop_length=2), [f64(30)], F),
        *[(f"pad_mode={m}", st(n_fft=8, pad_mode=m), [f32(2, 20)], F)
          for m in ("constant", "replicate", "circular")],
        ("hop longer than n_fft", st(n_fft=5, hop_length=7, center=False), [f32(40)], F),
        ("int64 window", stw(n_fft=6), [f32(20), torch.arange(1, 7)], F),
        ("n_fft too long", st(n_fft=30, center=False), [f32(20)]),
        ("reflect pad too long", st(n_fft=30), [f32(10)]),
        ("bad pad_mode", st(n_fft=8, pad_mode="sideways"), [f32(20)]),
        ("hop 0", st(n_fft=8, hop_length=0), [f32(20)]),
        ("win_length > n_fft", st(n_fft=8, win_length=9), [f32(20)]),
        ("window of the wrong size", stw(n_fft=8), [f32(20), pos(7)]),
        ("3-d input", st(n_fft=4, center=False), [f32(2, 2, 10)]),
        ("int64 input", st(n_fft=4, center=False), [torch.arange(10)]),
        ("float16 input", st(n_fft=4, center=False), [dt(torch.float16, 10)]))


def istft_samples():
    """torch.istft of real spectra (..., bins, frames, 2): onesided and
    two-sided, n_fft even and odd, hop, windows (None, a tensor, padded
    by win_length), center, normalized, length (shorter, longer), batched;
    a round trip of stft; torch's refusals (the window overlap-add check)."""
    F = {torch.float32: 1e-4, torch.float64: 1e-10}
    ist = lambda **kw: (lambda x: torch.istft(x, **kw))
    istw = lambda **kw: (lambda x, w: torch.istft(x, window=w, **kw))
    return fixed(
        ("n_fft=10", ist(n_fft=10), [f32(6, 2, 2)], F),
        ("two-sided", ist(n_fft=6, onesided=False), [f32(6, 3, 2)], F),
        ("onesided n_fft=10", ist(n_fft=10, onesided=True), [f64(6, 4, 2)], F),
        ("odd n_fft", ist(n_fft=9, hop_length=3), [f32(5, 6, 2)], F),
        ("batched", ist(n_fft=10), [f32(3, 6, 5, 2)], F),
        ("not centred", ist(n_fft=10, center=False), [f32(6, 5, 2)], F),
        ("hop 4", ist(n_fft=16, hop_length=4), [f64(9, 10, 2)], F),
        ("window not centred", istw(n_fft=10, center=False), [f32(2, 6, 5, 2), pos(10)], F),
        ("window centred", istw(n_fft=10), [f32(6, 5, 2), pos(10)], F),
        ("win_length 8", istw(n_fft=10, win_length=8), [f32(6, 10, 2), pos(8)], F),
        # (torch's inverse DFT is in float32, then promoted.)
        ("float64 window", istw(n_fft=8), [f32(5, 6, 2), pos(8).double()],
         {torch.float64: 1e-5}),
        ("normalized", ist(n_fft=8, normalized=True), [f64(5, 6, 2)], F),
        ("length shorter", ist(n_fft=10, length=7), [f32(6, 5, 2)], F),
        ("length longer", ist(n_fft=10, length=30), [f32(6, 5, 2)], F),
        ("length not centred", ist(n_fft=10, center=False, length=19), [f32(6, 5, 2)], F),
        ("stft round trip", lambda x, w: torch.istft(
            torch.stft(x, 16, 4, window=w, return_complex=False), 16, 4, window=w, length=50),
         [f32(2, 50), pos(16)], F),
        ("zero envelope", ist(n_fft=10, center=False, win_length=8), [f32(6, 5, 2)]),
        ("zero window", istw(n_fft=10), [f32(6, 5, 2), torch.zeros(10)]),
        ("empty result", ist(n_fft=10), [f32(6, 1, 2)]),
        ("bins do not match", ist(n_fft=9), [f32(6, 5, 2)]),
        ("last dim not 2", ist(n_fft=10), [f32(6, 5, 3)]),
        ("2-d input", ist(n_fft=10), [f32(6, 5)]),
        ("hop > win_length", ist(n_fft=10, hop_length=11), [f32(6, 5, 2)]),
        ("int64 window", istw(n_fft=10), [f32(6, 5, 2), torch.arange(1, 11)]),
        ("int64 input", ist(n_fft=10), [torch.ones(6, 5, 2, dtype=torch.int64)]))


def incomplete_gamma(fn):
    """igamma / igammac: random operands (negative ones give NaN), a grid
    over every branch of torch's algorithm (a = 0, x = 0, infinities, NaN,
    the asymptotic regime for large a near x, the continued fraction, the
    series), and integers, which torch refuses."""
    a = [0.0, 0.3, 0.5, 1.0, 2.5, 7.0, 21.0, 25.0, 60.0, 180.0, 250.0, 1000.0, math.inf, math.nan, -1.0]
    x = [0.0, 0.2, 0.5, 0.7, 1.05, 1.5, 3.0, 20.0, 26.0, 59.0, 190.0, 240.0, 1010.0, math.inf, math.nan, -2.0]
    return chain(
        binary(fn, tol=TRANSCENDENTAL, scalars=(),
               pairs=[(torch.float32, torch.float32), (torch.float64, torch.float64),
                      (torch.float32, torch.float64), (torch.int64, torch.float32),
                      (torch.bfloat16, torch.float32), (torch.float16, torch.float16),
                      (torch.int32, torch.int64), (torch.bool, torch.bool)]),
        fixed(*[(f"{d} grid", fn, [torch.tensor(a, dtype=d).reshape(-1, 1), torch.tensor(x, dtype=d)],
                 TRANSCENDENTAL) for d in (torch.float32, torch.float64)]),
        fixed(("method", lambda a, x: a.igamma(x) if fn is torch.igamma else a.igammac(x),
               [f64(2, 3).abs(), f64(2, 3).abs()], TRANSCENDENTAL),
              ("special alias", torch.special.gammainc if fn is torch.igamma else torch.special.gammaincc,
               [f32(4).abs(), f32(4).abs()], TRANSCENDENTAL)))


def f32(*shape):
    return tensor(shape, torch.float32)


def f64(*shape):
    return tensor(shape, torch.float64)


def dt(dtype, *shape):
    return tensor(shape, dtype)


def spd(*shape, dtype=torch.float32):
    """Symmetric positive-definite matrices (cholesky, eigh): A A^T + n I."""
    a = tensor(shape, dtype, low=-1, high=1)
    return a @ a.mT + shape[-1] * torch.eye(shape[-1], dtype=dtype)


def well_conditioned(*shape, dtype=torch.float32):
    """Square matrices far from singular (solve, inv): A + 4n I."""
    return tensor(shape, dtype, low=-1, high=1) + 4 * shape[-1] * torch.eye(shape[-1], dtype=dtype)


def triangular(*shape, dtype=torch.float32, upper=True):
    t = well_conditioned(*shape, dtype=dtype)
    return t.triu() if upper else t.tril()


NUMERIC = [d for d in ALL_DTYPES if d != torch.bool]


def conv_dtypes(fn, spatial, transposed=False):
    """`fn(input, weight)` over every dtype (torch rejects bool and float16,
    and transposed convolutions also bfloat16 and ints but int64)."""
    def samples():
        for dtype in ALL_DTYPES:
            x = dt(dtype, 1, 2, *([4] * spatial))
            w = dt(dtype, 2, 3 if transposed else 2, *([2] * spatial))
            yield Sample(f"{dtype}", lambda x, w: fn(x, w), [x, w], ACCUMULATE, dtype=dtype)
    return samples


class Leaf(torch.nn.Module):
    """Holds a module, so that tracing records it as a leaf call (traced as
    the root, its forward's body would be recorded instead)."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x):
        return self.module(x)


class ConvTransposeTo(torch.nn.Module):
    """Calls a ConvTranspose module with forward's `output_size`."""

    def __init__(self, module, size):
        super().__init__()
        self.module = module
        self.size = size

    def forward(self, x):
        return self.module(x, output_size=self.size)

class Graph:
    """A sample written as a traced graph, for calls torch 1.13's tracers
    cannot record (a factory of a traced size: fx cannot pass a Proxy to
    torch.arange, and concrete tracing folds it). `fn` is what torch
    computes; `forward` the graph's signature and body in the traced
    dialect, its inputs named %a0, %a1, ..."""

    def __init__(self, fn, forward):
        self.fn = fn
        self.forward = forward

    def __call__(self, *inputs):
        return self.fn(*inputs)

    def module(self):
        return ('traced.module root @M class "m.M" {\n'
                '  graph @forward(%self: !traced.module<@M>, ' + self.forward + "\n  }\n}\n")


def _number_graph(fn, input_type, calls):
    """A Graph sample of a chain of Python-number calls on one tensor %a0
    (the tracers record a number a call returns as a constant): `calls` are
    (target, result type[, more arguments]), each taking the previous
    result (`Tensor.size` takes %a0 and dim 1)."""
    body, prev, prev_type = [], "%a0", input_type
    for i, (target, ty, *more) in enumerate(calls):
        if target == "Tensor.size":
            body.append(f'    %v{i} = call_method %a0["size"](1) : ({input_type}) -> {ty}')
        else:
            args = ", ".join([prev, *more])
            body.append(f'    %v{i} = call_function "{target}"({args}) : ({prev_type}) -> {ty}')
        prev, prev_type = f"%v{i}", ty
    return Graph(fn, f"%a0: {input_type}) -> {prev_type} {{\n" + "\n".join(body) +
                 f"\n    output {prev} : {prev_type}")


def _prim_extreme_samples(op, name):
    """prim::min / prim::max of two numbers: sizes (ints), a size and a
    quotient (int and float), and the Floats of two 0-d tensors (NaN, and
    -0.0 against 0.0: `a < b ? a : b` keeps b on ties and NaNs)."""
    def sized(a_float, b_float, n0, n1):
        def fn(x):
            a = x.size(0) / 4 if a_float else x.size(0)
            b = x.size(1) / 4 if b_float else x.size(1)
            return op(a, b)
        lines = [f'    %s0 = call_method %a0["size"](0) : (tensor<{n0}x{n1}xf32>) -> i64',
                 f'    %s1 = call_method %a0["size"](1) : (tensor<{n0}x{n1}xf32>) -> i64']
        names = []
        for i, f in enumerate((a_float, b_float)):
            if f:
                lines.append(f'    %q{i} = call_function "operator.truediv"(%s{i}, 4) : (i64) -> f64')
                names.append((f"%q{i}", "f64"))
            else:
                names.append((f"%s{i}", "i64"))
        out = "f64" if a_float or b_float else "i64"
        lines.append(f'    %r = call_function "torch.ops.prim.{name}"({names[0][0]}, {names[1][0]}) : '
                     f'({names[0][1]}, {names[1][1]}) -> {out}')
        return Graph(fn, f"%a0: tensor<{n0}x{n1}xf32>) -> {out} {{\n" + "\n".join(lines) +
                     f"\n    output %r : {out}")
    floats = Graph(lambda x, y: op(torch.ops.aten.Float(x), torch.ops.aten.Float(y)),
                   """%a0: tensor<f32>, %a1: tensor<f64>) -> f64 {
    %x = call_function "torch.ops.aten.Float"(%a0) : (tensor<f32>) -> f64
    %y = call_function "torch.ops.aten.Float"(%a1) : (tensor<f64>) -> f64
    %r = call_function "torch.ops.prim.""" + name + """"(%x, %y) : (f64, f64) -> f64
    output %r : f64""")
    return [("sizes", sized(False, False, 2, 5), [f32(2, 5)]),
            ("sizes, equal", sized(False, False, 3, 3), [f32(3, 3)]),
            ("int and float", sized(False, True, 2, 5), [f32(2, 5)]),
            ("float and int", sized(True, False, 9, 2), [f32(9, 2)]),
            *[(f"Floats {a} {b}", floats, [torch.tensor(a), torch.tensor(b, dtype=torch.float64)])
              for a, b in ((1.5, -2.0), (math.nan, 1.0), (1.0, math.nan), (-0.0, 0.0), (0.0, -0.0))]]


def _recurrent_ref(cls, *args, **kw):
    """What torch computes for traced.nn.rnn / rnn_cell samples: the module
    with the given parameters (in declaration order), element 0 of its
    result (the output; a cell's h)."""
    def fn(x, *rest):
        m = cls(*args, **kw).eval()
        params = list(m.parameters())
        states, weights = rest[:len(rest) - len(params)], rest[len(rest) - len(params):]
        with torch.no_grad():
            for p, v in zip(params, weights):
                p.copy_(v)
        hx = None if not states else states[0] if len(states) == 1 else tuple(states)
        r = m(x, hx)
        return r[0] if isinstance(r, tuple) else r
    return fn


_LSTM_OUT = "tuple<tensor<4x1x2xf32>, tuple<tensor<1x1x2xf32>, tensor<1x1x2xf32>>>"
_RNN_SAMPLES = [
    ("LSTM, no hx", Graph(_recurrent_ref(nn.LSTM, 3, 2), f"""%a0: tensor<4x1x3xf32>, %a1: tensor<8x3xf32>, %a2: tensor<8x2xf32>, %a3: tensor<8xf32>, %a4: tensor<8xf32>) -> tensor<4x1x2xf32> {{
    %r = call_function "traced.nn.rnn"(input=%a0, hx=None, params=[%a1, %a2, %a3, %a4], mode="LSTM", input_size=3, hidden_size=2) : (tensor<4x1x3xf32>, tensor<8x3xf32>, tensor<8x2xf32>, tensor<8xf32>, tensor<8xf32>) -> {_LSTM_OUT}
    %o = call_function "operator.getitem"(input=%r, index=0) : ({_LSTM_OUT}) -> tensor<4x1x2xf32>
    output %o : tensor<4x1x2xf32>"""), [f32(4, 1, 3), f32(8, 3), f32(8, 2), f32(8), f32(8)], ACCUMULATE),
    ("LSTM, (h0, c0)", Graph(_recurrent_ref(nn.LSTM, 3, 2), f"""%a0: tensor<4x1x3xf32>, %a1: tensor<1x1x2xf32>, %a2: tensor<1x1x2xf32>, %a3: tensor<8x3xf32>, %a4: tensor<8x2xf32>, %a5: tensor<8xf32>, %a6: tensor<8xf32>) -> tensor<4x1x2xf32> {{
    %r = call_function "traced.nn.rnn"(input=%a0, hx=(%a1, %a2), params=[%a3, %a4, %a5, %a6], mode="LSTM", input_size=3, hidden_size=2) : (tensor<4x1x3xf32>, tensor<1x1x2xf32>, tensor<1x1x2xf32>, tensor<8x3xf32>, tensor<8x2xf32>, tensor<8xf32>, tensor<8xf32>) -> {_LSTM_OUT}
    %o = call_function "operator.getitem"(input=%r, index=0) : ({_LSTM_OUT}) -> tensor<4x1x2xf32>
    output %o : tensor<4x1x2xf32>"""), [f32(4, 1, 3), f32(1, 1, 2), f32(1, 1, 2), f32(8, 3), f32(8, 2), f32(8), f32(8)], ACCUMULATE),
    ("GRU, h0, no bias", Graph(_recurrent_ref(nn.GRU, 3, 2, bias=False), """%a0: tensor<4x1x3xf32>, %a1: tensor<1x1x2xf32>, %a2: tensor<6x3xf32>, %a3: tensor<6x2xf32>) -> tensor<4x1x2xf32> {
    %r = call_function "traced.nn.rnn"(input=%a0, hx=%a1, params=[%a2, %a3], mode="GRU", input_size=3, hidden_size=2, bias=False) : (tensor<4x1x3xf32>, tensor<1x1x2xf32>, tensor<6x3xf32>, tensor<6x2xf32>) -> tuple<tensor<4x1x2xf32>, tensor<1x1x2xf32>>
    %o = call_function "operator.getitem"(input=%r, index=0) : (tuple<tensor<4x1x2xf32>, tensor<1x1x2xf32>>) -> tensor<4x1x2xf32>
    output %o : tensor<4x1x2xf32>"""), [f32(4, 1, 3), f32(1, 1, 2), f32(6, 3), f32(6, 2)], ACCUMULATE),
]
_CELL_SAMPLES = [
    ("GRUCell, h", Graph(_recurrent_ref(nn.GRUCell, 3, 2), """%a0: tensor<2x3xf32>, %a1: tensor<2x2xf32>, %a2: tensor<6x3xf32>, %a3: tensor<6x2xf32>, %a4: tensor<6xf32>, %a5: tensor<6xf32>) -> tensor<2x2xf32> {
    %r = call_function "traced.nn.rnn_cell"(input=%a0, hx=%a1, params=[%a2, %a3, %a4, %a5], mode="GRU", input_size=3, hidden_size=2) : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<6x3xf32>, tensor<6x2xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<2x2xf32>
    output %r : tensor<2x2xf32>"""), [f32(2, 3), f32(2, 2), f32(6, 3), f32(6, 2), f32(6), f32(6)], ACCUMULATE),
    ("RNNCell relu, unbatched", Graph(_recurrent_ref(nn.RNNCell, 3, 2, nonlinearity="relu"), """%a0: tensor<3xf32>, %a1: tensor<2x3xf32>, %a2: tensor<2x2xf32>, %a3: tensor<2xf32>, %a4: tensor<2xf32>) -> tensor<2xf32> {
    %r = call_function "traced.nn.rnn_cell"(input=%a0, hx=None, params=[%a1, %a2, %a3, %a4], mode="relu", input_size=3, hidden_size=2) : (tensor<3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    output %r : tensor<2xf32>"""), [f32(3), f32(2, 3), f32(2, 2), f32(2), f32(2)], ACCUMULATE),
]


def _rounding_samples(fn, name):
    """math.ceil / floor / trunc of a size's quotient (a float: 5 / 4, and
    its negation, where they part), of a size itself (an int, as it is),
    and of a 0-d tensor's Float (exact halves, and -0.5)."""
    def quotient(neg):
        def f(x):
            q = x.size(1) / 4
            return fn(-q if neg else q)
        lines = ['    %s = call_method %a0["size"](1) : (tensor<3x5xf32>) -> i64',
                 '    %q = call_function "operator.truediv"(%s, 4) : (i64) -> f64']
        arg = "%q"
        if neg:
            lines.append('    %n = call_function "operator.neg"(%q) : (f64) -> f64')
            arg = "%n"
        lines.append(f'    %r = call_function "math.{name}"({arg}) : (f64) -> i64')
        return Graph(f, "%a0: tensor<3x5xf32>) -> i64 {\n" + "\n".join(lines) +
                     "\n    output %r : i64")
    size = Graph(lambda x: fn(x.size(1)), """%a0: tensor<3x5xf32>) -> i64 {
    %s = call_method %a0["size"](1) : (tensor<3x5xf32>) -> i64
    %r = call_function "math.""" + name + """"(%s) : (i64) -> i64
    output %r : i64""")
    floats = Graph(lambda x: fn(torch.ops.aten.Float(x)), """%a0: tensor<f64>) -> i64 {
    %x = call_function "torch.ops.aten.Float"(%a0) : (tensor<f64>) -> f64
    %r = call_function "math.""" + name + """"(%x) : (f64) -> i64
    output %r : i64""")
    return [("size / 4", quotient(False), [f32(3, 5)]),
            ("-(size / 4)", quotient(True), [f32(3, 5)]),
            ("size", size, [f32(3, 5)]),
            *[(f"Float {v}", floats, [torch.tensor(v, dtype=torch.float64)])
              for v in (2.5, -2.5, -0.5, 7.0)]]


def _aten_embedding_bag_samples(call):
    """ATen's embedding_bag forms, each of the four results: sum (on and
    off torch's fast path: float32 and float16 without a padding index),
    mean and max; empty bags, include_last_offset, a padding index,
    per-sample weights, int32 indices. (torch 1.13 writes out of bounds
    with include_last_offset, indices after the last offset and off the
    fast path: those are not sampled.)"""
    idx = torch.tensor([0, 2, 2, 5, 9, 2, 1, 2])
    offs = torch.tensor([0, 3, 3, 5])
    full = torch.tensor([0, 3, 3, 8])
    out = []
    for k in range(4):
        for mode in (0, 1, 2):
            for d in (torch.float32, torch.float64, torch.float16):
                out.append((f"mode {mode} {d} #{k}", lambda w, i, o, mode=mode, k=k: call(w, i, o, mode, None, False, None)[k],
                            [dt(d, 10, 3), idx, offs], ACCUMULATE))
            out.append((f"mode {mode} padding #{k}", lambda w, i, o, mode=mode, k=k: call(w, i, o, mode, None, False, 2)[k],
                        [f32(10, 3), idx, offs], ACCUMULATE))
            out.append((f"mode {mode} last offset #{k}", lambda w, i, o, mode=mode, k=k: call(w, i, o, mode, None, True, None)[k],
                        [f32(10, 3), idx, full], ACCUMULATE))
            out.append((f"mode {mode} last offset padding #{k}",
                        lambda w, i, o, mode=mode, k=k: call(w, i, o, mode, None, True, 9)[k],
                        [dt(torch.float64, 10, 3), idx, full], ACCUMULATE))
        out.append((f"fast path, indices after the last offset #{k}",
                    lambda w, i, o, k=k: call(w, i, o, 0, None, True, None)[k], [f32(10, 3), idx, offs], ACCUMULATE))
        out.append((f"per_sample_weights #{k}", lambda w, i, o, p, k=k: call(w, i, o, 0, p, False, None)[k],
                    [f32(10, 3), idx, offs, f32(8)], ACCUMULATE))
        out.append((f"per_sample_weights f64 #{k}", lambda w, i, o, p, k=k: call(w, i, o, 0, p, False, None)[k],
                    [dt(torch.float64, 10, 3), idx, offs, dt(torch.float64, 8)], ACCUMULATE))
        out.append((f"int32 #{k}", lambda w, i, o, k=k: call(w, i, o, 1, None, False, None)[k],
                    [f32(10, 3), idx.int(), offs.int()], ACCUMULATE))
        out.append((f"int32 indices, int64 offsets #{k}", lambda w, i, o, k=k: call(w, i, o, 0, None, False, 3)[k],
                    [f32(10, 3), idx.int(), offs], ACCUMULATE))
    out += [("bfloat16", lambda w, i, o: call(w, i, o, 0, None, False, None)[0],
             [dt(torch.bfloat16, 10, 3), idx, offs]),
            ("per_sample_weights in mean mode", lambda w, i, o, p: call(w, i, o, 1, p, False, None)[0],
             [f32(10, 3), idx, offs, f32(8)]),
            ("offsets[0] not 0", lambda w, i, o: call(w, i, o, 1, None, False, None)[0],
             [f32(10, 3), idx, torch.tensor([1, 3])])]
    return out


def _itemsize(dtype):
    return torch.empty((), dtype=dtype).element_size()


def _view_dtype_samples():
    """x.view(dtype): every pair of dtypes whose sizes allow it on a [2, 4]
    (or 0-d) input, special float values included; bool results from bytes
    0 and 1 only (other bytes are bools torch itself treats inconsistently)."""
    out = []
    for src in ALL_DTYPES:
        for to in ALL_DTYPES:
            if to == torch.bool and src != torch.bool:
                if src.is_floating_point or _itemsize(src) != 1:
                    continue
                x = tensor((2, 4), src, low=0, high=2).clamp(0, 1)
            else:
                x = tensor((2, 4), src, special=True)
            if src == torch.bool and to.is_floating_point and _itemsize(to) > 1:
                continue  # (NaN payloads and subnormals, not the point here)
            out.append((f"{src} as {to}", lambda x, to=to: x.view(to), [x]))
    out += [("0-d same size", lambda x: x.view(torch.int32), [f32()]),
            ("0-d other size", lambda x: x.view(torch.int8), [f32()]),
            ("last dim not divisible", lambda x: x.view(torch.float64), [f32(12, 1)]),
            ("torch-mlir ViewDtypeStatic", lambda x: x.view(torch.int8), [f32(12, 1)])]
    return out


def _signed_zero_ties(op):
    """-0.0 against 0.0 keeps the input's zero (seen through signbit):
    what torch's float32 and float64 kernels give on two elements (longer
    tensors take its vector path, whose choice varies); fuzz-diff finding
    fmin-signed-zero-tie."""
    return fixed(*[(f"signed zeros {d}", lambda a, b: torch.signbit(op(a, b)),
                    [torch.tensor([-0.0, 0.0], dtype=d), torch.tensor([0.0, -0.0], dtype=d)])
                   for d in (torch.float32, torch.float64)])


def _group_norm_backward_samples():
    """native_group_norm_backward of torch-mlir's [2, 6, 2, 2] (group 3) and
    a 3-D [3, 4, 5] (group 2), each result in turn, over its dtypes, with
    the statistics native_group_norm gives; masks and no weight."""
    def case(shape, group, dtype):
        x = tensor(shape, dtype)
        n, c = shape[0], shape[1]
        hw = x.numel() // (n * c)
        w = tensor((c,), dtype)
        _, mean, rstd = torch.ops.aten.native_group_norm(x.float(), w.float(), None, n, c, hw, group, 1e-5)
        return [tensor(shape, dtype), x, mean.to(dtype), rstd.to(dtype), w], (n, c, hw, group)
    out = []
    for shape, group in (((2, 6, 2, 2), 3), ((3, 4, 5), 2)):
        for d in (torch.float32, torch.float64, torch.bfloat16):
            inputs, (n, c, hw, g) = case(shape, group, d)
            for k in range(3):
                out.append((f"{shape} {d} #{k}",
                            lambda dy, x, m, r, w, k=k, n=n, c=c, hw=hw, g=g:
                            torch.ops.aten.native_group_norm_backward(dy, x, m, r, w, n, c, hw, g,
                                                                      [True, True, True])[k],
                            inputs, ACCUMULATE))
    inputs, (n, c, hw, g) = case((2, 6, 2, 2), 3, torch.float32)
    out += [("masked: grad_input only", lambda dy, x, m, r, w: torch.ops.aten.native_group_norm_backward(
                dy, x, m, r, w, 2, 6, 4, 3, [True, False, False])[0], inputs, ACCUMULATE),
            ("masked: grad_bias only", lambda dy, x, m, r, w: torch.ops.aten.native_group_norm_backward(
                dy, x, m, r, w, 2, 6, 4, 3, [False, False, True])[2], inputs, ACCUMULATE),
            ("no weight", lambda dy, x, m, r: torch.ops.aten.native_group_norm_backward(
                dy, x, m, r, None, 2, 6, 4, 3, [True, False, False])[0], inputs[:4], ACCUMULATE),
            ("no weight, grad_weight asked", lambda dy, x, m, r: torch.ops.aten.native_group_norm_backward(
                dy, x, m, r, None, 2, 6, 4, 3, [True, True, True])[0], inputs[:4]),
            ("mixed dtypes", lambda dy, x, m, r, w: torch.ops.aten.native_group_norm_backward(
                dy.double(), x, m, r, w, 2, 6, 4, 3, [True, True, True])[0], inputs),
            ("wrong group", lambda dy, x, m, r, w: torch.ops.aten.native_group_norm_backward(
                dy, x, m, r, w, 2, 6, 4, 2, [True, True, True])[0], inputs)]
    return out


def _both_results(*entries):
    """Hand-written samples of an op with two results ((values, indices),
    (hist, bin_edges)): each entry twice, its result [0] and its [1]."""
    def samples():
        for name, fn, inputs, *tol in entries:
            if name.endswith("rejected"):
                yield Sample(name, lambda *a, fn=fn: fn(*a)[0], inputs, *tol)
                continue
            for i in (0, 1):
                yield Sample(f"{name} [{i}]", lambda *a, fn=fn, i=i: fn(*a)[i], inputs, *tol)
    return samples


def _set(x, index, value):
    """`x[index] = value` on a copy."""
    x = x.clone()
    x[index] = value
    return x


def _set_after_use(x):
    """A value read before an assignment keeps the old elements."""
    y = x * 1
    before = y + 1
    y[0] = 0.0
    return y * before


def _iop(x, y, op):
    """x op= y on a copy of x."""
    x = x.clone()
    if op == "add":
        x += y
    elif op == "sub":
        x -= y
    elif op == "mul":
        x *= y
    else:
        x /= y
    return x


def _iadd(x, y):
    x = x.clone()
    x += y
    return x


torch.manual_seed(0)
_EMBEDDING_BAG = torch.nn.EmbeddingBag(4, 3, mode="sum").eval()
_EMBEDDING = torch.nn.Embedding(4, 3).eval()
SIGNED = [d for d in NUMERIC if d != torch.uint8]


# ---------------------------------------------------------------------------
# Quantized tensors (docs/quantization.md): per tensor and per channel, with
# zero points other than 0. A quantized result is compared by dtype,
# parameters and storage integers; QUANT_EXACT allows no step of
# difference (test_conformance.compare reads a quantized dtype's tolerance
# as a number of steps).
QUANT_EXACT = {torch.quint8: 0, torch.qint8: 0, torch.qint32: 0, **EXACT}


def qtensor(shape, scale=0.05, zero_point=3, dtype=torch.quint8, low=-4, high=4):
    """A tensor quantized per tensor, of values in [low, high) (some
    outside the quantized range, which saturates)."""
    return torch.quantize_per_tensor(tensor(shape, torch.float32, low=low, high=high),
                                     scale, zero_point, dtype)


def qchannels(shape, axis=0, dtype=torch.qint8, symmetric=False):
    """A tensor quantized per channel along `axis`: scales 0.01 to 0.05,
    zero points -1, 0, 1, ... (qint8) or 1, 2, ... (quint8); all 0 when
    `symmetric` (oneDNN's conv and linear weights)."""
    n = shape[axis]
    scales = torch.linspace(0.01, 0.05, n, dtype=torch.float64)
    zps = torch.arange(n) % 3 - (1 if dtype == torch.qint8 else -1)
    if symmetric:
        zps = torch.zeros(n, dtype=torch.long)
    return torch.quantize_per_channel(tensor(shape, torch.float32, low=-2, high=2),
                                      scales, zps, axis, dtype)


def _qtype(t):
    from traced._emit import tensor_type
    return tensor_type(t)


def _quantized_module_sample(name, cls, x, weight, bias, call, **attrs):
    """A Graph sample of a quantized module's functional entry (`call`,
    with its constant arguments): torch's reference is the module `cls`
    holding `weight` and `bias` (the module's own scale and zero point in
    `attrs`), called on `x`."""
    init = attrs["init"]
    kwargs = {k: v for k, v in attrs.items() if k not in ("init", "scale", "zero_point")}

    def fn(x, w, b):
        m = cls(*init, **kwargs)
        m.set_weight_bias(w, b)
        m.scale, m.zero_point = attrs["scale"], attrs["zero_point"]
        return m(x)
    out = fn(x, weight, bias)
    graph = Graph(fn, f"%a0: {_qtype(x)}, %a1: {_qtype(weight)}, %a2: {_qtype(bias)}) -> {_qtype(out)} {{\n"
                  f"    %r = call_function {call}, scale={attrs['scale']!r}, zero_point={attrs['zero_point']}) : "
                  f"({_qtype(x)}, {_qtype(weight)}, {_qtype(bias)}) -> {_qtype(out)}\n"
                  f"    output %r : {_qtype(out)}")
    return (name, graph, [x, weight, bias], QUANT_EXACT)


def _quantized_conv_samples(spatial, relu):
    import torch.ao.nn.quantized as nnq
    import torch.nn.intrinsic.quantized as nniq
    cls = {(1, False): nnq.Conv1d, (2, False): nnq.Conv2d, (3, False): nnq.Conv3d,
           (1, True): nniq.ConvReLU1d, (2, True): nniq.ConvReLU2d,
           (3, True): nniq.ConvReLU3d}[(spatial, relu)]
    entry = (f'"traced.quantized.conv_relu{spatial}d"' if relu else
             f'"torch.ao.nn.quantized.functional.conv{spatial}d"')
    x = qtensor((1, 4) + (5,) * spatial, 0.05, 3)
    w = qchannels((6, 4) + (3,) * spatial, symmetric=True)
    wt = torch.quantize_per_tensor(tensor((6, 2) + (2,) * spatial, torch.float32, low=-1, high=1),
                                   0.02, 0, torch.qint8)
    b = tensor((6,), torch.float32, low=-1, high=1)
    ones = "(" + ", ".join(["1"] * spatial) + ("," if spatial == 1 else "") + ")"
    pads = "(" + ", ".join(["1"] * spatial) + ("," if spatial == 1 else "") + ")"
    twos = "(" + ", ".join(["2"] * spatial) + ("," if spatial == 1 else "") + ")"
    return [
        _quantized_module_sample("per channel, padded", cls, x, w, b,
                                 f"{entry}(%a0, %a1, %a2, padding={pads}",
                                 init=(4, 6, 3), padding=1, scale=0.2, zero_point=10),
        _quantized_module_sample("per tensor, strided, grouped", cls, x, wt, b,
                                 f"{entry}(%a0, %a1, %a2, stride={twos}, groups=2",
                                 init=(4, 6, 2), stride=2, groups=2, scale=0.1,
                                 zero_point=100),
    ]


def _quantized_linear_samples(relu):
    import torch.ao.nn.quantized as nnq
    import torch.nn.intrinsic.quantized as nniq
    cls = nniq.LinearReLU if relu else nnq.Linear
    entry = ('"traced.quantized.linear_relu"' if relu else
             '"torch.ao.nn.quantized.functional.linear"')
    x = qtensor((3, 8), 0.05, 3)
    b = tensor((5,), torch.float32, low=-1, high=1)
    return [
        _quantized_module_sample("per channel", cls, x, qchannels((5, 8), symmetric=True), b,
                                 f"{entry}(%a0, %a1, %a2", init=(8, 5), scale=0.1,
                                 zero_point=60),
        _quantized_module_sample("per tensor", cls, qtensor((2, 3, 8), 0.03, 128),
                                 torch.quantize_per_tensor(tensor((5, 8), torch.float32, low=-1, high=1),
                                                           0.01, 0, torch.qint8), b,
                                 f"{entry}(%a0, %a1, %a2", init=(8, 5), scale=0.05,
                                 zero_point=0),
    ]


def _int8_requantize(acc, m, o, zo, relu, channel_dim):
    """traced.int8's epilogue (docs/quantization.md, "int8 code"): float32
    acc * m + o + zo in three roundings, rounded to even, clamped."""
    shape = [1] * acc.dim()
    shape[channel_dim] = -1
    y = acc.to(torch.float32) * m.view(shape)
    y = y + o.view(shape)
    r = torch.round(y + zo)
    return r.clamp(zo if relu else 0, 255).to(torch.uint8)


def _int8_pack(w4, taps_first=True):
    """[OC, C, KH, KW] (or [N, K]) int8 as traced.int8's packed rows: k in
    (kernel row, kernel column, channel) order, channels padded to 4, the
    row to 64, zeros."""
    if w4.dim() == 2:
        w4 = w4[:, :, None, None]
    oc, c, kh, kw = w4.shape
    cp = (c + 3) // 4 * 4
    taps = torch.zeros(oc, kh, kw, cp, dtype=torch.int8)
    taps[..., :c] = w4.permute(0, 2, 3, 1)
    rows = torch.zeros(oc, (kh * kw * cp + 63) // 64 * 64, dtype=torch.int8)
    rows[:, :kh * kw * cp] = taps.reshape(oc, -1)
    return rows


def _int8_add(r, res, so, zo, sr, zr, ss, zs, relu):
    """traced.int8's fused residual add: both operands dequantized as
    fma(q, s, s * -z) in float32 (the float64 sum of the exact product and
    the float32 constant is exact here, so its float32 rounding is the
    fma's), added, times 1 / ss, rounded to even, plus zs, clamped."""
    def dequantize(q, s, z):
        s32 = torch.tensor(s, dtype=torch.float32)
        return (q.double() * s32.double() + (s32 * float(-z)).double()).float()
    y = dequantize(r, so, zo) + dequantize(res, sr, zr)
    inverse = torch.tensor(1.0, dtype=torch.float32) / torch.tensor(ss, dtype=torch.float32)
    q = torch.round(y * inverse) + zs
    return q.clamp(zs if relu else 0, 255).to(torch.uint8)


def _int8_samples(linear):
    """traced.int8.conv2d and traced.int8.linear: the runtime's exact int32
    sums (inputs padded with the input zero point, less the compensation),
    requantized in float32; with a residual, the fused add after it."""
    def sample(name, x, w, zx, zo, relu, conv=None, add=None):
        oc = w.shape[0]
        wp = _int8_pack(w)
        m = tensor((oc,), torch.float32, low=0.01, high=0.2)
        o = tensor((oc,), torch.float32, low=-20, high=20)
        comp = (zx * w.to(torch.int32).reshape(oc, -1).sum(1)).to(torch.int32)

        def fn(x, wp, m, o, comp, res=None):
            if linear:
                acc = x.double() @ w.double().T
                r = _int8_requantize(acc - comp.double(), m, o, zo, relu, -1)
            else:
                stride, padding, dilation, groups = conv
                xp = F.pad(x.double(), (padding[1], padding[1], padding[0], padding[0]),
                           value=zx)
                acc = F.conv2d(xp, w.double(), None, stride, 0, dilation, groups)
                r = _int8_requantize(acc - comp.double().view(1, -1, 1, 1), m, o, zo, relu, 1)
            return r if res is None else _int8_add(r, res, add[0], zo, *add[1:])
        args = [x, wp, m, o, comp]
        summed = ""
        if add:
            args.append(tensor(tuple(fn(*args).shape), torch.uint8, high=256))
            so, sr, zr, ss, zs, srelu = add
            summed = (f", residual=%a5, output_scale={so}, residual_scale={sr}, "
                      f"residual_zero_point={zr}, sum_scale={ss}, sum_zero_point={zs}, "
                      f"sum_relu={srelu}")
        out = fn(*args)
        types = ", ".join(_qtype(a) for a in args)
        extra = (f"kernel_size={list(w.shape[2:])}, stride={list(conv[0])}, "
                 f"padding={list(conv[1])}, dilation={list(conv[2])}, groups={conv[3]}, "
                 if not linear else "")
        entry = "traced.int8.linear" if linear else "traced.int8.conv2d"
        operands = ", ".join(f"%a{i}" for i in range(5))
        graph = Graph(fn, ", ".join(f"%a{i}: {_qtype(a)}" for i, a in enumerate(args))
                      + f") -> {_qtype(out)} {{\n"
                      f'    %r = call_function "{entry}"({operands}, {extra}'
                      f"input_zero_point={zx}, output_zero_point={zo}, relu={relu}{summed}) : "
                      f"({types}) -> {_qtype(out)}\n"
                      f"    output %r : {_qtype(out)}")
        return (name, graph, args)
    w8 = lambda *shape: tensor(shape, torch.int8, low=-128, high=128)  # noqa: E731
    u8 = lambda *shape: tensor(shape, torch.uint8, high=256)  # noqa: E731
    if linear:
        return [sample("rows, k not a multiple of 4", u8(3, 10), w8(7, 10), 3, 10, False),
                sample("3-d, relu", u8(2, 2, 64), w8(5, 64), 200, 7, True),
                sample("rows, residual add_relu", u8(5, 20), w8(9, 20), 17, 100, False,
                       add=(0.3, 0.07, 250, 0.2, 40, True))]
    return [sample("strided, padded, relu", u8(1, 5, 6, 7), w8(6, 5, 3, 2), 3, 10, True,
                   ((2, 1), (1, 1), (1, 1), 1)),
            sample("dilated, batch 2", u8(2, 4, 7, 6), w8(3, 4, 2, 2), 128, 0, False,
                   ((1, 1), (0, 2), (2, 1), 1)),
            sample("depthwise", u8(1, 4, 5, 5), w8(4, 1, 3, 3), 9, 30, False,
                   ((1, 2), (1, 1), (1, 1), 4)),
            sample("batch 2, residual add", u8(2, 6, 5, 7), w8(4, 6, 3, 3), 30, 120, True,
                   ((1, 1), (1, 1), (1, 1), 1), add=(0.11, 0.05, 3, 0.09, 128, False)),
            sample("depthwise, residual add_relu", u8(1, 4, 6, 5), w8(4, 1, 3, 3), 9, 30, False,
                   ((2, 1), (1, 1), (1, 1), 4), add=(0.2, 0.3, 200, 0.25, 7, True))]


# torch's quantized add and mul round differently in their vectorized loop
# (float32, fused multiply-adds) and in their scalar one (broadcast
# operands, short tensors, a loop's tail: double products, separate
# multiplies); the kernels compute the vectorized form, which models' large
# tensors take (docs/quantization.md, "Numerics").
QUANT_ONE_STEP = {torch.quint8: 1, torch.qint8: 1, torch.qint32: 1, **EXACT}


def _linear_dynamic_samples():
    """quantize_dynamic's Linear: a float input quantized per call."""
    import torch.ao.nn.quantized.dynamic as nnqd

    def sample(name, x, w, b, reduce_range):
        def fn(x, w, b):
            m = nnqd.Linear(w.shape[1], w.shape[0])
            m.set_weight_bias(w, b)
            return m(x)
        out = fn(x, w, b)
        graph = Graph(fn, f"%a0: {_qtype(x)}, %a1: {_qtype(w)}, %a2: {_qtype(b)}) -> {_qtype(out)} {{\n"
                      f'    %r = call_function "traced.quantized.linear_dynamic"(%a0, %a1, %a2, '
                      f"reduce_range={reduce_range}) : ({_qtype(x)}, {_qtype(w)}, {_qtype(b)}) -> {_qtype(out)}\n"
                      f"    output %r : {_qtype(out)}")
        return (name, graph, [x, w, b], {torch.float32: 1e-5})
    b = tensor((5,), torch.float32, low=-1, high=1)
    return [
        sample("per tensor", tensor((3, 8), torch.float32, low=-2, high=3),
               torch.quantize_per_tensor(tensor((5, 8), torch.float32, low=-1, high=1), 0.01, 0, torch.qint8),
               b, True),
        sample("per channel, batched", tensor((2, 3, 8), torch.float32, low=0.5, high=4),
               qchannels((5, 8), symmetric=True), b, True),
    ]


def _fused_fake_quant_samples():
    """QAT's FusedMovingAvgObsFakeQuantize modules after a few observed
    batches, their observers off (as an exported model runs them)."""
    from torch.ao.quantization import fake_quantize as fq, observer as ob
    samples = []
    for name, module, shape in [
            ("per tensor quint8", fq.FusedMovingAvgObsFakeQuantize(
                observer=ob.MovingAverageMinMaxObserver, quant_min=0, quant_max=255), (2, 3, 4)),
            ("per channel qint8", fq.FusedMovingAvgObsFakeQuantize(
                observer=ob.MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
                dtype=torch.qint8, qscheme=torch.per_channel_symmetric, ch_axis=0), (4, 3, 2))]:
        for i in range(3):
            module(tensor(shape, torch.float32, low=-3 - i, high=2 + i))
        module.apply(torch.ao.quantization.disable_observer)
        samples.append((name, module, [tensor(shape, torch.float32, low=-6, high=6)]))
    return samples


def _quantized_binary_samples(op):
    return [
        (name, fn, inputs, QUANT_ONE_STEP) for name, fn, inputs in [
            ("per tensor", lambda a, b: op(a, b, 0.07, 5),
             [qtensor((2, 3, 4), 0.05, 3), qtensor((2, 3, 4), 0.031, 7)]),
            ("broadcast", lambda a, b: op(a, b, 0.1, 0),
             [qtensor((2, 3, 4), 0.05, 3), qtensor((3, 4), 0.02, 200)]),
            ("qint8", lambda a, b: op(a, b, 0.08, -3),
             [qtensor((4, 5), 0.05, -2, torch.qint8), qtensor((4, 5), 0.04, 1, torch.qint8)]),
            ("scale and zero point tensors", lambda a, b, s, z: op(a, b, s, z),
             [qtensor((2, 3), 0.05, 3), qtensor((2, 3), 0.05, 3), torch.tensor(0.06),
              torch.tensor(4)]),
        ]
    ]


def _storage_samples(fn, *shapes):
    """Samples of an entry that moves elements, on quantized tensors."""
    return fixed(*[(f"quantized {dtype} {shape}", fn, [qtensor(shape, 0.05, zp, dtype)], QUANT_EXACT)
                   for shape in shapes
                   for dtype, zp in ((torch.quint8, 3), (torch.qint8, -2))])


OPS = {
    # Activations.
    "torch.nn.functional.relu": chain(unary(F.relu), _storage_samples(F.relu, (2, 3, 4))),
    "torch.nn.functional.relu6": chain(unary(F.relu6), _storage_samples(F.relu6, (2, 3, 4))),
    "torch.nn.functional.hardtanh": chain(unary(F.hardtanh), unary(lambda x: F.hardtanh(x, -2.0, 3.5)),
                                          _storage_samples(lambda x: F.hardtanh(x, -0.5, 2.5), (2, 3, 4))),
    "torch.nn.functional.gelu": chain(unary(F.gelu, tol=TRANSCENDENTAL),
                                      unary(lambda x: F.gelu(x, approximate="tanh"), tol=TRANSCENDENTAL)),
    "torch.nn.functional.silu": unary(F.silu, tol=TRANSCENDENTAL),
    "torch.nn.functional.hardswish": unary(F.hardswish),
    "torch.nn.functional.hardsigmoid": chain(unary(F.hardsigmoid),
                                             _storage_samples(F.hardsigmoid, (2, 3, 4))),
    "torch.nn.functional.leaky_relu": chain(unary(F.leaky_relu), unary(lambda x: F.leaky_relu(x, 0.2))),
    "torch.sigmoid": chain(unary(torch.sigmoid, tol=TRANSCENDENTAL),
                           _storage_samples(torch.sigmoid, (2, 3, 4))),
    "torch.tanh": unary(torch.tanh, tol=TRANSCENDENTAL),
    "torch.nn.functional.softmax": chain(
        unary(lambda x: F.softmax(x, dim=-1), dtypes=FLOAT_DTYPES, tol=TRANSCENDENTAL, special=False),
        fixed(("dim 0", lambda x: F.softmax(x, 0), [f32(3, 4)], TRANSCENDENTAL),
              ("dtype f64", lambda x: F.softmax(x, 1, dtype=torch.float64), [f32(3, 4)], TRANSCENDENTAL),
              # No dim: torch 1.13 picks 0 for ranks 0, 1 and 3, else 1
              # (deprecated, with a warning; older models' nn.Softmax()).
              *[(f"implicit dim rank {len(s)}", lambda x: F.softmax(x), [f32(*s)], TRANSCENDENTAL)
                for s in [(), (5,), (2, 3), (2, 3, 4), (2, 3, 2, 2)]],
              ("module implicit dim", torch.nn.Softmax(), [f32(2, 3, 4)], TRANSCENDENTAL))),
    "torch.nn.functional.log_softmax": chain(
        unary(lambda x: F.log_softmax(x, dim=-1), dtypes=FLOAT_DTYPES, tol=TRANSCENDENTAL, special=False),
        fixed(("dim 0", lambda x: F.log_softmax(x, 0), [f32(3, 4)], TRANSCENDENTAL),
              *[(f"implicit dim rank {len(s)}", lambda x: F.log_softmax(x), [f32(*s)], TRANSCENDENTAL)
                for s in [(5,), (2, 3), (2, 3, 4)]])),
    "torch.clamp": chain(
        unary(lambda x: torch.clamp(x, -1, 2), dtypes=NUMERIC),
        unary(lambda x: torch.clamp(x, min=0.5), dtypes=FLOAT_DTYPES),
        unary(lambda x: x.clip(max=1), dtypes=NUMERIC),
        fixed(("tensor min", lambda x, lo: torch.clamp(x, min=lo), [f32(3, 4), f32(4)]),
              ("tensor min max", lambda x, lo, hi: torch.clamp(x, lo, hi), [f32(3, 4), f32(3, 1), f32(4) + 3]),
              ("int tensor bounds", lambda x, lo: torch.clamp(x, max=lo), [dt(torch.int32, 3, 4), dt(torch.int64, 4)]))),

    "torch.nn.functional.elu": chain(
        unary(F.elu, tol=TRANSCENDENTAL),
        unary(lambda x: F.elu(x, 0.5), dtypes=FLOAT_DTYPES, tol=TRANSCENDENTAL),
        # aten::elu's scale and input_scale.
        unary(lambda x: torch.ops.aten.elu(x, 0.5, 2.0, 1.5), dtypes=FLOAT_DTYPES,
              tol=TRANSCENDENTAL),
        unary(lambda x: torch.ops.aten.elu(x, 1.0, 0.5), dtypes=FLOAT_DTYPES,
              tol=TRANSCENDENTAL)),
    "torch.nn.functional.selu": unary(F.selu, tol=TRANSCENDENTAL),
    "torch.nn.functional.celu": unary(lambda x: F.celu(x, 1.5), tol=TRANSCENDENTAL),
    "torch.nn.functional.softplus": chain(unary(F.softplus, tol=TRANSCENDENTAL),
                                          unary(lambda x: F.softplus(x, 2, 3), dtypes=FLOAT_DTYPES, tol=TRANSCENDENTAL)),
    # Integers: |x| + 1 wraps in the dtype (uint8 255 -> inf, int8 -128).
    "torch.nn.functional.softsign": chain(
        unary(F.softsign, tol=TRANSCENDENTAL),
        fixed(*[(f"{d} extremes", F.softsign,
                 [torch.tensor([torch.iinfo(d).min, torch.iinfo(d).max, 0, 1, -1]
                               if d != torch.uint8 else [255, 254, 0, 1, 7], dtype=d)],
                 TRANSCENDENTAL) for d in INT_DTYPES])),
    "torch.nn.functional.mish": unary(F.mish, tol=TRANSCENDENTAL),
    "torch.nn.functional.hardshrink": unary(lambda x: F.hardshrink(x, 1.0)),
    "torch.nn.functional.softshrink": unary(F.softshrink),
    "torch.nn.functional.tanhshrink": unary(F.tanhshrink, tol=TRANSCENDENTAL),
    "torch.nn.functional.threshold": unary(lambda x: F.threshold(x, 0.5, -2.0)),
    "torch.nn.functional.rrelu": unary(lambda x: F.rrelu(x, training=False)),
    "torch.nn.functional.logsigmoid": unary(F.logsigmoid, tol=TRANSCENDENTAL),

    "torch.nn.functional.softmin": chain(
        unary(lambda x: F.softmin(x, dim=-1), dtypes=FLOAT_DTYPES, tol=TRANSCENDENTAL, special=False),
        fixed(("module", torch.nn.Softmin(0), [f32(3, 2)], TRANSCENDENTAL),
              *[(f"implicit dim rank {len(s)}", lambda x: F.softmin(x), [f32(*s)], TRANSCENDENTAL)
                for s in [(5,), (2, 3), (2, 3, 4)]])),
    "torch.nn.functional.glu": chain(
        fixed(*[(f"{d}", lambda x: F.glu(x), [dt(d, 3, 4)], TRANSCENDENTAL) for d in ALL_DTYPES]),
        fixed(("dim 0", lambda x: F.glu(x, 0), [f32(4, 3)], TRANSCENDENTAL),
              ("module", torch.nn.GLU(1), [f32(2, 6)], TRANSCENDENTAL))),
    "torch.nn.functional.prelu": fixed(
        ("per channel", F.prelu, [f32(2, 3, 4), f32(3)]),
        ("one weight", F.prelu, [f32(2, 3), f32(1)]),
        ("f64", F.prelu, [dt(torch.float64, 4, 2), dt(torch.float64, 2)]),
        ("module", torch.nn.PReLU(3), [f32(2, 3, 2)])),
    "torch.nn.functional.normalize": chain(
        fixed(*[(f"{d}", lambda x: F.normalize(x), [dt(d, 3, 4)], TRANSCENDENTAL) for d in FLOAT_DTYPES]),
        fixed(("p=1 dim 0", lambda x: F.normalize(x, 1.0, 0), [f32(3, 4)], TRANSCENDENTAL),
              ("zeros", lambda x: F.normalize(x, dim=-1), [torch.zeros(2, 3)], TRANSCENDENTAL))),
    "torch.nn.functional.group_norm": fixed(
        ("affine", lambda x, w, b: F.group_norm(x, 2, w, b), [f32(2, 4, 3, 3), f32(4), f32(4)], ACCUMULATE),
        ("plain", lambda x: F.group_norm(x, 3, eps=1e-3), [f32(1, 6, 5)], ACCUMULATE),
        ("f64", lambda x: F.group_norm(x, 1), [dt(torch.float64, 2, 2, 2)], ACCUMULATE),
        ("module", torch.nn.GroupNorm(2, 4), [f32(2, 4, 3)], ACCUMULATE)),

    # Elementwise math.
    "torch.exp": unary(torch.exp, tol=TRANSCENDENTAL),
    "torch.log": unary(torch.log, tol=TRANSCENDENTAL),
    "torch.sqrt": unary(torch.sqrt, tol=TRANSCENDENTAL),
    "torch.rsqrt": unary(torch.rsqrt, tol=TRANSCENDENTAL),
    "torch.abs": unary(torch.abs),
    "torch.erf": unary(torch.erf, tol=TRANSCENDENTAL),
    "torch.neg": unary(torch.neg),

    # Broadcasting arithmetic.
    "torch.add": chain(binary(torch.add), fixed(
        ("alpha", lambda x, y: torch.add(x, y, alpha=2), [f32(3), f32(3)]),
        ("int alpha", lambda x, y: torch.add(x, y, alpha=-3), [dt(torch.int32, 3), dt(torch.int32, 3)]),
        # In bool, alpha is a bool: x | y for any nonzero alpha.
        *[(f"bool alpha {a}", lambda x, y, a=a: torch.add(x, y, alpha=a),
           [torch.tensor([True, False, True, False]), torch.tensor([True, True, False, False])]) for a in (-1, 0, 2)],
        ("aten add.Tensor", lambda x, y: torch.ops.aten.add.Tensor(x, y, alpha=2), [f32(3), dt(torch.int64, 3)]),
        ("aten add.Scalar", lambda x: torch.ops.aten.add.Scalar(x, 3), [dt(torch.int16, 3)]),
        ("aten packet", lambda x, y: torch.ops.aten.add(x, y), [f32(2, 3), f32(3)]))),
    "torch.sub": chain(binary(torch.sub), fixed(
        ("alpha", lambda x, y: torch.sub(x, y, alpha=0.5), [f32(3), f32(3)]))),
    "Tensor.__rsub__": binary(lambda x, y: y - x if isinstance(x, torch.Tensor) else x - y, tensors=False, scalar_first=False),
    "torch.mul": binary(torch.mul),
    "torch.div": chain(binary(torch.div, tol=EXACT),
                       binary(lambda x, y: torch.div(x, y, rounding_mode="trunc"), divisor=True,
                              tol=ROUNDED_QUOTIENT),
                       binary(lambda x, y: torch.div(x, y, rounding_mode="floor"), divisor=True,
                              tol=ROUNDED_QUOTIENT)),
    "Tensor.__rtruediv__": binary(lambda x, y: y / x if isinstance(x, torch.Tensor) else x / y,
                                  divisor=True, tensors=False, scalar_first=False),
    "torch.floor_divide": binary(lambda x, y: x // y, divisor=True, tol=ROUNDED_QUOTIENT,
                                 scalar_first=False),
    "torch.pow": chain(
        binary(torch.pow, pairs=[(d, d) for d in FLOAT_DTYPES] + [(torch.int64, torch.float32)],
               scalars=(2, 0.5, 3), tol=TRANSCENDENTAL),
        fixed(("int ** int", lambda x, y: x ** y, [dt(torch.int64, 5), positive((5,), torch.int64)]),
              ("int32 ** 2", lambda x: x ** 2, [dt(torch.int32, 5)]),
              # uint8 exponents above 127 are not negative (fuzz-diff:
              # pow-uint8-exponent-above-127).
              ("uint8 ** uint8", lambda x, y: torch.pow(x, y),
               [torch.tensor([253, 6, 250, 3, 255, 2], dtype=torch.uint8),
                torch.tensor([253, 6, 250, 200, 255, 128], dtype=torch.uint8)]))),
    "Tensor.__rfloordiv__": binary(lambda x, y: y // x if isinstance(x, torch.Tensor) else x // y,
                                   divisor=True, tensors=False, scalar_first=False),
    "Tensor.__rpow__": fixed(*[(f"{s!r} ** {d}", lambda x, s=s: s ** x, [positive((2, 3), d)], TRANSCENDENTAL)
                               for s in (2, 0.5, -3) for d in NUMERIC]),
    "Tensor.__rmod__": binary(lambda x, y: y % x if isinstance(x, torch.Tensor) else x % y,
                              divisor=True, tensors=False, scalar_first=False),
    "torch.remainder": binary(lambda x, y: x % y, divisor=True, scalar_first=False),
    "torch.fmod": binary(lambda x, y: torch.fmod(x, y) if isinstance(x, torch.Tensor)
                         else torch.fmod(y, x), divisor=True, scalars=(2, -3, 2.5)),

    # Float-only math (integers promote to float32).
    **{f"torch.{n}": unary(getattr(torch, n), tol=TRANSCENDENTAL, domain=dom)
       for n, dom in [("reciprocal", tensor), ("exp2", tensor), ("expm1", tensor),
                      ("log2", positive), ("log10", positive), ("log1p", positive),
                      ("erfc", tensor), ("sin", tensor), ("cos", tensor), ("tan", tensor),
                      ("sinh", tensor), ("cosh", tensor), ("asinh", tensor), ("atan", tensor)]},
    "torch.asin": unary(torch.asin, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-1, high=1)),
    "torch.acos": unary(torch.acos, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-1, high=1)),
    "torch.atanh": unary(torch.atanh, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-1, high=1)),
    "torch.acosh": unary(torch.acosh, tol=TRANSCENDENTAL, domain=positive),
    "torch.erfinv": unary(torch.erfinv, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-1, high=1)),
    "torch.lgamma": chain(
        unary(torch.lgamma, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-8, high=8)),
        points(torch.lgamma, [0.0, -0.0, -1.0, -2.0, -3.5, -0.5, 0.5, 1.0, 2.0, 1e-30, 3.0,
                              12.5, 171.5, 1e10, 1e30, -1e10 - 0.5, -1e30, 3e38])),
    "torch.digamma": chain(
        unary(torch.digamma, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-8, high=8)),
        points(torch.digamma, [0.0, -0.0, -1.0, -2.0, -3.5, -0.5, 0.5, 1.0, 1.4616321449683622,
                               1e-30, 9.5, 10.0, 10.5, 1e10, 1e17, 1e30, -1e10 - 0.5, 3e38])),
    "torch.polygamma": chain(*[
        chain(unary(lambda x, n=n: torch.polygamma(n, x), tol=TRANSCENDENTAL,
                    dtypes=[torch.bool, torch.int64, torch.float16, torch.bfloat16,
                            torch.float32, torch.float64],
                    domain=lambda s, d: tensor(s, d, low=-8, high=8)),
              points(lambda x, n=n: torch.special.polygamma(n, x),
                     [0.0, -0.0, -1.0, -2.5, -0.5, 0.5, 1.0, 1e-10, 9.5, 10.0, 30.0, 1e5, 1e10]))
        for n in range(6)]),
    "Tensor.polygamma": chain(*[
        unary(lambda x, n=n: x.polygamma(n), tol=TRANSCENDENTAL,
              dtypes=[torch.int32, torch.float32, torch.float64],
              domain=lambda s, d: tensor(s, d, low=-8, high=8))
        for n in (0, 1, 3)]),
    "torch.mvlgamma": chain(*[
        unary(lambda x, p=p: torch.mvlgamma(x, p), tol=TRANSCENDENTAL, special=False,
              dtypes=[torch.int64, torch.float16, torch.bfloat16, torch.float32, torch.float64],
              domain=lambda s, d, p=p: tensor(s, d, low=(p - 1) // 2 + 1, high=(p - 1) // 2 + 9))
        for p in (1, 2, 3, 5)] + [
        points(lambda x: torch.special.multigammaln(x, 3), [1.0001, 1.5, 2.0, 10.0, 1e5, 1e30])]),
    "torch.i0": chain(
        unary(torch.i0, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-20, high=20)),
        points(torch.special.i0, [0.0, -0.0, 1.0, -3.0, 8.0, -8.0, 8.001, 50.0, -50.0, 88.0,
                                  89.0, 90.0, 700.0, 714.0, 1e5])),
    "torch.special.i0e": chain(
        unary(torch.special.i0e, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-20, high=20)),
        points(torch.special.i0e, [0.0, -0.0, 1.0, -3.0, 8.0, -8.0, 8.001, 50.0, -50.0, 1e5, 1e30])),
    "torch.special.i1": chain(
        unary(torch.special.i1, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-20, high=20)),
        points(torch.special.i1, [0.0, -0.0, 1.0, -3.0, 8.0, -8.0, 8.001, 50.0, -50.0, 88.0,
                                  90.0, 700.0, 714.0, 1e5])),
    "torch.special.i1e": chain(
        unary(torch.special.i1e, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-20, high=20)),
        points(torch.special.i1e, [0.0, -0.0, 1.0, -3.0, 8.0, -8.0, 8.001, 50.0, -50.0, 1e5, 1e30])),
    "torch.special.ndtr": chain(
        unary(torch.special.ndtr, tol=TRANSCENDENTAL),
        points(torch.special.ndtr, [-40.0, -10.0, -1.0, 0.0, -0.0, 1.0, 10.0, 40.0])),
    "torch.special.ndtri": chain(
        unary(torch.special.ndtri, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=0, high=1)),
        points(torch.special.ndtri, [0.0, 1.0, 0.5, 1e-30, 1e-10, 1e-3, 0.1, 0.13, 0.14, 0.86,
                                     0.87, 0.999, 0.9999999, -0.1, 1.1])),
    "torch.special.log_ndtr": chain(
        unary(torch.special.log_ndtr, tol=TRANSCENDENTAL),
        points(torch.special.log_ndtr, [-1e5, -100.0, -40.0, -10.0, -1.0001, -1.0, -0.5, 0.0,
                                        5.0, 10.0, 40.0])),
    "torch.special.erfcx": chain(
        unary(torch.special.erfcx, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-8, high=30)),
        points(torch.special.erfcx, [-30.0, -26.7, -26.0, -10.0, -1.0, -0.0, 0.0, 0.5, 1.0, 5.0,
                                     25.9, 26.0, 26.1, 30.0, 1e5, 1e30])),
    "torch.special.entr": chain(
        unary(torch.special.entr, tol=TRANSCENDENTAL),
        points(torch.special.entr, [0.0, -0.0, -1.0, 1e-30, 0.5, 1.0, 2.0, 1e30])),
    "torch.special.xlog1py": chain(
        binary(torch.special.xlog1py, tol=TRANSCENDENTAL, scalars=(0, 2, 2.5),
               pairs=[(torch.float32, torch.float32), (torch.float64, torch.float64),
                      (torch.float16, torch.float16), (torch.bfloat16, torch.bfloat16),
                      (torch.int64, torch.float32), (torch.float32, torch.float64),
                      (torch.int32, torch.int64), (torch.bool, torch.float32)],
               rhs_domain=lambda s, d: tensor(s, d, low=-1, high=5)),
        fixed(("zero x", lambda x, y: torch.special.xlog1py(x * 0, y), [f32(3), f32(3)], TRANSCENDENTAL))),
    "torch.frexp": chain(
        unary(lambda x: torch.frexp(x)[0], dtypes=ALL_DTYPES, domain=lambda s, d: tensor(s, d, low=-100, high=100)),
        unary(lambda x: torch.frexp(x)[1], dtypes=FLOAT_DTYPES, domain=lambda s, d: tensor(s, d, low=-100, high=100)),
        fixed(*[(f"{d} points {i}", lambda x, i=i: x.frexp()[i],
                 [torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-40, -3.5, 1.0, 65504.0,
                                1e-45, 1e-310, -2.5e-308, 1e300, 3e38, 6e-8], dtype=d)])
                for d in FLOAT_DTYPES for i in (0, 1)]),
        fixed(("both", lambda x: (lambda r: r.mantissa * r.exponent)(torch.frexp(x)), [f32(2, 3)]))),
    "torch.gcd": chain(
        binary(torch.gcd, scalars=(), pairs=[(d, d) for d in INT_DTYPES + [torch.bool, torch.float32]] +
               [(torch.int32, torch.int64), (torch.uint8, torch.int8)]),
        fixed(("extremes", torch.gcd, [torch.tensor([12, -18, 0, -128, 127, -128, 7], dtype=torch.int8),
                                       torch.tensor([18, 12, 0, 0, -128, 64, 0], dtype=torch.int8)]),
              ("int64 extremes", torch.gcd, [torch.tensor([2**62, -2**63, 0, 3**39], dtype=torch.int64),
                                             torch.tensor([2**40, 0, -2**63, 3**20 * 2], dtype=torch.int64)]))),
    "torch.lcm": chain(
        binary(torch.lcm, scalars=(), pairs=[(d, d) for d in INT_DTYPES + [torch.bool, torch.float32]] +
               [(torch.int32, torch.int64), (torch.uint8, torch.int8)]),
        fixed(("wrapping", torch.lcm, [torch.tensor([12, -18, 0, 20, 100, -128, 7], dtype=torch.int8),
                                       torch.tensor([18, 12, 0, 10, 3, 64, 0], dtype=torch.int8)]),
              ("int16", torch.lcm, [torch.tensor([300, -7, 1000], dtype=torch.int16),
                                    torch.tensor([7, 300, 999], dtype=torch.int16)]))),
    "torch.nextafter": chain(
        binary(torch.nextafter, scalars=(), pairs=[(d, d) for d in ALL_DTYPES] +
               [(torch.float32, torch.float64), (torch.int64, torch.float32)]),
        *[fixed((f"{d} points", torch.nextafter,
                 [torch.tensor([1.0, 0.0, -0.0, 0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 3e38, 1e-45], dtype=d),
                  torch.tensor([2.0, 1.0, -1.0, -0.0, 0.0, 0.0, 1.0, math.nan, -2.0, math.inf, 0.0], dtype=d)]))
          for d in (torch.float32, torch.float64, torch.bfloat16)]),
    "torch.special.chebyshev_polynomial_t": polynomial(torch.special.chebyshev_polynomial_t),
    "torch.special.chebyshev_polynomial_u": polynomial(torch.special.chebyshev_polynomial_u),
    "torch.special.chebyshev_polynomial_v": polynomial(torch.special.chebyshev_polynomial_v),
    "torch.special.chebyshev_polynomial_w": polynomial(torch.special.chebyshev_polynomial_w),
    "torch.special.shifted_chebyshev_polynomial_t": polynomial(torch.special.shifted_chebyshev_polynomial_t),
    "torch.special.shifted_chebyshev_polynomial_u": polynomial(torch.special.shifted_chebyshev_polynomial_u),
    "torch.special.shifted_chebyshev_polynomial_v": polynomial(torch.special.shifted_chebyshev_polynomial_v),
    "torch.special.shifted_chebyshev_polynomial_w": polynomial(torch.special.shifted_chebyshev_polynomial_w),
    "torch.special.hermite_polynomial_h": polynomial(torch.special.hermite_polynomial_h),
    "torch.special.hermite_polynomial_he": polynomial(torch.special.hermite_polynomial_he),
    "torch.special.laguerre_polynomial_l": polynomial(torch.special.laguerre_polynomial_l),
    "torch.special.legendre_polynomial_p": polynomial(torch.special.legendre_polynomial_p),
    "torch.special.modified_bessel_i0": chain(
        unary(torch.special.modified_bessel_i0, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-20, high=20)),
        points(torch.special.modified_bessel_i0, [0.0, -0.0, 1.0, -3.0, 8.0, -8.0, 8.001, 50.0, -50.0,
                                                  88.0, 89.0, 90.0, 700.0, 714.0, 1e5])),
    "torch.special.modified_bessel_i1": chain(
        unary(torch.special.modified_bessel_i1, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-20, high=20)),
        points(torch.special.modified_bessel_i1, [0.0, -0.0, 1.0, -3.0, 8.0, -8.0, 8.001, 50.0, -50.0,
                                                  88.0, 90.0, 700.0, 714.0, 1e5])),
    "torch.special.spherical_bessel_j0": chain(
        unary(torch.special.spherical_bessel_j0, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-20, high=20)),
        points(torch.special.spherical_bessel_j0, [0.0, -0.0, 0.4999, 0.5, -0.5, 1e-20, 3.14159, 100.0, 1e30])),
    "torch.special.bessel_j0": chain(
        unary(torch.special.bessel_j0, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-12, high=30)),
        points(torch.special.bessel_j0, [0.0, -0.0, 1e-6, 1e-5, 0.5, 1.9999, 2.0, 2.0001, 4.9999, 5.0, 5.0001,
                                       8.0, 30.0, 700.0, 1e5, -1.0, -6.0])),
    "torch.special.bessel_j1": chain(
        unary(torch.special.bessel_j1, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-12, high=30)),
        points(torch.special.bessel_j1, [0.0, -0.0, 1e-6, 1e-5, 0.5, 1.9999, 2.0, 2.0001, 4.9999, 5.0, 5.0001,
                                       8.0, 30.0, 700.0, 1e5, -1.0, -6.0])),
    "torch.special.bessel_y0": chain(
        unary(torch.special.bessel_y0, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-12, high=30)),
        points(torch.special.bessel_y0, [0.0, -0.0, 1e-6, 1e-5, 0.5, 1.9999, 2.0, 2.0001, 4.9999, 5.0, 5.0001,
                                       8.0, 30.0, 700.0, 1e5, -1.0, -6.0])),
    "torch.special.bessel_y1": chain(
        unary(torch.special.bessel_y1, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-12, high=30)),
        points(torch.special.bessel_y1, [0.0, -0.0, 1e-6, 1e-5, 0.5, 1.9999, 2.0, 2.0001, 4.9999, 5.0, 5.0001,
                                       8.0, 30.0, 700.0, 1e5, -1.0, -6.0])),
    "torch.special.modified_bessel_k0": chain(
        unary(torch.special.modified_bessel_k0, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-12, high=30)),
        points(torch.special.modified_bessel_k0, [0.0, -0.0, 1e-6, 1e-5, 0.5, 1.9999, 2.0, 2.0001, 4.9999, 5.0, 5.0001,
                                       8.0, 30.0, 700.0, 1e5, -1.0, -6.0])),
    "torch.special.modified_bessel_k1": chain(
        unary(torch.special.modified_bessel_k1, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-12, high=30)),
        points(torch.special.modified_bessel_k1, [0.0, -0.0, 1e-6, 1e-5, 0.5, 1.9999, 2.0, 2.0001, 4.9999, 5.0, 5.0001,
                                       8.0, 30.0, 700.0, 1e5, -1.0, -6.0])),
    "torch.special.scaled_modified_bessel_k0": chain(
        unary(torch.special.scaled_modified_bessel_k0, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-12, high=30)),
        points(torch.special.scaled_modified_bessel_k0, [0.0, -0.0, 1e-6, 1e-5, 0.5, 1.9999, 2.0, 2.0001, 4.9999, 5.0, 5.0001,
                                       8.0, 30.0, 700.0, 1e5, -1.0, -6.0])),
    "torch.special.scaled_modified_bessel_k1": chain(
        unary(torch.special.scaled_modified_bessel_k1, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-12, high=30)),
        points(torch.special.scaled_modified_bessel_k1, [0.0, -0.0, 1e-6, 1e-5, 0.5, 1.9999, 2.0, 2.0001, 4.9999, 5.0, 5.0001,
                                       8.0, 30.0, 700.0, 1e5, -1.0, -6.0])),
    "torch.special.airy_ai": chain(
        unary(torch.special.airy_ai, tol=TRANSCENDENTAL, domain=lambda s, d: tensor(s, d, low=-15, high=15)),
        points(torch.special.airy_ai, [0.0, -0.0, -2.09, -2.0899, 2.09, 2.0899, 8.3203353, 8.33, -30.0,
                                       -1e4, 50.0, 103.8, 104.0, 1e5])),
    "torch.special.zeta": chain(
        binary(torch.special.zeta, tol=TRANSCENDENTAL, scalars=(2, 3.5),
               pairs=[(torch.float32, torch.float32), (torch.float64, torch.float64),
                      (torch.int64, torch.float32), (torch.float32, torch.float64),
                      (torch.int32, torch.int64), (torch.bfloat16, torch.float32)]),
        fixed(("float64 points", torch.special.zeta,
               [torch.tensor([1.0, 0.5, 2.0, 2.0, 2.0, 3.0, 4.0, 2.5, 2.0, 30.0, 2.0, 2.0], dtype=torch.float64),
                torch.tensor([1.0, 1.0, 1.0, 0.0, -1.0, -2.5, -7.5, -2.5, 1e-5, 1.0, 1e5, 50.0], dtype=torch.float64)],
               TRANSCENDENTAL))),
    "torch.nn.functional.mse_loss": fixed(
        ("mean", F.mse_loss, [f32(3, 4), f32(3, 4)], ACCUMULATE),
        ("sum", lambda x, y: F.mse_loss(x, y, reduction="sum"), [f32(3, 4), f32(3, 4)], ACCUMULATE),
        # torch's mean is a float16 sum, divided: beyond 65504 it is inf
        # (found by replaying fuzz-diff's corpus).
        ("float16 mean overflow", F.mse_loss,
         [torch.arange(0, 240, 20, dtype=torch.uint8).reshape(3, 4), torch.tensor(-200.0, dtype=torch.float16)],
         ACCUMULATE),
        ("0-d f64 input, f16 target", F.mse_loss, [dt(torch.float64), dt(torch.float16, 3, 1)], ACCUMULATE),
        # (ATen spellings pass the reduction as its enum: 0 none, 1 mean, 2 sum.)
        ("aten enum", lambda x, y: torch.ops.aten.mse_loss(x, y, 2), [f32(3, 4), f32(3, 4)], ACCUMULATE),
        ("none broadcast", lambda x, y: F.mse_loss(x, y, reduction="none"), [f32(3, 4), f32(4)]),
        ("f64", F.mse_loss, [dt(torch.float64, 5), dt(torch.float64, 5)]),
        ("legacy", lambda x, y: F.mse_loss(x, y, size_average=False), [f32(2, 3), f32(2, 3)], ACCUMULATE),
        ("module", torch.nn.MSELoss(reduction="sum"), [f32(2, 3), f32(2, 3)], ACCUMULATE),
        ("int rejected", F.mse_loss, [dt(torch.int64, 3), dt(torch.int64, 3)])),
    "torch.nn.functional.l1_loss": fixed(
        ("mean", F.l1_loss, [f32(3, 4), f32(3, 4)], ACCUMULATE),
        ("none", lambda x, y: F.l1_loss(x, y, reduction="none"), [f32(3), f32(3)]),
        ("module", torch.nn.L1Loss(), [f32(2, 3), f32(2, 3)], ACCUMULATE)),
    "torch.nn.functional.smooth_l1_loss": fixed(
        ("mean", F.smooth_l1_loss, [f32(3, 4), f32(3, 4)], ACCUMULATE),
        ("beta", lambda x, y: F.smooth_l1_loss(x, y, beta=2.5, reduction="none"), [f32(6), f32(6)]),
        ("beta 0", lambda x, y: F.smooth_l1_loss(x, y, beta=0.0, reduction="sum"), [f32(6), f32(6)], ACCUMULATE),
        ("module", torch.nn.SmoothL1Loss(beta=0.5), [f32(2, 3), f32(2, 3)], ACCUMULATE),
        # torch broadcasts first: a 0-d float64 input no longer gives way to
        # the target's bfloat16, the difference is taken in float64.
        ("0-d f64 input, bf16 target", F.smooth_l1_loss,
         [dt(torch.float64), dt(torch.bfloat16, 3, 1)], ACCUMULATE)),
    "torch.nn.functional.huber_loss": fixed(
        ("mean", F.huber_loss, [f32(3, 4), f32(3, 4)], ACCUMULATE),
        ("delta", lambda x, y: F.huber_loss(x, y, reduction="none", delta=0.5), [f32(6), f32(6)]),
        ("module", torch.nn.HuberLoss(delta=2.0, reduction="sum"), [f32(2, 3), f32(2, 3)], ACCUMULATE)),
    "torch.nn.functional.soft_margin_loss": fixed(
        ("mean", F.soft_margin_loss, [f32(3, 4), torch.sign(f32(3, 4))], ACCUMULATE),
        ("module", torch.nn.SoftMarginLoss(reduction="none"), [f32(5), torch.sign(f32(5))], TRANSCENDENTAL),
        # exp overflows the dtype (torch: inf, not the margin; fuzz-diff).
        *[(f"overflowing margin {d}", lambda x, t: F.soft_margin_loss(x, t, reduction="none"),
           [torch.tensor([-86.5, -100.0, 3.0, 1e-4]).to(d), torch.tensor([4.5, 1.0, -1.0, 1.0]).to(d)],
           TRANSCENDENTAL, d) for d in (torch.float32, torch.bfloat16, torch.float64)]),
    "torch.nn.functional.binary_cross_entropy": fixed(
        ("mean", F.binary_cross_entropy, [torch.rand(3, 4), torch.rand(3, 4)], ACCUMULATE),
        ("weight none", lambda x, y, w: F.binary_cross_entropy(x, y, w, reduction="none"),
         [torch.rand(3, 4), torch.rand(3, 4), torch.rand(4)], TRANSCENDENTAL),
        ("saturated", lambda x, y: F.binary_cross_entropy(x, y, reduction="sum"),
         [torch.tensor([0.0, 1.0, 0.5]), torch.tensor([1.0, 0.0, 0.5])], ACCUMULATE),
        ("module", torch.nn.BCELoss(), [torch.rand(5), torch.rand(5)], ACCUMULATE),
        ("shape rejected", F.binary_cross_entropy, [torch.rand(3, 1), torch.rand(3, 4)])),
    "torch.nn.functional.binary_cross_entropy_with_logits": fixed(
        ("mean", F.binary_cross_entropy_with_logits, [f32(3, 4), torch.rand(3, 4)], ACCUMULATE),
        ("pos_weight", lambda x, y, p: F.binary_cross_entropy_with_logits(x, y, pos_weight=p, reduction="none"),
         [f32(3, 4), torch.rand(3, 4), torch.rand(4) + 0.5], TRANSCENDENTAL),
        # torch refuses (pos_weight - 1 of bools); fuzz-diff finding
        # bce-logits-bool-pos-weight.
        ("bool pos_weight", lambda x, p: F.binary_cross_entropy_with_logits(x, x, pos_weight=p),
         [dt(torch.bfloat16, 3, 4), dt(torch.bool, 3, 1)]),
        ("large logits", lambda x, y: F.binary_cross_entropy_with_logits(x * 30, y, reduction="sum"),
         [f32(6), torch.rand(6)], ACCUMULATE),
        ("module", torch.nn.BCEWithLogitsLoss(weight=torch.rand(3)), [f32(2, 3), torch.rand(2, 3)], ACCUMULATE),
        # torch's steps rounded in bfloat16, in its order (fuzz-diff:
        # test/Fuzz/diff/bce-with-logits-bf16-step-order); exact, so a
        # step in another order or dtype shows.
        ("bfloat16 chain", lambda x: F.binary_cross_entropy_with_logits(
            *2 * [F.binary_cross_entropy_with_logits(*2 * [F.binary_cross_entropy_with_logits(x, x)])]),
         [torch.full((3,), -1.5, dtype=torch.bfloat16)], EXACT),
        ("bfloat16 none", lambda x, y: F.binary_cross_entropy_with_logits(x, y, reduction="none"),
         [dt(torch.bfloat16, 3, 4) * 4, torch.rand(3, 4).bfloat16()], EXACT)),
    "torch.nn.functional.kl_div": fixed(
        ("batchmean", lambda x, y: F.kl_div(x, y, reduction="batchmean"),
         [F.log_softmax(f32(3, 4), 1), F.softmax(f32(3, 4) * 2, 1)], ACCUMULATE),
        ("none zero target", lambda x, y: F.kl_div(x, y * (y > 0.3), reduction="none"),
         [F.log_softmax(f32(2, 3), 1), torch.rand(2, 3)], TRANSCENDENTAL),
        ("log target", lambda x, y: F.kl_div(x, y, reduction="sum", log_target=True),
         [F.log_softmax(f32(2, 3), 1), F.log_softmax(f32(2, 3) * 3, 1)], ACCUMULATE),
        ("module", torch.nn.KLDivLoss(reduction="mean"), [F.log_softmax(f32(2, 3), 1), torch.rand(2, 3)], ACCUMULATE)),
    "torch.nn.functional.nll_loss": fixed(
        ("mean", F.nll_loss, [F.log_softmax(f32(4, 5), 1), torch.tensor([0, 4, 2, 2])], ACCUMULATE),
        ("weight ignore", lambda x, t, w: F.nll_loss(x, t, weight=w, ignore_index=2),
         [F.log_softmax(f32(4, 5), 1), torch.tensor([0, 4, 2, 1]), torch.rand(5)], ACCUMULATE),
        ("spatial none", lambda x, t: F.nll_loss(x, t, reduction="none"),
         [F.log_softmax(f32(2, 3, 2, 2), 1), torch.tensor([[[0, 1], [2, 2]], [[1, 1], [0, 2]]])]),
        ("unbatched", F.nll_loss, [F.log_softmax(f32(5), 0), torch.tensor(3)]),
        ("module", torch.nn.NLLLoss(reduction="sum"), [F.log_softmax(f32(3, 4), 1), torch.tensor([3, 0, 1])], ACCUMULATE),
        ("float target rejected", F.nll_loss, [f32(3, 4), f32(3)])),
    # The margin and embedding losses (marginLossType).
    "torch.nn.functional.margin_ranking_loss": fixed(
        ("mean", lambda a, b, t: F.margin_ranking_loss(a, b, t, margin=0.3), [f32(6), f32(6), torch.tensor([1., -1, 1, -1, 1, 1])],
         ACCUMULATE),
        ("none broadcast", lambda a, b, t: F.margin_ranking_loss(a, b, t, reduction="none"), [f32(3, 4), f32(1, 4), f32(3, 1)]),
        ("int64 sum", lambda a, b, t: F.margin_ranking_loss(a, b, t, margin=0.5, reduction="sum"),
         [dt(torch.int64, 5), dt(torch.int64, 5), torch.tensor([1, -1, 1, -1, 1])]),
        ("f64 legacy", lambda a, b, t: F.margin_ranking_loss(a, b, t, size_average=False),
         [dt(torch.float64, 4), dt(torch.float32, 4), torch.tensor([1, -1, 1, -1])]),
        ("module", torch.nn.MarginRankingLoss(margin=0.1), [f32(4), f32(4), torch.tensor([1., -1, -1, 1])], ACCUMULATE),
        ("bool target rejected", F.margin_ranking_loss, [f32(3), f32(3), dt(torch.bool, 3)]),
        ("ranks rejected", F.margin_ranking_loss, [f32(3), f32(1, 3), f32(3)])),
    "torch.nn.functional.hinge_embedding_loss": fixed(
        ("mean", lambda x, t: F.hinge_embedding_loss(x, t, margin=2.0), [f32(3, 4), torch.tensor([1., -1, -1, 1])], ACCUMULATE),
        ("none other targets", lambda x, t: F.hinge_embedding_loss(x, t, reduction="none"), [f32(5), torch.tensor([1., -1, 0, 2, -1])]),
        ("int64 sum", lambda x, t: F.hinge_embedding_loss(x, t, margin=2.7, reduction="sum"),
         [dt(torch.int64, 6), torch.tensor([1, -1, -1, 1, -1, -1])]),
        ("int64 none", lambda x, t: F.hinge_embedding_loss(x, t, margin=-1.5, reduction="none"),
         [dt(torch.int64, 6), torch.tensor([1, -1, -1, 1, -1, -1])]),
        ("module", torch.nn.HingeEmbeddingLoss(margin=0.5, reduction="sum"), [f32(4), torch.tensor([1., -1, -1, 1])], ACCUMULATE),
        ("int64 mean rejected", F.hinge_embedding_loss, [dt(torch.int64, 3), torch.tensor([1, -1, 1])])),
    "torch.nn.functional.cosine_embedding_loss": fixed(
        ("mean", lambda a, b, t: F.cosine_embedding_loss(a, b, t, margin=0.2), [f32(4, 5), f32(4, 5), torch.tensor([1., -1, -1, 1])],
         ACCUMULATE),
        ("none", lambda a, b, t: F.cosine_embedding_loss(a, b, t, margin=-0.3, reduction="none"),
         [f32(4, 5), f32(4, 5), torch.tensor([1, -1, -1, 1])], ACCUMULATE),
        ("unbatched", lambda a, b, t: F.cosine_embedding_loss(a, b, t, reduction="sum"), [f32(5), f32(5), torch.tensor(-1.)],
         ACCUMULATE),
        ("int64", lambda a, b, t: F.cosine_embedding_loss(a, b, t, reduction="none"),
         [dt(torch.int64, 3, 4), dt(torch.int64, 3, 4), torch.tensor([1, -1, 1])], ACCUMULATE),
        ("broadcast rows", lambda a, b, t: F.cosine_embedding_loss(a, b, t, reduction="none"),
         [f32(3, 4), f32(1, 4), torch.tensor([1, -1, 1])], ACCUMULATE),
        ("module", torch.nn.CosineEmbeddingLoss(margin=0.1), [f32(3, 4), f32(3, 4), torch.tensor([1., -1, 1])], ACCUMULATE),
        ("2-d target rejected", F.cosine_embedding_loss, [f32(3, 4), f32(3, 4), f32(3, 1)])),
    "torch.nn.functional.gaussian_nll_loss": fixed(
        ("mean", F.gaussian_nll_loss, [f32(3, 4), f32(3, 4), positive((3, 4), torch.float32)], TRANSCENDENTAL),
        ("none full", lambda x, t, v: F.gaussian_nll_loss(x, t, v, full=True, reduction="none"),
         [f32(3, 4), f32(3, 4), positive((3, 4), torch.float32)], TRANSCENDENTAL),
        ("homoscedastic", lambda x, t, v: F.gaussian_nll_loss(x, t, v, reduction="sum"),
         [f32(3, 4), f32(3, 4), positive((3,), torch.float32)], ACCUMULATE),
        ("var of last dim 1, eps", lambda x, t, v: F.gaussian_nll_loss(x, t, v * 0, eps=0.5, reduction="none"),
         [f32(3, 4), f32(3, 4), positive((3, 1), torch.float32)], TRANSCENDENTAL),
        ("int64 input", lambda x, t, v: F.gaussian_nll_loss(x, t, v, reduction="none"),
         [dt(torch.int64, 5), dt(torch.int64, 5), positive((5,), torch.float64)], TRANSCENDENTAL),
        ("module", torch.nn.GaussianNLLLoss(full=True), [f32(4), f32(4), positive((4,), torch.float32)], TRANSCENDENTAL),
        ("negative var rejected", F.gaussian_nll_loss, [f32(4), f32(4), -positive((4,), torch.float32)]),
        ("int64 var rejected", F.gaussian_nll_loss, [f32(4), f32(4), positive((4,), torch.int64)]),
        ("var size rejected", F.gaussian_nll_loss, [f32(3, 4), f32(3, 4), positive((4,), torch.float32)])),
    "torch.nn.functional.multilabel_soft_margin_loss": fixed(
        ("mean", F.multilabel_soft_margin_loss, [f32(3, 5), (f32(3, 5) > 0).float()], TRANSCENDENTAL),
        ("weight none", lambda x, t, w: F.multilabel_soft_margin_loss(x, t, weight=w, reduction="none"),
         [f32(3, 5), (f32(3, 5) > 0).float(), torch.rand(5)], TRANSCENDENTAL),
        ("1-d sum int target", lambda x, t: F.multilabel_soft_margin_loss(x, t, reduction="sum"),
         [f32(6) * 4, (f32(6) > 0).long()], TRANSCENDENTAL),
        ("module", torch.nn.MultiLabelSoftMarginLoss(), [f32(2, 4), (f32(2, 4) > 0).float()], TRANSCENDENTAL),
        ("int64 input rejected", F.multilabel_soft_margin_loss, [dt(torch.int64, 2, 3), dt(torch.int64, 2, 3)])),
    "torch.nn.functional.triplet_margin_loss": fixed(
        ("mean", F.triplet_margin_loss, [f32(4, 6), f32(4, 6), f32(4, 6)], TRANSCENDENTAL),
        ("p 1 swap none", lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True, reduction="none"),
         [f32(4, 6), f32(4, 6), f32(4, 6)], TRANSCENDENTAL),
        ("unbatched sum", lambda a, p, n: F.triplet_margin_loss(a, p, n, p=3, reduction="sum"), [f32(5), f32(5), f32(5)],
         TRANSCENDENTAL),
        ("int64", F.triplet_margin_loss, [dt(torch.int64, 3, 4), dt(torch.int64, 3, 4), dt(torch.int64, 3, 4)], TRANSCENDENTAL),
        ("module", torch.nn.TripletMarginLoss(margin=0.5, swap=True), [f32(3, 4), f32(3, 4), f32(3, 4)], TRANSCENDENTAL),
        ("ranks rejected", F.triplet_margin_loss, [f32(3, 4), f32(4), f32(3, 4)])),
    "torch.nn.functional.multi_margin_loss": fixed(
        ("mean", F.multi_margin_loss, [f32(4, 5), torch.tensor([0, 4, 2, 2])], ACCUMULATE),
        ("p 2 weight none", lambda x, t, w: F.multi_margin_loss(x, t, p=2, margin=0.7, weight=w, reduction="none"),
         [f32(4, 5), torch.tensor([0, 4, 2, 1]), torch.rand(5)], ACCUMULATE),
        ("1-d", lambda x, t: F.multi_margin_loss(x, t, reduction="none"), [f32(5), torch.tensor([3])]),
        ("0-d target sum f64", lambda x, t: F.multi_margin_loss(x, t, reduction="sum"), [dt(torch.float64, 5), torch.tensor(1)]),
        ("module", torch.nn.MultiMarginLoss(p=2), [f32(3, 4), torch.tensor([3, 0, 1])], ACCUMULATE),
        ("target out of range rejected", F.multi_margin_loss, [f32(3, 4), torch.tensor([3, 4, 1])]),
        ("p 3 rejected", lambda x, t: F.multi_margin_loss(x, t, p=3), [f32(3, 4), torch.tensor([3, 0, 1])])),
    "torch.nn.functional.multilabel_margin_loss": fixed(
        ("mean", F.multilabel_margin_loss, [f32(3, 4), torch.tensor([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 2, 2]])], ACCUMULATE),
        ("none", lambda x, t: F.multilabel_margin_loss(x, t, reduction="none"),
         [f32(3, 4), torch.tensor([[3, 0, -1, 1], [-1, 1, 2, 3], [1, 1, 2, -1]])], ACCUMULATE),
        ("1-d sum f64", lambda x, t: F.multilabel_margin_loss(x, t, reduction="sum"),
         [dt(torch.float64, 5), torch.tensor([4, 0, -1, 2, 2])]),
        ("module", torch.nn.MultiLabelMarginLoss(), [f32(2, 3), torch.tensor([[2, -1, 0], [0, 1, -1]])], ACCUMULATE),
        ("target out of range rejected", F.multilabel_margin_loss, [f32(2, 3), torch.tensor([[2, -1, 0], [0, 3, -1]])])),
    # ctc_loss: log-probabilities (T, N, C), targets padded (N, S) or
    # concatenated, lengths as tensors or int lists.
    "torch.nn.functional.ctc_loss": fixed(
        ("mean", F.ctc_loss, [f32(12, 3, 5).log_softmax(-1), torch.tensor([[1, 2, 2, 3], [4, 1, 0, 0], [2, 2, 2, 0]]),
                              torch.tensor([12, 9, 10]), torch.tensor([4, 2, 3])], TRANSCENDENTAL),
        ("none infinite", lambda lp, t, il, tl: F.ctc_loss(lp, t, il, tl, reduction="none"),
         [f32(6, 2, 4).log_softmax(-1), torch.tensor([[1, 1, 1, 1], [2, 3, 0, 0]]), torch.tensor([6, 4]),
          torch.tensor([4, 2])], TRANSCENDENTAL),
        ("sum zero_infinity", lambda lp, t, il, tl: F.ctc_loss(lp, t, il, tl, reduction="sum", zero_infinity=True),
         [f32(6, 2, 4).log_softmax(-1), torch.tensor([[1, 1, 1, 1], [2, 3, 0, 0]]), torch.tensor([6, 4]),
          torch.tensor([4, 2])], TRANSCENDENTAL),
        ("concatenated int lists blank 4 f64", lambda lp, t: F.ctc_loss(lp, t, (7, 5), (3, 2), blank=4),
         [dt(torch.float64, 7, 2, 5).log_softmax(-1), torch.tensor([0, 1, 1, 3, 2])], TRANSCENDENTAL),
        # (An input length of 0 makes torch 1.13 read the row before its
        # alphas: undefined; we give 0 for an empty target, inf otherwise.)
        ("empty targets", lambda lp, t, il, tl: F.ctc_loss(lp, t, il, tl, reduction="none"),
         [f32(4, 3, 3).log_softmax(-1), torch.tensor([[1, 2], [0, 0], [2, 2]]), torch.tensor([4, 2, 3]),
          torch.tensor([2, 0, 0])], TRANSCENDENTAL),
        ("unbatched", F.ctc_loss, [f32(5, 4).log_softmax(-1), torch.tensor([1, 3]), torch.tensor(5), torch.tensor(2)],
         TRANSCENDENTAL),
        ("int32 lengths", F.ctc_loss, [f32(5, 2, 4).log_softmax(-1), torch.tensor([[1, 3], [2, 2]], dtype=torch.int32),
                                       torch.tensor([5, 4], dtype=torch.int32), torch.tensor([2, 2], dtype=torch.int32)],
         TRANSCENDENTAL),
        ("input length above T rejected", F.ctc_loss, [f32(5, 2, 4).log_softmax(-1), torch.tensor([[1, 3], [2, 2]]),
                                                       torch.tensor([6, 4]), torch.tensor([2, 2])]),
        ("target length above S rejected", F.ctc_loss, [f32(5, 2, 4).log_softmax(-1), torch.tensor([[1, 3], [2, 2]]),
                                                        torch.tensor([5, 4]), torch.tensor([3, 2])]),
        ("blank out of range rejected", lambda lp, t, il, tl: F.ctc_loss(lp, t, il, tl, blank=4),
         [f32(5, 2, 4).log_softmax(-1), torch.tensor([[1, 3], [2, 2]]), torch.tensor([5, 4]), torch.tensor([2, 2])])),
    "torch.nn.functional.local_response_norm": fixed(
        ("3-d", lambda x: F.local_response_norm(x, 2), [f32(2, 6, 3)], TRANSCENDENTAL),
        ("4-d args", lambda x: F.local_response_norm(x, 3, alpha=0.01, beta=0.5, k=2.0), [f32(1, 5, 3, 2)], TRANSCENDENTAL),
        ("5-d size 4", lambda x: F.local_response_norm(x, 4), [f32(1, 4, 2, 2, 3)], TRANSCENDENTAL),
        ("int64", lambda x: F.local_response_norm(x, 2, alpha=0.3), [dt(torch.int64, 1, 6, 3)], TRANSCENDENTAL),
        ("f64", lambda x: F.local_response_norm(x, 5), [dt(torch.float64, 2, 3, 4)]),
        ("module", torch.nn.LocalResponseNorm(3), [f32(2, 4, 5)], TRANSCENDENTAL),
        ("2-d rejected", lambda x: F.local_response_norm(x, 2), [f32(3, 4)])),
    "torch.nn.functional.cross_entropy": fixed(
        ("mean", F.cross_entropy, [f32(4, 5), torch.tensor([0, 4, 2, 2])], ACCUMULATE),
        ("weight smoothing", lambda x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.1),
         [f32(4, 5), torch.tensor([0, 4, 2, 1]), torch.rand(5)], ACCUMULATE),
        ("smoothing none", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.2, reduction="none"),
         [f32(3, 4), torch.tensor([3, 0, 1])], TRANSCENDENTAL),
        ("ignore sum", lambda x, t: F.cross_entropy(x, t, ignore_index=1, reduction="sum"),
         [f32(3, 4), torch.tensor([3, 1, 1])], ACCUMULATE),
        ("spatial", F.cross_entropy, [f32(2, 3, 4), torch.tensor([[0, 1, 2, 2], [1, 0, 0, 2]])], ACCUMULATE),
        ("probabilities", F.cross_entropy, [f32(3, 4), F.softmax(f32(3, 4), 1)], ACCUMULATE),
        ("probabilities smoothing", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.3, reduction="none"),
         [f32(3, 4), F.softmax(f32(3, 4), 1)], TRANSCENDENTAL),
        ("unbatched", F.cross_entropy, [f32(5), torch.tensor(1)], ACCUMULATE),
        ("f64 module", torch.nn.CrossEntropyLoss(label_smoothing=0.05), [dt(torch.float64, 3, 4), torch.tensor([1, 2, 3])])),
    "torch.linalg.vector_norm": fixed(
        ("2", lambda x: torch.linalg.vector_norm(x), [f32(3, 4)], ACCUMULATE),
        ("dims keepdim", lambda x: torch.linalg.vector_norm(x, 1, (0, 2), keepdim=True), [f32(2, 3, 4)], ACCUMULATE),
        ("inf", lambda x: torch.linalg.vector_norm(x, float("inf"), -1), [f32(3, 4)]),
        ("-inf", lambda x: torch.linalg.vector_norm(x, float("-inf"), 0), [dt(torch.float64, 3, 4)]),
        ("0", lambda x: torch.linalg.vector_norm(x * (x > 0), 0, 1), [f32(3, 4)]),
        ("3 dtype", lambda x: torch.linalg.vector_norm(x, 3, dtype=torch.float64), [f32(5)]),
        ("int rejected", lambda x: torch.linalg.vector_norm(x), [dt(torch.int32, 3)])),
    "torch.norm": fixed(
        ("fro", lambda x: torch.norm(x), [f32(3, 4)], ACCUMULATE),
        ("p dim", lambda x: x.norm(1, dim=1), [f32(3, 4)], ACCUMULATE),
        ("p keepdim", lambda x: torch.norm(x, 2.5, -1, keepdim=True), [dt(torch.float64, 2, 3)]),
        ("fro dims", lambda x: torch.norm(x, "fro", (0, 1)), [f32(2, 3, 2)], ACCUMULATE),
        *[(f"nuc {d}", lambda x: torch.norm(x, "nuc"), [dt(d, 5, 4)], ACCUMULATE, d) for d in (torch.float32, torch.float64)],
        ("nuc dims keepdim", lambda x: torch.norm(x, "nuc", [2, 0], keepdim=True), [f32(3, 2, 4)], ACCUMULATE),
        ("nuc 3-d without dim", lambda x: torch.norm(x, "nuc"), [f32(2, 3, 3)])),
    "torch.linalg.norm": fixed(
        ("default", lambda x: torch.linalg.norm(x), [f32(2, 3, 4)], ACCUMULATE),
        ("vector ord", lambda x: torch.linalg.norm(x, 1), [f32(5)], ACCUMULATE),
        ("matrix fro", lambda x: torch.linalg.norm(x, "fro"), [f32(3, 4)], ACCUMULATE),
        ("matrix inf", lambda x: torch.linalg.norm(x, float("inf")), [f32(3, 4)], ACCUMULATE),
        ("matrix 1 dims", lambda x: torch.linalg.norm(x, 1, (0, 2)), [f32(3, 2, 4)], ACCUMULATE),
        ("vector dim", lambda x: torch.linalg.norm(x, 3, 1, True), [f32(3, 4)], ACCUMULATE),
        ("nuc", lambda x: torch.linalg.norm(x, "nuc"), [f32(3, 4)], ACCUMULATE),
        ("nuc dims", lambda x: torch.linalg.norm(x, "nuc", (0, 2)), [f32(3, 2, 4)], ACCUMULATE),
        ("matrix -2", lambda x: torch.linalg.norm(x, -2), [f32(4, 3)], ACCUMULATE),
        ("matrix 2 dims", lambda x: torch.linalg.norm(x, 2, (2, 0), True), [f32(4, 2, 3)], ACCUMULATE)),
    "torch.linalg.matrix_norm": fixed(
        ("fro", lambda x: torch.linalg.matrix_norm(x), [f32(2, 3, 4)], ACCUMULATE),
        ("-1", lambda x: torch.linalg.matrix_norm(x, -1), [f32(3, 4)], ACCUMULATE),
        ("-inf keepdim", lambda x: torch.linalg.matrix_norm(x, float("-inf"), keepdim=True), [dt(torch.float64, 2, 3, 3)]),
        ("nuc keepdim", lambda x: torch.linalg.matrix_norm(x, "nuc", keepdim=True), [f32(2, 3, 4)], ACCUMULATE),
        ("nuc dtype", lambda x: torch.linalg.matrix_norm(x, "nuc", dtype=torch.float64), [f32(2, 4, 3)], ACCUMULATE),
        *[(f"{p} {d}", lambda x, p=p: torch.linalg.matrix_norm(x, p, dim=(2, 0)), [dt(d, 3, 2, 4)], ACCUMULATE, d)
          for p in (2, -2) for d in (torch.float32, torch.float64)],
        ("2 keepdim", lambda x: torch.linalg.matrix_norm(x, 2, keepdim=True), [f32(2, 3, 3)], ACCUMULATE)),
    "torch.nn.functional.cosine_similarity": fixed(
        ("dim 1", lambda a, b: F.cosine_similarity(a, b), [f32(3, 4), f32(3, 4)], TRANSCENDENTAL),
        # Each norm clamped below at eps (torch 1.13; fuzz replay against torch).
        ("eps 0.5", lambda a, b: F.cosine_similarity(a, b, eps=0.5), [f32(3, 4) * 0.1, f32(3, 4)], TRANSCENDENTAL),
        ("negative eps", lambda a, b: F.cosine_similarity(a, b, eps=-2.0), [f32(3, 4) * 0.1, f32(3, 4)], TRANSCENDENTAL),
        ("0-d f64 with bf16", lambda a, b: F.cosine_similarity(a, b, dim=-2),
         [dt(torch.float64), dt(torch.bfloat16, 1, 4)], TRANSCENDENTAL, torch.bfloat16),
        ("broadcast last", lambda a, b: F.cosine_similarity(a, b, dim=-1), [f32(2, 1, 4), f32(3, 4)], TRANSCENDENTAL),
        # (A dim broadcast along the reduced dim counts in both norms.)
        ("broadcast reduced", lambda a, b: F.cosine_similarity(a, b, dim=1), [f32(4, 1, 3), f32(4, 5, 3)],
         TRANSCENDENTAL),
        ("zeros eps", lambda a, b: torch.cosine_similarity(a * 0, b, 0), [f32(4), f32(4)]),
        ("module", torch.nn.CosineSimilarity(dim=0), [f32(4, 2), f32(4, 2)], TRANSCENDENTAL)),
    "torch.nn.functional.pairwise_distance": fixed(
        ("2", lambda a, b: F.pairwise_distance(a, b), [f32(3, 4), f32(3, 4)], TRANSCENDENTAL),
        ("1 keepdim", lambda a, b: F.pairwise_distance(a, b, 1.0, keepdim=True), [f32(3, 4), f32(4)], TRANSCENDENTAL),
        ("inf", lambda a, b: F.pairwise_distance(a, b, float("inf")), [dt(torch.float64, 2, 5), dt(torch.float64, 2, 5)]),
        ("module", torch.nn.PairwiseDistance(p=3.0), [f32(2, 3), f32(2, 3)], TRANSCENDENTAL),
        # (x1 - x2 + eps: integers give float32; a bool cannot be subtracted.)
        ("int64", lambda a, b: F.pairwise_distance(a, b), [dt(torch.int64, 3, 4), dt(torch.int64, 3, 4)],
         TRANSCENDENTAL),
        ("uint8 0-d f64", lambda a, b: F.pairwise_distance(a, b), [dt(torch.uint8, 3, 4), dt(torch.float64)],
         TRANSCENDENTAL),
        ("bool rejected", lambda a, b: F.pairwise_distance(a, b), [dt(torch.bool, 3), dt(torch.int64, 3)])),
    "torch.pdist": fixed(
        *[(f"p {p}", lambda x, p=p: torch.pdist(x, p), [f32(5, 3)], TRANSCENDENTAL) for p in (2.0, 1.0, 0.0, 3.0, float("inf"))],
        ("f64", lambda x: torch.pdist(x), [dt(torch.float64, 4, 6)]),
        ("one row", lambda x: torch.pdist(x), [f32(1, 5)]),
        ("int64 rejected", lambda x: torch.pdist(x), [dt(torch.int64, 3, 2)]),
        ("1-d rejected", lambda x: torch.pdist(x), [f32(4)])),
    "torch.cdist": fixed(
        *[(f"p {p}", lambda a, b, p=p: torch.cdist(a, b, p), [f32(4, 3), f32(5, 3)], TRANSCENDENTAL)
          for p in (2.0, 1.0, 0.0, 0.5, float("inf"))],
        ("batch broadcast", lambda a, b: torch.cdist(a, b), [f32(2, 1, 3, 4), f32(5, 2, 4)], TRANSCENDENTAL),
        ("mm", lambda a, b: torch.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), [f32(3, 4), f32(6, 4)],
         TRANSCENDENTAL),
        ("mm when large", lambda a, b: torch.cdist(a, b), [dt(torch.float64, 30, 3), dt(torch.float64, 4, 3)]),
        ("no mm", lambda a, b: torch.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"),
         [f32(30, 2), f32(3, 2)], TRANSCENDENTAL),
        ("columns rejected", lambda a, b: torch.cdist(a, b), [f32(3, 4), f32(3, 5)]),
        ("int64 rejected", lambda a, b: torch.cdist(a, b), [dt(torch.int64, 3, 4), dt(torch.int64, 3, 4)])),
    "torch.scatter_reduce": fixed(*[
        (f"{r} {'self' if inc else 'no self'}",
         lambda x, i, s, r=r, inc=inc: torch.scatter_reduce(x, 0, i, s, r, include_self=inc),
         [f32(3, 2), torch.tensor([[0, 1], [0, 0], [2, 0]]), f32(3, 2)], ACCUMULATE)
        for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)],
        ("int mean", lambda x, i, s: x.scatter_reduce(1, i, s, "mean"),
         [dt(torch.int64, 2, 3), torch.tensor([[0, 0], [2, 1]]), dt(torch.int64, 2, 2)]),
        ("in place", lambda x, i, s: x.clone().scatter_reduce_(0, i, s, "amax", include_self=False),
         [f32(4), torch.tensor([1, 1, 3]), f32(3)])),
    "torch.index_add": fixed(
        ("rows", lambda x, i, s: torch.index_add(x, 0, i, s), [f32(4, 3), torch.tensor([0, 2, 0]), f32(3, 3)]),
        ("alpha dim 1", lambda x, i, s: x.index_add(1, i, s, alpha=2), [dt(torch.int32, 2, 3), torch.tensor([2]), dt(torch.int32, 2, 1)]),
        ("in place", lambda x, i, s: x.clone().index_add_(0, i, s), [f32(3), torch.tensor([1, 1]), f32(2)]),
        ("0-d input", lambda x, i, s: torch.index_add(x, 0, i, s, alpha=3), [f32(), torch.tensor([0]), f32()]),
        ("0-d input out of range", lambda x, i, s: torch.index_add(x, 0, i, s), [f32(), torch.tensor([1]), f32()])),
    "torch.index_copy": fixed(
        ("rows", lambda x, i, s: torch.index_copy(x, 0, i, s), [f32(4, 3), torch.tensor([3, 1]), f32(2, 3)]),
        ("dim -1", lambda x, i, s: x.index_copy(-1, i, s), [dt(torch.int64, 2, 3), torch.tensor([0]), dt(torch.int64, 2, 1)]),
        ("0-d input", lambda x, i, s: torch.index_copy(x, 0, i, s), [f32(), torch.tensor(0), f32()])),
    "torch.index_fill": fixed(
        ("0-d input", lambda x, i: torch.index_fill(x, 0, i, 2.5), [f32(), torch.tensor([0])]),
        ("0-d input dim -1", lambda x, i: torch.index_fill(x, -1, i, 3), [dt(torch.int64, ), torch.tensor(0)]),
        ("0-d input dim 1", lambda x, i: torch.index_fill(x, 1, i, 3), [f32(), torch.tensor([0])]),
        ("number", lambda x, i: torch.index_fill(x, 1, i, -1.5), [f32(2, 4), torch.tensor([0, 3])]),
        ("0-d tensor", lambda x, i, v: x.index_fill(0, i, v), [dt(torch.int32, 3, 2), torch.tensor([2]), torch.tensor(7)]),
        ("in place", lambda x, i: x.clone().index_fill_(0, i, 0), [f32(3), torch.tensor([1])]),
        # (torch refuses these, so the op library must too)
        ("int32 index", lambda x, i: torch.index_fill(x, 0, i, 1), [f32(3, 2), torch.tensor([1], dtype=torch.int32)]),
        ("2-d index", lambda x, i: torch.index_fill(x, 0, i, 1), [f32(3, 2), torch.tensor([[1]])]),
        ("1-d value", lambda x, i, v: x.index_fill(0, i, v), [f32(3, 2), torch.tensor([1]), torch.tensor([7.0])])),
    "torch.unbind": fixed(
        ("dim 0", lambda x: torch.unbind(x)[1], [f32(3, 2)]),
        ("dim -1 all", lambda x: torch.stack(x.unbind(-1), 0), [dt(torch.int32, 2, 3)]),
        ("0-d rejected", lambda x: torch.unbind(x), [f32()])),
    "torch.diagonal": fixed(
        ("main", lambda x: torch.diagonal(x), [f32(3, 4)]),
        ("offset", lambda x: x.diagonal(1), [f32(3, 4)]),
        ("negative offset dims", lambda x: torch.diagonal(x, -1, 2, 0), [dt(torch.int64, 3, 2, 4)]),
        ("empty", lambda x: torch.diagonal(x, 5), [f32(3, 4)])),
    "torch.diag": fixed(
        ("matrix", lambda x: torch.diag(x), [f32(3, 4)]),
        ("matrix offset", lambda x: torch.diag(x, -1), [f32(3, 4)]),
        ("vector", lambda x: torch.diag(x), [dt(torch.int32, 3)]),
        ("vector offset", lambda x: x.diag(2), [f32(2)]),
        ("3-d rejected", lambda x: torch.diag(x), [f32(2, 2, 2)])),
    "torch.trace": fixed(
        ("float", torch.trace, [f32(3, 4)], ACCUMULATE),
        ("int", lambda x: x.trace(), [dt(torch.int16, 3, 3)])),
    "torch.nn.functional.pixel_shuffle": fixed(
        ("2", lambda x: F.pixel_shuffle(x, 2), [f32(1, 8, 2, 3)]),
        ("batch dims", lambda x: torch.pixel_shuffle(x, 3), [dt(torch.int32, 2, 1, 9, 1, 2)]),
        ("module", torch.nn.PixelShuffle(2), [f32(4, 3, 2)]),
        ("bad channels", lambda x: F.pixel_shuffle(x, 2), [f32(1, 6, 2, 2)])),
    "torch.nn.functional.pixel_unshuffle": fixed(
        ("2", lambda x: F.pixel_unshuffle(x, 2), [f32(1, 2, 4, 6)]),
        ("module", torch.nn.PixelUnshuffle(3), [f32(1, 3, 3)])),
    "torch.nn.functional.channel_shuffle": fixed(
        ("groups", lambda x: F.channel_shuffle(x, 2), [f32(1, 6, 2, 2)]),
        ("module", torch.nn.ChannelShuffle(3), [f32(2, 6, 4)])),
    "torch.ops.aten.repeat_interleave.Tensor": fixed(
        ("int64", lambda r: torch.ops.aten.repeat_interleave.Tensor(r), [torch.tensor([0, 1, 2, 3])]),
        ("int32 output_size", lambda r: torch.ops.aten.repeat_interleave.Tensor(r, output_size=4), [torch.tensor([3, 0, 1], dtype=torch.int32)]),
        ("empty", lambda r: torch.ops.aten.repeat_interleave.Tensor(r), [torch.tensor([], dtype=torch.int64)]),
        ("float", lambda r: torch.ops.aten.repeat_interleave.Tensor(r), [f32(2)])),
    "torch.repeat_interleave": fixed(
        ("int flat", lambda x: torch.repeat_interleave(x, 2), [f32(2, 3)]),
        ("int dim", lambda x: x.repeat_interleave(3, dim=1), [dt(torch.int64, 2, 2)]),
        ("tensor counts", lambda x, r: torch.repeat_interleave(x, r, dim=0), [f32(3, 2), torch.tensor([1, 0, 2])])),
    "torch.take_along_dim": fixed(
        ("argsort", lambda x: torch.take_along_dim(x, x.argsort(1), 1), [f32(3, 4)]),
        ("broadcast", lambda x, i: torch.take_along_dim(x, i, dim=0), [f32(3, 4), torch.tensor([[2], [0]])]),
        ("flat", lambda x, i: x.take_along_dim(i), [f32(2, 3), torch.tensor([5, 0, -1])]),
        ("int32 indices rejected", lambda x, i: torch.take_along_dim(x, i),
         [dt(torch.int64, 2, 1, 4), torch.tensor(6, dtype=torch.int32)])),
    "torch.hstack": fixed(
        ("1-d", lambda a, b: torch.hstack([a, b]), [f32(2), f32(3)]),
        ("2-d", lambda a, b: torch.hstack((a, b)), [f32(2, 1), dt(torch.float64, 2, 3)])),
    "torch.vstack": fixed(
        ("1-d", lambda a, b: torch.vstack([a, b]), [f32(3), f32(3)]),
        ("2-d", lambda a, b: torch.vstack([a, b]), [dt(torch.int32, 1, 2), dt(torch.int32, 3, 2)])),
    "torch.dstack": fixed(("mixed", lambda a, b: torch.dstack([a, b]), [f32(2), f32(1, 2)])),
    "torch.column_stack": fixed(("mixed", lambda a, b: torch.column_stack([a, b]), [f32(3), f32(3, 2)])),
    "torch.meshgrid": fixed(
        ("ij", lambda a, b: torch.stack(torch.meshgrid(a, b, indexing="ij")), [f32(3), f32(2)]),
        ("xy", lambda a, b, c: torch.meshgrid(a, b, c, indexing="xy")[2], [f32(3), f32(2), f32(4)])),
    "torch.nn.functional.dropout1d": fixed(("eval", lambda x: F.dropout1d(x, 0.3, training=False), [f32(2, 3, 4)])),
    "torch.nn.functional.dropout2d": fixed(
        ("eval", lambda x: F.dropout2d(x, 0.3, training=False), [f32(2, 3, 4, 4)]),
        ("module", torch.nn.Dropout2d().eval(), [f32(1, 2, 3, 3)])),
    "torch.nn.functional.dropout3d": fixed(("eval", lambda x: F.dropout3d(x, training=False), [f32(1, 2, 2, 2, 2)])),
    "torch.nn.functional.alpha_dropout": fixed(("eval", lambda x: F.alpha_dropout(x, 0.2), [f32(3, 4)])),
    "torch.nn.functional.feature_alpha_dropout": fixed(("eval", lambda x: F.feature_alpha_dropout(x, 0.2), [f32(3, 4, 2)])),
    "torch.lerp": fixed(
        ("scalar weight", lambda a, b: torch.lerp(a, b, 0.3), [f32(2, 3), f32(2, 3)]),
        ("weight 0.7", lambda a, b: a.lerp(b, 0.7), [f32(3), f32(3)]),
        ("tensor weight", lambda a, b, w: torch.lerp(a, b, w), [f32(2, 3), f32(3), f32(2, 1)]),
        ("f64", lambda a, b: torch.lerp(a, b, 1.0), [dt(torch.float64, 4), dt(torch.float64, 4)]),
        ("bf16", lambda a, b: torch.lerp(a, b, 0.5), [dt(torch.bfloat16, 4), dt(torch.bfloat16, 4)], EXACT),
        ("int rejected", lambda a, b: torch.lerp(a, b, 0.5), [dt(torch.int32, 3), dt(torch.int32, 3)]),
        ("mixed rejected", lambda a, b: torch.lerp(a, b, 0.5), [f32(3), dt(torch.float64, 3)]),
        ("in place", lambda x, y: x.clone().lerp_(y, 0.25), [f32(3), f32(3)])),
    "torch.addcmul": fixed(
        ("value", lambda x, a, b: torch.addcmul(x, a, b, value=0.5), [f32(2, 3), f32(3), f32(2, 1)]),
        ("default", lambda x, a, b: x.addcmul(a, b), [f32(3), f32(3), f32(3)]),
        ("int", lambda x, a, b: torch.addcmul(x, a, b, value=2), [dt(torch.int32, 3), dt(torch.int32, 3), dt(torch.int64, 3)]),
        ("promote", lambda x, a, b: torch.addcmul(x, a, b), [dt(torch.int64, 3), f32(3), dt(torch.float64, 3)]),
        ("in place", lambda x, y: x.clone().addcmul_(y, y, value=2), [f32(3), f32(3)])),
    "torch.addcdiv": fixed(
        ("value", lambda x, a, b: torch.addcdiv(x, a, b, value=-2), [f32(2, 3), f32(3), positive((2, 1), torch.float32)]),
        ("default", lambda x, a, b: x.addcdiv(a, b), [dt(torch.float64, 3), dt(torch.float64, 3), positive((3,), torch.float64)]),
        ("int rejected", lambda x, a, b: torch.addcdiv(x, a, b), [dt(torch.int32, 3), dt(torch.int32, 3), dt(torch.int32, 3)])),
    "torch.xlogy": chain(
        binary(torch.xlogy, pairs=[(d, d) for d in (torch.float32, torch.float64)] + [(torch.int64, torch.float32)],
               scalars=(2, 0.5), tol=TRANSCENDENTAL, rhs_domain=lambda shape, d: positive(shape, d)),
        fixed(("zero x", lambda x, y: torch.xlogy(x * 0, y), [f32(3), f32(3)]))),
    "torch.hypot": binary(torch.hypot, pairs=[(torch.float32, torch.float32), (torch.float64, torch.float64),
                                              (torch.float32, torch.float64)], scalars=(), tol=TRANSCENDENTAL),
    "torch.logaddexp": binary(torch.logaddexp, pairs=[(torch.float32, torch.float32), (torch.float64, torch.float64)],
                              scalars=(), tol=TRANSCENDENTAL),
    "torch.logaddexp2": binary(torch.logaddexp2, pairs=[(torch.float32, torch.float32), (torch.float64, torch.float64)],
                               scalars=(), tol=TRANSCENDENTAL),
    "torch.copysign": binary(torch.copysign, pairs=[(torch.float32, torch.float32), (torch.float64, torch.float32),
                                                    (torch.int32, torch.float32), (torch.int64, torch.int64)],
                             scalars=(-1, 2.5), scalar_first=False),
    "torch.float_power": fixed(
        ("tensors", lambda x, y: torch.float_power(x, y), [positive((3,), torch.float32), f32(3)]),
        ("int scalar", lambda x: torch.float_power(x, 2), [dt(torch.int32, 4)]),
        ("scalar base", lambda x: torch.float_power(2, x), [f32(4)])),
    "torch.rsub": fixed(
        ("tensors", lambda x, y: torch.rsub(x, y), [f32(2, 3), f32(3)]),
        ("alpha", lambda x, y: torch.rsub(x, y, alpha=2), [dt(torch.int32, 3), dt(torch.int32, 3)]),
        ("scalar", lambda x: torch.rsub(x, 1.5), [f32(3)])),
    "torch.nan_to_num": fixed(
        ("defaults", lambda x: torch.nan_to_num(x), [tensor((8,), torch.float32, special=True)]),
        ("values", lambda x: x.nan_to_num(nan=1.0, posinf=2.0, neginf=-3.0), [tensor((8,), torch.float64, special=True)]),
        ("f16", lambda x: torch.nan_to_num(x), [tensor((8,), torch.float16, special=True)]),
        ("int", lambda x: torch.nan_to_num(x), [dt(torch.int32, 3)])),
    "torch.logit": fixed(
        ("plain", lambda x: torch.logit(x), [positive((4,), torch.float32) / 10], TRANSCENDENTAL),
        ("eps", lambda x: torch.logit(x, eps=0.1), [f32(5)], TRANSCENDENTAL),
        # Integers compute in float32: 1 - x must not wrap in uint8.
        ("uint8", torch.logit, [torch.tensor([0, 1, 2, 254, 255], dtype=torch.uint8)], TRANSCENDENTAL),
        ("int64 eps", lambda x: torch.logit(x, eps=0.25), [torch.tensor([-3, 0, 1, 2])], TRANSCENDENTAL),
        # eps > 0.5: x < eps gives eps, else 1 - eps (not clamp's order).
        ("eps above half", lambda x: torch.logit(x, eps=0.75),
         [torch.tensor([5.0, -3.0, 0.5, 0.75, 0.25, float("nan")], dtype=torch.float64)],
         TRANSCENDENTAL)),
    "torch.sinc": unary(torch.sinc, dtypes=[torch.float32, torch.float64, torch.int32], tol=TRANSCENDENTAL),
    "torch.angle": chain(unary(torch.angle),
                         points(torch.angle, [1.0, -1.0, 0.0, -0.0, math.nan, -math.inf, math.inf, -1e-30])),
    "torch.positive": chain(unary(torch.positive),
                            fixed(("method", lambda x: x.positive() * 2, [f32(3)]))),
    "torch.deg2rad": unary(torch.deg2rad, dtypes=[torch.float32, torch.float64], tol=TRANSCENDENTAL),
    "torch.rad2deg": unary(torch.rad2deg, dtypes=[torch.float32, torch.float64], tol=TRANSCENDENTAL),
    "torch.heaviside": fixed(
        ("values", lambda x, v: torch.heaviside(x * (x > 0), v), [f32(2, 3), f32(3)]),
        ("int", lambda x, v: torch.heaviside(x, v), [dt(torch.int64, 4), dt(torch.int64, 1)]),
        ("mixed rejected", lambda x, v: torch.heaviside(x, v), [f32(3), dt(torch.float64, 3)])),
    "torch.isposinf": unary(torch.isposinf, dtypes=[torch.float32, torch.float64, torch.int32]),
    "torch.isneginf": unary(torch.isneginf, dtypes=[torch.float32, torch.float16, torch.int64]),
    **{f"torch.atleast_{n}d": fixed(
        *[(f"{len(shape)}-D", getattr(torch, f"atleast_{n}d"), [f32(*shape)])
          for shape in ((), (3,), (2, 3), (2, 3, 4), (1, 2, 1, 2))],
        ("bool 0-d", getattr(torch, f"atleast_{n}d"), [torch.tensor(True)]))
       for n in (1, 2, 3)},
    "torch.ldexp": chain(
        binary(torch.ldexp, scalars=()),
        fixed(("float16 overflow of 2^16", torch.ldexp,
               [torch.tensor([1.0, 0.5], dtype=torch.float16),
                torch.tensor([16.0, 15.0], dtype=torch.float16)]),
              ("0-d float32 exponent keeps float16", torch.ldexp,
               [torch.tensor([1.5, -3.0], dtype=torch.float16), torch.tensor(3.0)]),
              ("fractional and negative exponents", torch.ldexp,
               [torch.tensor([1.0, 3.0, -2.0]), torch.tensor([0.5, -3.0, -150.0])]))),
    "torch.signbit": chain(unary(torch.signbit), fixed(
        ("-0.0 and -nan", torch.signbit,
         [torch.tensor([-0.0, 0.0, float("nan"), -float("nan"), -float("inf"), 1e-30, -1e-30])]),
        ("-0.0 float16", torch.signbit, [torch.tensor([-0.0, 0.0, -1.0], dtype=torch.float16)]),
        ("int8 extremes", torch.signbit, [torch.tensor([-128, -1, 0, 127], dtype=torch.int8)]),
        # The NaN of a degenerate std: negative from x86's 0 / 0, but
        # positive in bfloat16, whose conversion writes every NaN as 0x7FC0
        # (fuzz-diff finding std-bf16-nan-sign).
        *[(f"NaN of std {d}", lambda x: torch.signbit(torch.std(x)), [dt(d)]) for d in FLOAT_DTYPES])),
    "torch.clamp_min": fixed(
        ("scalar", lambda x: torch.clamp_min(x, 0.5), [f32(2, 3)]),
        ("tensor", lambda x, m: x.clamp_min(m), [dt(torch.int32, 2, 3), dt(torch.int32, 3)]),
        ("in place", lambda x: x.clone().clamp_min_(-1), [f32(3)])),
    "torch.clamp_max": fixed(
        ("scalar", lambda x: torch.clamp_max(x, 0.5), [f32(2, 3)]),
        ("tensor", lambda x, m: x.clamp_max(m), [dt(torch.int64, 2, 3), dt(torch.int64, 2, 1)]),
        ("in place", lambda x: x.clone().clamp_max_(1), [dt(torch.int16, 4)])),
    "torch.numel": fixed(
        ("in arithmetic", lambda x: x * x.numel(), [f32(2, 3)]),
        ("function", lambda x: x + torch.numel(x), [dt(torch.int32, 4)])),
    "Tensor.view_as": fixed(
        ("view", lambda x, y: x.view_as(y), [f32(2, 6), f32(3, 4)]),
        ("bad", lambda x, y: x.view_as(y), [f32(2, 3), f32(4)])),
    "Tensor.reshape_as": fixed(("reshape", lambda x, y: x.t().reshape_as(y), [dt(torch.int64, 2, 3), f32(6)])),
    # resize_ keeps the first elements (row-major) of a contiguous tensor;
    # growing would leave torch's new elements uninitialized (refused).
    "Tensor.resize_": fixed(
        *[(f"{d} shrink", lambda x: (x * 1).resize_(2, 3) + 0, [dt(d, 4, 5)]) for d in ALL_DTYPES],
        ("same count", lambda x: x.clone().resize_(20, 1), [f32(4, 5)]),
        ("to empty", lambda x: x.clone().resize_(0, 3), [f32(2, 2)]),
        ("0-d", lambda x: x.clone().resize_(()), [f32(3)]),
        ("then used", lambda x: torch.relu(x.clone().resize_(3)) * 2, [f32(2, 2)])),
    "torch.resize_as_": fixed(
        ("shrink", lambda x, t: torch.resize_as_(x.clone(), t) - 1, [f32(3, 4), f32(2, 5)]),
        ("method", lambda x, t: x.clone().resize_as_(t), [dt(torch.int64, 6), f32(2, 3)])),
    "Tensor.expand_as": fixed(
        ("expand", lambda x, y: x.expand_as(y), [f32(3, 1), f32(2, 3, 4)]),
        ("bad", lambda x, y: x.expand_as(y), [f32(3, 2), f32(2, 3, 4)])),
    "Tensor.where": fixed(
        ("method", lambda x, c, y: x.where(c, y), [f32(2, 3), dt(torch.bool, 2, 3), f32(3)]),
        ("scalar", lambda x, c: x.where(c, 0.5), [dt(torch.float64, 3), dt(torch.bool, 3)])),
    "_inplace_more": fixed(
        ("+=", lambda x, y: _iop(x, y, "add"), [f32(2, 3), dt(torch.int32, 3)]),
        ("-=", lambda x, y: _iop(x, y, "sub"), [dt(torch.int64, 3), dt(torch.int64, 3)]),
        ("*=", lambda x, y: _iop(x, y, "mul"), [f32(3), f32(3)]),
        ("/=", lambda x, y: _iop(x, y, "div"), [f32(3), positive((3,), torch.float32)]),
        ("zero_", lambda x: x.clone().zero_() + x, [f32(3)]),
        ("fill_", lambda x: x.clone().fill_(2) * x, [dt(torch.int32, 3)])),
    "torch.atan2": binary(torch.atan2, tol=TRANSCENDENTAL, scalars=()),
    # Integer-preserving math.
    "torch.sign": unary(torch.sign),
    "torch.floor": unary(torch.floor),
    "torch.ceil": unary(torch.ceil),
    "torch.trunc": unary(torch.trunc),
    "torch.round": chain(unary(torch.round),
                         fixed(("halves", torch.round, [torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5])]),
                               ("decimals", lambda x: torch.round(x, decimals=2), [f32(4)]),
                               ("negative decimals", lambda x: torch.round(x, decimals=-1), [f32(4) * 100]))),
    "torch.frac": unary(torch.frac),
    "torch.square": unary(torch.square),
    "torch.isnan": unary(torch.isnan),
    "torch.isinf": unary(torch.isinf),
    "torch.isfinite": unary(torch.isfinite),
    # Comparisons.
    **{f"torch.{n}": binary(getattr(torch, n) if n != "eq" else (lambda x, y: x == y))
       for n in ["eq", "ne", "lt", "le", "gt", "ge"]},
    "torch.logical_and": binary(torch.logical_and, scalars=()),
    "torch.logical_or": binary(torch.logical_or, scalars=()),
    "torch.logical_xor": binary(torch.logical_xor, scalars=()),
    "torch.logical_not": unary(torch.logical_not),
    "torch.bitwise_and": binary(lambda x, y: x & y, scalars=(3, True)),
    "torch.bitwise_or": binary(lambda x, y: x | y, scalars=(3, True)),
    "torch.bitwise_xor": binary(lambda x, y: x ^ y, scalars=(3, True)),
    # Shift counts are non-negative and below the width (else C's behaviour
    # is undefined, and torch's with it).
    # Amounts outside [0, width) shift by the amount modulo 32 (64 for
    # int64), in int for the narrower types: torch 1.13 on x86.
    **{f"torch.bitwise_{side}_shift": chain(
        binary(fn, scalars=(2, 33), scalar_first=False, pairs=[(d, d) for d in INT_DTYPES],
               rhs_domain=lambda s, d: tensor(s, d, low=0, high=7)),
        fixed(*[(f"{d} out of range", fn,
                 [tensor((12,), d, low=-100, high=100),
                  torch.tensor([-31, -1, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 65, 100])[:12].to(d)])
                for d in INT_DTYPES]))
       for side, fn in (("left", lambda x, y: x << y), ("right", lambda x, y: x >> y))},
    "torch.bitwise_not": unary(lambda x: ~x),
    "torch.maximum": chain(binary(torch.maximum, scalars=()), _signed_zero_ties(torch.maximum)),
    "torch.minimum": chain(binary(torch.minimum, scalars=()), _signed_zero_ties(torch.minimum)),
    "torch.fmax": chain(binary(torch.fmax, scalars=()), _signed_zero_ties(torch.fmax)),
    "torch.fmin": chain(binary(torch.fmin, scalars=()), _signed_zero_ties(torch.fmin)),
    "torch.where": fixed(*[(f"{a},{b}", torch.where, [dt(torch.bool, 2, 3), dt(a, 2, 3), dt(b, 3)])
                           for a, b in PAIRS],
                         ("scalar other", lambda c, x: torch.where(c, x, 2.5), [dt(torch.bool, 3), dt(torch.int32, 3)]),
                         ("scalars", lambda c: torch.where(c, 1, 0), [dt(torch.bool, 2, 2)]),
                         ("0-d", torch.where, [dt(torch.bool), f32(), dt(torch.float64, 2)])),
    "Tensor.masked_fill": fixed(*[(f"{d} {v!r}", lambda x, m, v=v: x.masked_fill(m, v), [dt(d, 2, 3), dt(torch.bool, 3)])
                                  for d in ALL_DTYPES for v in (0, 2.5, True)],
                                ("0-d value", lambda x, m, v: x.masked_fill(m, v), [f32(2, 3), dt(torch.bool, 2, 1), f32()]),
                                ("int value tensor", lambda x, m, v: torch.masked_fill(x, m, v), [dt(torch.int32, 4), dt(torch.bool, 4), f32() * 3])),

    # Contractions.
    "torch.nn.functional.conv1d": chain(fixed(
        ("basic", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), [f32(2, 4, 9), f32(6, 4, 3), f32(6)], ACCUMULATE),
        ("groups", lambda x, w: F.conv1d(x, w, groups=2, dilation=2), [f32(1, 4, 9), f32(6, 2, 3)], ACCUMULATE),
        ("f64", lambda x, w: F.conv1d(x, w), [dt(torch.float64, 1, 2, 5), dt(torch.float64, 3, 2, 2)], ACCUMULATE),
        ("same odd", lambda x, w: F.conv1d(x, w, padding="same", dilation=3), [f32(2, 2, 9), f32(3, 2, 2)], ACCUMULATE),
        ("same even", lambda x, w: F.conv1d(x, w, padding="same"), [f32(1, 2, 7), f32(3, 2, 5)], ACCUMULATE),
        ("valid", lambda x, w: F.conv1d(x, w, padding="valid", groups=2), [f32(1, 4, 7), f32(2, 2, 3)], ACCUMULATE),
        ("aten conv1d.padding", lambda x, w: torch.ops.aten.conv1d.padding(x, w, None, [1], "same"), [f32(1, 2, 6), f32(3, 2, 4)], ACCUMULATE)),
        conv_dtypes(F.conv1d, 1)),
    "torch.nn.functional.conv2d": chain(fixed(
        ("basic", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1), [f32(2, 3, 7, 7), f32(4, 3, 3, 3), f32(4)], ACCUMULATE),
        ("depthwise", lambda x, w: F.conv2d(x, w, groups=4, padding=(1, 2)), [f32(1, 4, 6, 5), f32(4, 1, 3, 3)], ACCUMULATE),
        ("dilated", lambda x, w: F.conv2d(x, w, dilation=2), [f32(1, 2, 7, 7), f32(3, 2, 3, 3)], ACCUMULATE),
        ("f64", lambda x, w: F.conv2d(x, w), [dt(torch.float64, 1, 2, 5, 5), dt(torch.float64, 3, 2, 2, 2)], ACCUMULATE),
        ("aten conv2d", lambda x, w: torch.ops.aten.conv2d.default(x, w, None, [2, 1], [1, 0]), [f32(1, 2, 5, 5), f32(3, 2, 3, 3)], ACCUMULATE),
        ("same", lambda x, w, b: F.conv2d(x, w, b, padding="same", dilation=(1, 2)), [f32(1, 2, 7, 6), f32(3, 2, 4, 3), f32(3)], ACCUMULATE),
        ("same groups", lambda x, w: F.conv2d(x, w, padding="same", groups=2), [f32(2, 4, 5, 5), f32(4, 2, 2, 2)], ACCUMULATE),
        ("valid", lambda x, w: F.conv2d(x, w, padding="valid"), [f32(1, 2, 6, 5), f32(3, 2, 3, 2)], ACCUMULATE),
        ("unbatched", lambda x, w: F.conv2d(x, w, padding=1), [f32(2, 5, 5), f32(3, 2, 3, 3)], ACCUMULATE),
        ("aten conv2d.padding", lambda x, w: torch.ops.aten.conv2d.padding(x, w, None, [1], "valid", [2, 1]), [f32(1, 2, 6, 5), f32(3, 2, 2, 2)], ACCUMULATE)),
        conv_dtypes(F.conv2d, 2)),
    "torch.nn.functional.conv3d": chain(fixed(
        ("basic", lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1), [f32(2, 4, 5, 6, 5), f32(6, 4, 3, 2, 3), f32(6)], ACCUMULATE),
        ("groups dilated", lambda x, w: F.conv3d(x, w, groups=2, dilation=(2, 1, 2)), [f32(1, 4, 6, 5, 6), f32(6, 2, 2, 3, 2)], ACCUMULATE),
        ("depthwise", lambda x, w: F.conv3d(x, w, groups=3, padding=(0, 1, 2)), [f32(1, 3, 4, 4, 4), f32(3, 1, 2, 3, 3)], ACCUMULATE),
        ("unbatched", lambda x, w: F.conv3d(x, w, stride=2), [f32(2, 5, 5, 5), f32(3, 2, 3, 3, 3)], ACCUMULATE),
        ("same", lambda x, w: F.conv3d(x, w, padding="same", dilation=(1, 2, 1)), [f32(1, 2, 5, 6, 4), f32(3, 2, 2, 3, 4)], ACCUMULATE),
        ("valid", lambda x, w: F.conv3d(x, w, padding="valid"), [f32(1, 2, 4, 4, 4), f32(3, 2, 2, 2, 2)], ACCUMULATE),
        ("f64", lambda x, w, b: F.conv3d(x, w, b, padding=(1, 0, 1)), [dt(torch.float64, 1, 2, 4, 5, 3), dt(torch.float64, 3, 2, 2, 2, 2), dt(torch.float64, 3)], ACCUMULATE),
        ("aten conv3d", lambda x, w: torch.ops.aten.conv3d.default(x, w, None, [2, 1, 1], [1, 0, 0]), [f32(1, 2, 5, 5, 5), f32(3, 2, 3, 3, 3)], ACCUMULATE),
        ("aten conv3d.padding", lambda x, w: torch.ops.aten.conv3d.padding(x, w, None, [1], "same"), [f32(1, 2, 4, 5, 4), f32(3, 2, 2, 2, 3)], ACCUMULATE)),
        conv_dtypes(F.conv3d, 3)),
    "torch.nn.functional.conv_transpose1d": chain(fixed(
        ("basic", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1), [f32(2, 4, 5), f32(4, 3, 3), f32(3)], ACCUMULATE),
        ("groups dilated", lambda x, w: F.conv_transpose1d(x, w, stride=3, groups=2, dilation=2, output_padding=1), [f32(1, 4, 6), f32(4, 2, 3)], ACCUMULATE),
        ("big padding", lambda x, w: F.conv_transpose1d(x, w, padding=4), [f32(1, 1, 9), f32(1, 2, 3)], ACCUMULATE),
        ("unbatched", lambda x, w: F.conv_transpose1d(x, w, stride=2), [f32(2, 5), f32(2, 3, 2)], ACCUMULATE),
        ("f64", lambda x, w: F.conv_transpose1d(x, w, stride=2), [dt(torch.float64, 1, 2, 5), dt(torch.float64, 2, 3, 3)], ACCUMULATE),
        ("aten", lambda x, w: torch.ops.aten.conv_transpose1d(x, w, None, [2], [0], [1]), [f32(1, 2, 5), f32(2, 3, 3)], ACCUMULATE)),
        conv_dtypes(F.conv_transpose1d, 1, transposed=True)),
    "torch.nn.functional.conv_transpose2d": chain(fixed(
        ("basic", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1), [f32(2, 3, 4, 5), f32(3, 4, 3, 3), f32(4)], ACCUMULATE),
        ("groups", lambda x, w: F.conv_transpose2d(x, w, stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2, dilation=(1, 2)), [f32(1, 4, 5, 4), f32(4, 3, 3, 2)], ACCUMULATE),
        ("depthwise", lambda x, w: F.conv_transpose2d(x, w, groups=3, padding=1), [f32(1, 3, 4, 4), f32(3, 1, 3, 3)], ACCUMULATE),
        ("output_padding from dilation", lambda x, w: F.conv_transpose2d(x, w, output_padding=1, dilation=2), [f32(1, 2, 3, 3), f32(2, 2, 2, 2)], ACCUMULATE),
        ("unbatched", lambda x, w: F.conv_transpose2d(x, w, stride=2), [f32(2, 3, 3), f32(2, 2, 2, 2)], ACCUMULATE),
        ("f64", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=(1, 2)), [dt(torch.float64, 1, 2, 4, 4), dt(torch.float64, 2, 3, 2, 3), dt(torch.float64, 3)], ACCUMULATE),
        ("aten .input", lambda x, w: torch.ops.aten.conv_transpose2d.input(x, w, None, [2, 2], [1, 0], [1, 0]), [f32(1, 2, 4, 5), f32(2, 3, 3, 3)], ACCUMULATE)),
        conv_dtypes(F.conv_transpose2d, 2, transposed=True)),
    "torch.nn.functional.conv_transpose3d": chain(fixed(
        ("basic", lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1), [f32(1, 2, 3, 4, 3), f32(2, 3, 3, 3, 2), f32(3)], ACCUMULATE),
        ("groups", lambda x, w: F.conv_transpose3d(x, w, stride=(1, 2, 1), groups=2, output_padding=(0, 1, 0)), [f32(2, 4, 3, 4, 3), f32(4, 1, 2, 3, 2)], ACCUMULATE),
        ("dilated", lambda x, w: F.conv_transpose3d(x, w, dilation=(2, 1, 1), padding=(2, 0, 1)), [f32(1, 2, 3, 3, 3), f32(2, 2, 2, 2, 3)], ACCUMULATE),
        ("f64", lambda x, w: F.conv_transpose3d(x, w, stride=2), [dt(torch.float64, 1, 2, 2, 3, 2), dt(torch.float64, 2, 2, 2, 2, 2)], ACCUMULATE),
        ("aten .input", lambda x, w: torch.ops.aten.conv_transpose3d.input(x, w, None, [2], [0], [1]), [f32(1, 2, 3, 3, 3), f32(2, 3, 2, 2, 2)], ACCUMULATE)),
        conv_dtypes(F.conv_transpose3d, 3, transposed=True)),
    "torch.convolution": chain(fixed(
        ("conv1d", lambda x, w, b: torch.convolution(x, w, b, [2], [1], [1], False, [0], 1), [f32(2, 4, 9), f32(6, 4, 3), f32(6)], ACCUMULATE),
        ("conv2d groups", lambda x, w: torch.convolution(x, w, None, [1, 2], [1], [2, 1], False, [0], 2), [f32(1, 4, 7, 7), f32(6, 2, 3, 3)], ACCUMULATE),
        ("conv3d", lambda x, w: torch.convolution(x, w, None, [1], [0, 1, 0], [1], False, [0, 0, 0], 1), [f32(1, 2, 4, 4, 4), f32(3, 2, 2, 2, 2)], ACCUMULATE),
        ("output_padding ignored", lambda x, w: torch.convolution(x, w, None, [1], [0], [1], False, [3], 1), [f32(1, 2, 5), f32(3, 2, 2)], ACCUMULATE),
        ("transposed", lambda x, w, b: torch.convolution(x, w, b, [2], [1], [1], True, [1], 1), [f32(1, 2, 5, 4), f32(2, 3, 3, 3), f32(3)], ACCUMULATE),
        ("transposed groups 3-d", lambda x, w: torch.convolution(x, w, None, [2, 1, 1], [0], [1], True, [1, 0, 0], 2), [f32(1, 4, 2, 3, 3), f32(4, 2, 2, 2, 2)], ACCUMULATE),
        # A padding beyond the dilated kernel crops the output (1 element).
        ("negative padding", lambda x, w: torch.ops.aten.convolution(x, w, None, [1], [3], [1], True, [0], 1), [f32(1, 1, 5), f32(1, 1, 3)], ACCUMULATE),
        ("negative padding 2-d", lambda x, w: torch.ops.aten.convolution.default(x, w, None, [2, 1], [3, 2], [1, 2], True, [1, 0], 1), [f32(1, 2, 5, 4), f32(2, 1, 3, 2)], ACCUMULATE),
        ("f64", lambda x, w: torch.convolution(x, w, None, [1], [1], [1], True, [0], 1), [dt(torch.float64, 1, 2, 4), dt(torch.float64, 2, 2, 3)], ACCUMULATE),
        ("_convolution", lambda x, w, b: torch.ops.aten._convolution.default(x, w, b, [2], [1], [1], False, [0], 1, False, False, True, True), [f32(1, 2, 5, 6), f32(3, 2, 3, 3), f32(3)], ACCUMULATE),
        ("_convolution transposed", lambda x, w: torch.ops.aten._convolution.deprecated(x, w, None, [2], [1], [1], True, [1], 1, False, False, True), [f32(1, 2, 5, 6), f32(2, 3, 3, 3)], ACCUMULATE),
        ("_convolution packet", lambda x, w: torch.ops.aten._convolution(x, w, None, [1], [0], [1], False, [0], 1, True, True, False, False), [f32(1, 2, 5), f32(3, 2, 2)], ACCUMULATE),
        ("_convolution packet deprecated", lambda x, w: torch.ops.aten._convolution(x, w, None, [1], [0], [1], True, [0], 1, False, True, True), [f32(1, 2, 5), f32(2, 3, 2)], ACCUMULATE)),
        conv_dtypes(lambda x, w: torch.convolution(x, w, None, [1], [0], [1], False, [0], 1), 2),
        conv_dtypes(lambda x, w: torch.convolution(x, w, None, [1], [0], [1], True, [0], 1), 2, transposed=True)),
    "torch.conv_tbc": chain(fixed(
        ("basic", lambda x, w, b: torch.conv_tbc(x, w, b), [f32(9, 4, 5), f32(3, 5, 6), f32(6)], ACCUMULATE),
        ("pad", lambda x, w, b: torch.conv_tbc(x, w, b, 2), [f32(7, 2, 3), f32(4, 3, 2), f32(2)], ACCUMULATE),
        ("negative pad", lambda x, w, b: torch.conv_tbc(x, w, b, -1), [f32(9, 2, 4), f32(3, 4, 5), f32(5)], ACCUMULATE),
        ("f64", lambda x, w, b: torch.ops.aten.conv_tbc(x, w, b, 1), [dt(torch.float64, 5, 2, 3), dt(torch.float64, 2, 3, 4), dt(torch.float64, 4)], ACCUMULATE)),
        lambda: (Sample(f"{d}", lambda x, w, b: torch.conv_tbc(x, w, b, 1), [dt(d, 5, 2, 3), dt(d, 2, 3, 4), dt(d, 4)], ACCUMULATE, dtype=d)
                 for d in ALL_DTYPES)),
    # Leaf modules (their forward is the functional above).
    "_conv modules": fixed(
        ("Conv1d same", Leaf(torch.nn.Conv1d(2, 4, 4, padding="same", dilation=2)), [f32(2, 2, 9)], ACCUMULATE),
        ("Conv2d same", Leaf(torch.nn.Conv2d(2, 4, (3, 4), padding="same")), [f32(1, 2, 6, 7)], ACCUMULATE),
        ("Conv2d valid", Leaf(torch.nn.Conv2d(2, 4, 3, padding="valid", groups=2)), [f32(1, 2, 6, 7)], ACCUMULATE),
        ("Conv3d", Leaf(torch.nn.Conv3d(2, 4, 3, stride=2, padding=1)), [f32(1, 2, 5, 6, 7)], ACCUMULATE),
        ("Conv3d same", Leaf(torch.nn.Conv3d(4, 4, 2, padding="same", groups=2, bias=False)), [f32(1, 4, 3, 4, 5)], ACCUMULATE),
        ("ConvTranspose1d", Leaf(torch.nn.ConvTranspose1d(4, 2, 3, stride=2, padding=1, output_padding=1)), [f32(2, 4, 5)], ACCUMULATE),
        ("ConvTranspose2d", Leaf(torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)), [f32(1, 4, 5, 6)], ACCUMULATE),
        ("ConvTranspose2d dilated", Leaf(torch.nn.ConvTranspose2d(2, 3, (2, 3), stride=(1, 2), dilation=(2, 1), bias=False)), [f32(1, 2, 4, 4)], ACCUMULATE),
        ("ConvTranspose3d", Leaf(torch.nn.ConvTranspose3d(2, 3, 2, stride=2)), [f32(1, 2, 2, 3, 2)], ACCUMULATE),
        ("ConvTranspose2d output_size", ConvTransposeTo(torch.nn.ConvTranspose2d(2, 3, 3, stride=2), [1, 3, 12, 11]), [f32(1, 2, 5, 5)], ACCUMULATE),
        ("ConvTranspose1d output_size", ConvTransposeTo(torch.nn.ConvTranspose1d(2, 3, 3, stride=3, padding=1), [14]), [f32(1, 2, 5)], ACCUMULATE),
        ("f64", Leaf(torch.nn.Conv3d(2, 3, 2).double()), [dt(torch.float64, 1, 2, 3, 3, 3)], ACCUMULATE),
        ("padding_mode reflect", Leaf(torch.nn.Conv2d(2, 3, 3, padding=2, padding_mode="reflect")), [f32(1, 2, 5, 6)], ACCUMULATE),
        ("padding_mode replicate", Leaf(torch.nn.Conv1d(2, 3, 3, padding=1, stride=2, padding_mode="replicate")), [f32(2, 2, 7)], ACCUMULATE),
        ("padding_mode circular same", Leaf(torch.nn.Conv3d(2, 2, 2, padding="same", padding_mode="circular")), [f32(1, 2, 3, 4, 5)], ACCUMULATE),
        ("padding_mode circular groups", Leaf(torch.nn.Conv2d(2, 4, (3, 2), padding=(1, 3), dilation=(1, 2), groups=2, padding_mode="circular")), [f32(1, 2, 4, 5)], ACCUMULATE)),
    "torch.nn.functional.linear": fixed(
        ("2-d", lambda x, w, b: F.linear(x, w, b), [f32(4, 5), f32(3, 5), f32(3)], ACCUMULATE),
        ("3-d", lambda x, w: F.linear(x, w), [f32(2, 4, 5), f32(3, 5)], ACCUMULATE),
        ("1-d", lambda x, w, b: F.linear(x, w, b), [f32(5), f32(3, 5), f32(3)], ACCUMULATE),
        ("1-d weight", lambda x, w: F.linear(x, w), [f32(2, 5), f32(5)], ACCUMULATE),
        ("1-d both", lambda x, w, b: torch.ops.aten.linear(x, w, b), [f32(5), f32(5), f32()], ACCUMULATE),
        ("f64", lambda x, w: F.linear(x, w), [dt(torch.float64, 2, 5), dt(torch.float64, 3, 5)], ACCUMULATE),
        # A bias broadcasts into the whole output: [rows, 1] is a value a row.
        ("column bias", lambda x, w, b: F.linear(x, w, b), [f32(4, 5), f32(3, 5), f32(4, 1)], ACCUMULATE),
        ("column bias int64", lambda x, w, b: F.linear(x, w, b),
         [dt(torch.int64, 3, 1), dt(torch.int64, 3, 1), dt(torch.int64, 3, 1)]),
        # Integers multiply too (wrapping); bool and float16 do not.
        *[(f"{d}", lambda x, w, b: F.linear(x, w, b), [dt(d, 4, 5), dt(d, 3, 5), dt(d, 3)], ACCUMULATE, d)
          for d in ALL_DTYPES if d not in (torch.float32, torch.float64)]),
    "torch.matmul": fixed(
        ("2-d", torch.matmul, [f32(4, 5), f32(5, 3)], ACCUMULATE),
        ("batched broadcast", torch.matmul, [f32(2, 1, 4, 5), f32(3, 5, 2)], ACCUMULATE),
        ("vector-matrix", torch.matmul, [f32(5), f32(5, 3)], ACCUMULATE),
        ("matrix-vector", torch.matmul, [f32(4, 5), f32(5)], ACCUMULATE),
        ("dot", torch.matmul, [f32(5), f32(5)], ACCUMULATE),
        ("int64", torch.matmul, [dt(torch.int64, 3, 4), dt(torch.int64, 4, 2)]),
        ("f64", torch.matmul, [dt(torch.float64, 3, 4), dt(torch.float64, 4, 2)], ACCUMULATE),
        ("empty k", torch.matmul, [f32(3, 0), f32(0, 2)], ACCUMULATE)),
    "torch.bmm": fixed(("f32", torch.bmm, [f32(2, 3, 4), f32(2, 4, 5)], ACCUMULATE),
                       ("int32", torch.bmm, [dt(torch.int32, 2, 3, 4), dt(torch.int32, 2, 4, 5)])),
    "torch.mm": fixed(("f32", torch.mm, [f32(3, 4), f32(4, 5)], ACCUMULATE),
                      ("f64", torch.mm, [dt(torch.float64, 3, 4), dt(torch.float64, 4, 5)], ACCUMULATE)),
    "torch.baddbmm": fixed(
        ("default", torch.baddbmm, [f32(2, 3, 5), f32(2, 3, 4), f32(2, 4, 5)], ACCUMULATE),
        ("beta alpha", lambda a, b, c: torch.baddbmm(a, b, c, beta=0.5, alpha=2), [f32(1, 3, 5), f32(2, 3, 4), f32(2, 4, 5)], ACCUMULATE),
        # Integers: alpha and beta are converted toward zero (beta 0.5 is 0).
        *[(f"{d}", lambda a, b, c: torch.baddbmm(a, b, c, beta=0.5, alpha=2.5),
           [dt(d, 1, 3, 5), dt(d, 2, 3, 4), dt(d, 2, 4, 5)], ACCUMULATE, d)
          for d in ALL_DTYPES],
        *[(f"{d} negative alpha", lambda a, b, c: torch.baddbmm(a, b, c, beta=1.5, alpha=-1.7),
           [dt(d, 1, 3, 5), dt(d, 2, 3, 4), dt(d, 2, 4, 5)], ACCUMULATE)
          for d in INT_DTYPES]),
    "torch.einsum": fixed(
        ("matmul", lambda a, b: torch.einsum("ij,jk->ik", a, b), [f32(2, 3), f32(3, 4)], ACCUMULATE),
        ("implicit", lambda a, b: torch.einsum("ij,jk", a, b), [f32(2, 3), f32(3, 4)], ACCUMULATE),
        ("attention", lambda q, k: torch.einsum("bhid,bhjd->bhij", q, k), [f32(1, 2, 3, 4), f32(1, 2, 5, 4)], ACCUMULATE),
        ("ellipsis", lambda a, b: torch.einsum("...ij,...jk->...ik", a, b), [f32(5, 2, 3), f32(3, 4)], ACCUMULATE),
        ("trace", lambda a: torch.einsum("ii", a), [f32(3, 3)], ACCUMULATE),
        ("diagonal", lambda a: torch.einsum("ii->i", a), [f32(3, 3)]),
        ("outer", lambda a, b: torch.einsum("i,j->ij", a, b), [f32(1), f32(3)]),
        ("transpose", lambda a: torch.einsum("ijk->kji", a), [dt(torch.int32, 2, 3, 4)]),
        ("sum", lambda a: torch.einsum("ij->j", a), [f32(1, 3)], ACCUMULATE),
        ("int dot", lambda a, b: torch.einsum("i,i->", a, b), [dt(torch.int64, 4), dt(torch.int64, 4)]),
        ("list operands", lambda a, b: torch.einsum("ab,bc->ac", [a, b]), [dt(torch.float64, 2, 2), dt(torch.float64, 2, 2)], ACCUMULATE),
        ("spaces", lambda a, b: torch.einsum("b i d, b j d -> b i j", a, b), [f32(2, 3, 4), f32(2, 5, 4)], ACCUMULATE)),
    "torch.addmm": fixed(
        ("default", torch.addmm, [f32(2, 4), f32(2, 3), f32(3, 4)], ACCUMULATE),
        ("broadcast beta alpha", lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=-2), [f32(4), f32(2, 3), f32(3, 4)], ACCUMULATE),
        ("int64", torch.addmm, [dt(torch.int64, 2, 2), dt(torch.int64, 2, 3), dt(torch.int64, 3, 2)]),
        *[(f"{d} fractional beta alpha", lambda i, a, b: torch.addmm(i, a, b, beta=1.7, alpha=-2.5),
           [dt(d, 4), dt(d, 2, 3), dt(d, 3, 4)], ACCUMULATE) for d in INT_DTYPES],
        ("f64", torch.addmm, [dt(torch.float64, 1, 2), dt(torch.float64, 3, 4), dt(torch.float64, 4, 2)], ACCUMULATE)),
    "torch.addmv": fixed(
        ("default", torch.addmv, [f32(3), f32(3, 4), f32(4)], ACCUMULATE),
        ("0-d input, beta alpha", lambda i, m, v: torch.addmv(i, m, v, beta=0.5, alpha=-2),
         [f32(), f32(3, 4), f32(4)], ACCUMULATE),
        ("1-element input", torch.addmv, [f32(1), f32(2, 5), f32(5)], ACCUMULATE),
        ("beta 0 ignores NaN", lambda i, m, v: torch.addmv(i, m, v, beta=0),
         [torch.full((3,), float("nan")), f32(3, 4), f32(4)], ACCUMULATE),
        ("f64 input of another dtype", torch.addmv,
         [dt(torch.int32, 3), dt(torch.float64, 3, 2), dt(torch.float64, 2)], ACCUMULATE),
        *[(f"{d} fractional beta alpha", lambda i, m, v: torch.addmv(i, m, v, beta=1.7, alpha=-2.5),
           [dt(d, 3), dt(d, 3, 4), dt(d, 4)]) for d in INT_DTYPES],
        ("empty product", torch.addmv, [f32(3), f32(3, 0), f32(0)]),
        ("mixed mat and vec", torch.addmv, [f32(3), f32(3, 4), dt(torch.float64, 4)]),
        ("2-D input", torch.addmv, [f32(3, 3), f32(3, 4), f32(4)]),
        ("size mismatch", torch.addmv, [f32(3), f32(3, 4), f32(5)])),
    "torch.mv": fixed(("f32", torch.mv, [f32(3, 4), f32(4)], ACCUMULATE),
                      ("int32", torch.mv, [dt(torch.int32, 2, 3), dt(torch.int32, 3)])),
    "torch.dot": fixed(("f32", torch.dot, [f32(5), f32(5)], ACCUMULATE),
                       ("int64", torch.dot, [dt(torch.int64, 4), dt(torch.int64, 4)]),
                       ("empty", torch.dot, [f32(0), f32(0)])),
    "torch.outer": fixed(("f32", torch.outer, [f32(3), f32(4)]),
                         ("int16", torch.outer, [dt(torch.int16, 2), dt(torch.int16, 3)])),
    # Products that are formulas of other products.
    "Tensor.__rmatmul__": fixed(
        # (The dtypes torch refuses are matmul's refusals: a rebuilt call of
        # x.__rmatmul__(y) is y @ x.)
        *[(f"{d}", lambda x, y: x.__rmatmul__(y), [dt(d, 4), dt(d, 3, 4)], ACCUMULATE)
          for d in ALL_DTYPES if d not in (torch.bool, torch.float16)],
        ("vectors", lambda x, y: x.__rmatmul__(y), [f32(5), f32(5)], ACCUMULATE),
        ("batched", lambda x, y: x.__rmatmul__(y), [f32(2, 4, 3), f32(2, 5, 4)], ACCUMULATE)),
    "torch.addr": fixed(
        *[(f"{d}", torch.addr, [dt(d, 3, 4), dt(d, 3), dt(d, 4)], ACCUMULATE) for d in ALL_DTYPES],
        ("beta alpha", lambda i, a, b: torch.addr(i, a, b, beta=0.5, alpha=-2.0), [f32(3, 4), f32(3), f32(4)]),
        ("beta 0 ignores nan", lambda i, a, b: torch.addr(i, a, b, beta=0), [torch.full((2, 3), math.nan), f32(2), f32(3)]),
        ("int beta alpha", lambda i, a, b: torch.addr(i, a, b, beta=2, alpha=3), [dt(torch.int64, 3, 4), dt(torch.int64, 3), dt(torch.int64, 4)]),
        ("bool alpha false", lambda i, a, b: torch.addr(i, a, b, alpha=False), [dt(torch.bool, 3, 4), dt(torch.bool, 3), dt(torch.bool, 4)]),
        ("broadcast input", torch.addr, [f32(4), f32(3), f32(4)]),
        ("0-d input", torch.addr, [f32(), f32(3), f32(4)]),
        ("mixed dtypes", torch.addr, [f32(3, 4), dt(torch.int64, 3), dt(torch.float64, 4)]),
        ("empty", torch.addr, [f32(0, 4), f32(0), f32(4)]),
        # (torch refuses these, so the op library must too)
        ("2-d vec1", torch.addr, [f32(3, 4), f32(3, 1), f32(4)]),
        ("float beta on ints", lambda i, a, b: torch.addr(i, a, b, beta=0.5), [dt(torch.int64, 3, 4), dt(torch.int64, 3), dt(torch.int64, 4)]),
        ("input does not broadcast", torch.addr, [f32(2, 4), f32(3), f32(4)])),
    "torch.inner": fixed(
        *[(f"{d}", torch.inner, [dt(d, 2, 3), dt(d, 4, 3)], ACCUMULATE) for d in ALL_DTYPES],
        ("vectors", torch.inner, [f32(5), f32(5)], ACCUMULATE),
        ("3-d and 1-d", torch.inner, [f32(2, 3, 4), f32(4)], ACCUMULATE),
        ("0-d", torch.inner, [f32(), dt(torch.float64, 3)]),
        ("int 0-d", torch.inner, [dt(torch.int64, 3), dt(torch.int32, )]),
        ("empty", torch.inner, [f32(2, 0), f32(3, 0)]),
        ("mismatch", torch.inner, [f32(3), f32(4)]),
        ("mixed dtypes", torch.inner, [f32(3), dt(torch.float64, 3)])),
    "torch.kron": fixed(
        *[(f"{d}", torch.kron, [dt(d, 2, 3), dt(d, 3, 2)]) for d in ALL_DTYPES],
        ("ranks differ", torch.kron, [f32(2, 3, 2), f32(3)]),
        ("0-d", torch.kron, [f32(), f32(2, 2)]),
        ("mixed dtypes", torch.kron, [dt(torch.int64, 2), f32(2, 3)]),
        ("empty", torch.kron, [f32(0, 2), f32(2)])),
    "torch.tensordot": fixed(
        *[(f"{d}", lambda a, b: torch.tensordot(a, b, dims=([1, 0], [0, 2])), [dt(d, 3, 2, 4), dt(d, 2, 5, 3)], ACCUMULATE)
          for d in ALL_DTYPES],
        ("int dims", lambda a, b: torch.tensordot(a, b, 2), [f32(2, 3, 4), f32(3, 4, 5)], ACCUMULATE),
        ("dims 0", lambda a, b: torch.tensordot(a, b, 0), [f32(2, 3), f32(4)]),
        ("single ints", lambda a, b: torch.tensordot(a, b, ([1], [0])), [f32(2, 3), f32(3, 2)], ACCUMULATE),
        ("negative dims", lambda a, b: torch.tensordot(a, b, ([-1], [-2])), [f32(2, 3), f32(3, 2)], ACCUMULATE),
        ("sizes differ", lambda a, b: torch.tensordot(a, b, 1), [f32(3), f32(4)]),
        ("negative count", lambda a, b: torch.tensordot(a, b, -1), [f32(3), f32(3)]),
        ("mixed dtypes", lambda a, b: torch.tensordot(a, b, 1), [f32(3), dt(torch.float64, 3)])),
    "torch.linalg.vecdot": fixed(
        *[(f"{d}", torch.linalg.vecdot, [dt(d, 2, 3), dt(d, 2, 3)], ACCUMULATE) for d in ALL_DTYPES],
        ("dim 0 broadcast", lambda x, y: torch.linalg.vecdot(x, y, dim=0), [f32(3, 1), f32(3, 4)], ACCUMULATE),
        ("empty", torch.linalg.vecdot, [f32(0), f32(0)]),
        ("float16 vectors", torch.linalg.vecdot, [dt(torch.float16, 3), dt(torch.float16, 3)]),
        ("mixed dtypes", torch.linalg.vecdot, [f32(3), dt(torch.float64, 3)])),
    "torch.linalg.multi_dot": fixed(
        # (bfloat16 rounds the intermediate product: too coarse to compare.)
        *[(f"{d}", lambda a, b, c: torch.linalg.multi_dot([a, b, c]), [dt(d, 3), dt(d, 3, 4), dt(d, 4, 2)], ACCUMULATE)
          for d in ALL_DTYPES if d != torch.bfloat16],
        ("two", lambda a, b: torch.linalg.multi_dot([a, b]), [f32(2, 3), f32(3, 4)], ACCUMULATE),
        ("vectors", lambda a, b: torch.linalg.multi_dot([a, b]), [f32(3), f32(3)], ACCUMULATE),
        ("right first", lambda a, b, c: torch.linalg.multi_dot([a, b, c]), [f32(10, 2), f32(2, 10), f32(10, 1)], ACCUMULATE),
        ("four", lambda a, b, c, e: torch.linalg.multi_dot((a, b, c, e)), [f32(2, 3), f32(3, 4), f32(4, 2), f32(2)], ACCUMULATE),
        ("empty", lambda a, b: torch.linalg.multi_dot([a, b]), [f32(2, 0), f32(0, 2)]),
        ("one", lambda a: torch.linalg.multi_dot([a]), [f32(2, 2)]),
        ("3-d", lambda a, b: torch.linalg.multi_dot([a, b]), [f32(2, 2), f32(2, 2, 2)]),
        ("mixed dtypes", lambda a, b: torch.linalg.multi_dot([a, b]), [f32(2, 2), dt(torch.float64, 2, 2)])),
    "torch.linalg.matrix_power": fixed(
        *[(f"{d} n={n}", lambda a, n=n: torch.linalg.matrix_power(a, n), [dt(d, 3, 3)], ACCUMULATE)
          for d in ALL_DTYPES for n in (0, 1, 2)],
        *[(f"n={n}", lambda a, n=n: torch.linalg.matrix_power(a, n), [f32(2, 3, 3) / 2], ACCUMULATE) for n in (3, 4, 7)],
        ("int n=5", lambda a: torch.linalg.matrix_power(a, 5), [dt(torch.int64, 2, 2)]),
        ("n=-1", lambda a: torch.linalg.matrix_power(a, -1), [torch.tensor([[2.0, 1.0], [1.0, 3.0]])], ACCUMULATE),
        ("n=-3 f64", lambda a: torch.matrix_power(a, -3), [torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64)], ACCUMULATE),
        ("method", lambda a: a.matrix_power(2), [f32(4, 4)], ACCUMULATE),
        ("not square", lambda a: torch.linalg.matrix_power(a, 2), [f32(3, 2)]),
        ("vector", lambda a: torch.linalg.matrix_power(a, 2), [f32(3)]),
        ("int n=-1", lambda a: torch.linalg.matrix_power(a, -1), [dt(torch.int64, 2, 2)])),
    "torch.dist": fixed(
        *[(f"{d}", torch.dist, [dt(d, 3, 4), dt(d, 3, 4)], ACCUMULATE) for d in ALL_DTYPES],
        *[(f"p={p}", lambda a, b, p=p: torch.dist(a, b, p), [f32(2, 3), f32(3)], ACCUMULATE)
          for p in (0, 1, 3, 0.5, math.inf, -math.inf)],
        ("mixed dtypes", torch.dist, [f32(3), dt(torch.float64, 3)], ACCUMULATE),
        ("int and float", torch.dist, [dt(torch.int64, 3), f32(3)], ACCUMULATE),
        ("empty", torch.dist, [f32(0), f32(0)])),
    "torch.nn.functional.multi_head_attention_forward": fixed(
        ("self attention", lambda q, w, b, ow, ob: F.multi_head_attention_forward(
            q, q, q, 8, 2, w, b, None, None, False, 0.0, ow, ob, training=False, need_weights=False)[0],
         [f32(3, 2, 8), f32(24, 8) / 3, f32(24), f32(8, 8) / 3, f32(8)], ACCUMULATE),
        ("causal float mask", lambda q, w, b, ow, ob: F.multi_head_attention_forward(
            q, q, q, 8, 2, w, b, None, None, False, 0.0, ow, ob, training=False, need_weights=False,
            attn_mask=torch.triu(torch.full((3, 3), float("-inf")), 1))[0],
         [f32(3, 2, 8), f32(24, 8) / 3, f32(24), f32(8, 8) / 3, f32(8)], ACCUMULATE),
        ("bool masks", lambda q, w, b, ow, ob, pad: F.multi_head_attention_forward(
            q, q, q, 8, 2, w, b, None, None, False, 0.0, ow, ob, training=False, need_weights=True,
            attn_mask=torch.tensor([[False, True, False], [False, False, True], [False, False, False]]),
            key_padding_mask=pad)[0],
         [f32(3, 2, 8), f32(24, 8) / 3, f32(24), f32(8, 8) / 3, f32(8), torch.tensor([[False, False, True], [False, False, False]])],
         ACCUMULATE),
        ("3-d mask", lambda q, k, w, b, ow, ob, m: F.multi_head_attention_forward(
            q, k, k, 8, 2, w, b, None, None, False, 0.0, ow, ob, training=False, need_weights=False,
            attn_mask=m)[0],
         [f32(3, 2, 8), f32(4, 2, 8), f32(24, 8) / 3, f32(24), f32(8, 8) / 3, f32(8), f32(4, 3, 4)], ACCUMULATE),
        # bias_k/bias_v rows and a zero row appended to the keys and values;
        # the masks get a column of "attend" for each.
        *[(f"bias_kv={kv} zero_attn={za} weights={wt}",
           lambda q, k, w, b, ow, ob, bk, bv, pad, kv=kv, za=za, wt=wt:
           F.multi_head_attention_forward(
               q, k, k, 8, 2, w, b, bk if kv else None, bv if kv else None, za, 0.0, ow, ob,
               training=False, need_weights=wt is not None,
               average_attn_weights=wt == "average",
               attn_mask=torch.triu(torch.full((3, 4), float("-inf")), 2),
               key_padding_mask=pad)[1 if wt else 0],
           [f32(3, 2, 8), f32(4, 2, 8), f32(24, 8) / 3, f32(24), f32(8, 8) / 3, f32(8),
            f32(1, 1, 8), f32(1, 1, 8), torch.tensor([[False, False, False, True], [False] * 4])],
           ACCUMULATE)
          for kv, za, wt in ((True, False, None), (False, True, None), (True, True, None),
                             (True, True, "average"), (True, False, "per head"),
                             (False, False, "average"))],
        ("unbatched bias_kv weights", lambda q, w, b, ow, ob, bk, bv: F.multi_head_attention_forward(
            q, q, q, 8, 2, w, b, bk, bv, True, 0.0, ow, ob, training=False,
            need_weights=True, average_attn_weights=False)[1],
         [f32(3, 8), f32(24, 8) / 3, f32(24), f32(8, 8) / 3, f32(8), f32(1, 1, 8), f32(1, 1, 8)],
         ACCUMULATE)),

    # Normalization.
    "torch.hsplit": fixed(
        *[(f"{d}", lambda x: torch.hsplit(x, 2)[1], [dt(d, 3, 4)]) for d in ALL_DTYPES],
        ("vector", lambda x: torch.hsplit(x, 3)[2], [f32(6)]),
        ("indices", lambda x: x.hsplit([1, 3])[1], [f32(2, 5, 2)]),
        ("not divisible", lambda x: torch.hsplit(x, 3)[0], [f32(2, 4)]),
        ("zero sections", lambda x: torch.hsplit(x, 0)[0], [f32(2, 4)]),
        ("0-d", lambda x: torch.hsplit(x, 1)[0], [f32()])),
    "torch.vsplit": fixed(
        *[(f"{d}", lambda x: torch.vsplit(x, 2)[0], [dt(d, 4, 3)]) for d in ALL_DTYPES],
        ("indices", lambda x: x.vsplit([1, 7])[2], [f32(5, 2)]),
        ("not divisible", lambda x: torch.vsplit(x, 2)[0], [f32(5, 2)]),
        ("vector", lambda x: torch.vsplit(x, 2)[0], [f32(4)])),
    "torch.dsplit": fixed(
        *[(f"{d}", lambda x: torch.dsplit(x, 2)[1], [dt(d, 2, 1, 4)]) for d in ALL_DTYPES],
        ("indices", lambda x: x.dsplit([2])[1], [f32(2, 1, 5)]),
        ("not divisible", lambda x: torch.dsplit(x, 2)[0], [f32(2, 2, 3)]),
        ("matrix", lambda x: torch.dsplit(x, 2)[0], [f32(4, 4)])),
    "torch.diagflat": fixed(
        *[(f"{d}", torch.diagflat, [dt(d, 2, 3)]) for d in ALL_DTYPES],
        ("offset", lambda x: torch.diagflat(x, 2), [f32(3)]),
        ("negative offset", lambda x: x.diagflat(-1), [f32(2, 2)]),
        ("0-d", torch.diagflat, [f32()]),
        ("empty", torch.diagflat, [f32(0)])),
    "torch.gradient": fixed(
        *[(f"{d}", lambda x: torch.gradient(x)[1], [dt(d, 3, 4)], ACCUMULATE) for d in ALL_DTYPES],
        ("spacing", lambda x: torch.gradient(x, spacing=2.0)[0], [f32(5)], ACCUMULATE),
        ("spacing per dim", lambda x: torch.gradient(x, spacing=[2.0, 0.5])[1], [f32(3, 4)], ACCUMULATE),
        ("dim", lambda x: torch.gradient(x, dim=1)[0], [dt(torch.int64, 3, 4)], ACCUMULATE),
        ("dims", lambda x: torch.gradient(x, dim=[1, 0], edge_order=2)[1], [f32(3, 4)], ACCUMULATE),
        ("edge order 2", lambda x: torch.gradient(x, spacing=3, edge_order=2)[0], [f32(6)], ACCUMULATE),
        ("too short", lambda x: torch.gradient(x, edge_order=2)[0], [f32(2, 4)]),
        ("edge order 3", lambda x: torch.gradient(x, edge_order=3)[0], [f32(5)])),
    "torch.block_diag": fixed(
        *[(f"{d}", torch.block_diag, [dt(d, 2, 3), dt(d, 1, 2)]) for d in ALL_DTYPES],
        ("vector and 0-d", torch.block_diag, [f32(2, 2), f32(3), f32()]),
        ("promotes", torch.block_diag, [dt(torch.int64, 2, 2), dt(torch.float64, 1)]),
        ("bool and uint8", torch.block_diag, [dt(torch.bool, 2), dt(torch.uint8, 1, 1)]),
        ("empty block", torch.block_diag, [f32(2, 0), f32(1, 2)]),
        ("3-d", torch.block_diag, [f32(2), f32(2, 2, 2)])),
    "torch.cartesian_prod": fixed(
        *[(f"{d}", torch.cartesian_prod, [dt(d, 3), dt(d, 2)]) for d in ALL_DTYPES],
        ("one", torch.cartesian_prod, [f32(3)]),
        ("three", torch.cartesian_prod, [f32(2), f32(3), f32(2)]),
        ("empty", torch.cartesian_prod, [f32(0), f32(2)]),
        ("dtypes differ", torch.cartesian_prod, [f32(2), dt(torch.float64, 2)]),
        ("matrix", torch.cartesian_prod, [f32(2, 2)])),
    "torch.combinations": fixed(
        *[(f"{d}", torch.combinations, [dt(d, 4)]) for d in ALL_DTYPES],
        ("r=3", lambda x: torch.combinations(x, 3), [f32(5)]),
        ("with replacement", lambda x: torch.combinations(x, 2, with_replacement=True), [f32(3)]),
        ("r=1", lambda x: torch.combinations(x, 1), [f32(3)]),
        ("r=0", lambda x: torch.combinations(x, 0), [f32(3)]),
        ("r past n", lambda x: torch.combinations(x, 4), [f32(3)]),
        ("matrix", torch.combinations, [f32(2, 2)])),
    "Tensor.sum_to_size": fixed(
        *[(f"{d}", lambda x: x.sum_to_size(3, 1), [dt(d, 2, 3, 4)], ACCUMULATE) for d in ALL_DTYPES],
        ("same size keeps dtype", lambda x: x.sum_to_size(3), [dt(torch.bool, 3)]),
        ("list", lambda x: x.sum_to_size([1, 4]), [f32(3, 4)], ACCUMULATE),
        ("to 0-d", lambda x: x.sum_to_size(()), [dt(torch.int32, 3)]),
        ("not expandable", lambda x: x.sum_to_size(2, 1), [f32(3, 4)])),
    "torch.fft.fftshift": fixed(
        *[(f"{d}", torch.fft.fftshift, [dt(d, 3, 4)]) for d in ALL_DTYPES],
        ("dims", lambda x: torch.fft.fftshift(x, dim=(0, -1)), [f32(5, 2, 3)]),
        ("one dim", lambda x: torch.fft.fftshift(x, 1), [f32(2, 7)]),
        ("0-d", torch.fft.fftshift, [f32()]),
        ("no dims", lambda x: torch.fft.fftshift(x, dim=()), [f32(3)])),
    "torch.fft.ifftshift": fixed(
        *[(f"{d}", torch.fft.ifftshift, [dt(d, 3, 5)]) for d in ALL_DTYPES],
        ("dims", lambda x: torch.fft.ifftshift(x, dim=[-2]), [f32(5, 2, 3)]),
        ("inverse of fftshift", lambda x: torch.fft.ifftshift(torch.fft.fftshift(x)), [f32(3, 5)])),
    **{f"torch.fft.{name}": fft_c2r(getattr(torch.fft, name)) for name in ("irfft", "hfft")},
    **{f"torch.fft.{name}": fft_c2r_nd(getattr(torch.fft, name), two=name.endswith("2"))
       for name in ("irfft2", "irfftn", "hfft2", "hfftn")},
    "torch.functional.stft": stft_samples(),
    "torch.istft": istft_samples(),
    "torch.igamma": incomplete_gamma(torch.igamma),
    "torch.igammac": incomplete_gamma(torch.igammac),
    "torch.nn.functional._scaled_dot_product_attention": fixed(
        *[(f"{d} 3-d {part}", lambda q, k, v, i=i: F._scaled_dot_product_attention(q, k, v)[i],
           [dt(d, 2, 4, 6), dt(d, 2, 3, 6), dt(d, 2, 3, 5)], ACCUMULATE)
          for d in (torch.float32, torch.float64, torch.bfloat16)
          for i, part in enumerate(("output", "weights"))],
        ("causal 4-d", lambda q, k, v: F._scaled_dot_product_attention(q, k, v, is_causal=True)[0],
         [f32(2, 2, 4, 6), f32(2, 2, 3, 6), f32(2, 2, 3, 6)], ACCUMULATE),
        ("causal weights", lambda q, k, v: F._scaled_dot_product_attention(
            q, k, v, None, 0.0, True, True)[1], [f64(5, 4, 6), f64(5, 3, 6), f64(5, 3, 6)], ACCUMULATE),
        ("bool mask", lambda q, k, v, m: F._scaled_dot_product_attention(q, k, v, m)[0],
         [f32(2, 3, 4), f32(2, 5, 4), f32(2, 5, 2),
          torch.tensor([[True, False, True, True, False], [False, True, True, False, True],
                        [True, True, False, False, False]])], ACCUMULATE),
        ("fully masked row", lambda q, k, v, m: F._scaled_dot_product_attention(q, k, v, m)[1],
         [f32(2, 2, 4), f32(2, 3, 4), f32(2, 3, 2),
          torch.tensor([[True, False, True], [False, False, False]])], ACCUMULATE),
        ("float mask, float64 mask on float32", lambda q, k, v, m: F._scaled_dot_product_attention(q, k, v, m)[1],
         [f32(2, 3, 4), f32(2, 5, 4), f32(2, 5, 2), f64(2, 3, 5)], ACCUMULATE),
        ("broadcast batch, 2-d", lambda q, k, v: F._scaled_dot_product_attention(q, k, v)[0],
         [f32(3, 4, 6), f32(3, 6), f32(3, 2)], ACCUMULATE),
        ("empty keys", lambda q, k, v: F._scaled_dot_product_attention(q, k, v)[0],
         [f32(1, 2, 6), f32(1, 0, 6), f32(1, 0, 5)], ACCUMULATE),
        ("mask and is_causal", lambda q, k, v, m: F._scaled_dot_product_attention(
            q, k, v, m, 0.0, False, True), [f32(2, 3, 4), f32(2, 3, 4), f32(2, 3, 4), f32(3, 3)]),
        ("dropout_p=1 drops every weight", lambda q, k, v, m: F._scaled_dot_product_attention(
            q, k, v, m, 1.0)[1], [f32(2, 3, 4), f32(2, 3, 4), f32(2, 3, 4),
                                  torch.tensor([[True, False, True], [False, False, False], [True, True, True]])]),
        ("dropout_p out of range", lambda q, k, v: F._scaled_dot_product_attention(q, k, v, None, 1.5),
         [f32(2, 3, 4), f32(2, 3, 4), f32(2, 3, 4)]),
        ("mixed dtypes", lambda q, k, v: F._scaled_dot_product_attention(q, k, v),
         [f32(2, 3, 4), f64(2, 3, 4), f32(2, 3, 4)]),
        ("embedding sizes differ", lambda q, k, v: F._scaled_dot_product_attention(q, k, v),
         [f32(2, 3, 4), f32(2, 3, 5), f32(2, 3, 4)]),
        ("float16", lambda q, k, v: F._scaled_dot_product_attention(q, k, v),
         [dt(torch.float16, 2, 3, 4), dt(torch.float16, 2, 3, 4), dt(torch.float16, 2, 3, 4)]),
        ("1-d", lambda q, k, v: F._scaled_dot_product_attention(q, k, v), [f32(4), f32(4), f32(4)])),
    "torch.tensor_split": fixed(
        ("sections", lambda x: torch.tensor_split(x, 3, 1)[2], [f32(4, 10)]),
        ("indices", lambda x: torch.tensor_split(x, [2, 5], dim=1)[1], [f32(4, 10)]),
        ("indices past the end and back", lambda x: torch.tensor_split(x, [2, 15, 1], 1)[3], [f32(4, 10)]),
        ("empty piece", lambda x: torch.tensor_split(x, [2, 15, 1], 1)[2], [f32(4, 10)]),
        ("indices keyword", lambda x: torch.tensor_split(x, indices=(1,), dim=0)[1], [dt(torch.int64, 4, 3)]),
        ("sections keyword", lambda x: torch.tensor_split(x, sections=3)[0], [f32(7)]),
        ("more sections than elements", lambda x: x.tensor_split(5)[4], [f32(3)]),
        ("negative index", lambda x: torch.tensor_split(x, [-2], 1)[0], [f32(2, 5)]),
        ("0-d", lambda x: torch.tensor_split(x, 2)[0], [f32()]),
        ("zero sections", lambda x: torch.tensor_split(x, 0)[0], [f32(4)]),
        # (A tensor made from constants: its values, known when tracing.)
        ("constant tensor indices", lambda x: torch.tensor_split(x, torch.tensor([1, 3]), 1)[1], [f32(4, 5)]),
        ("constant 0-d tensor sections", lambda x: x.tensor_split(torch.tensor(2))[1], [f32(5)])),
    "torch.nn.functional.instance_norm": fixed(
        # torch repeats each per-channel argument over the batch: 1-D only.
        ("2-d running stats", lambda x, m, v: F.instance_norm(x, m, v, use_input_stats=False), [f32(1, 4), f32(1, 4), positive((1, 4), torch.float32)]),
        ("f64 stats", lambda x, m, v: F.instance_norm(x, m, v, use_input_stats=False), [f32(2, 3, 4), dt(torch.float64, 3), positive((3,), torch.float64)]),
        ("plain", lambda x: F.instance_norm(x), [f32(2, 3, 5, 4)], ACCUMULATE),
        ("affine eps", lambda x, w, b: F.instance_norm(x, weight=w, bias=b, eps=1e-3), [f32(2, 3, 7), f32(3), f32(3)], ACCUMULATE),
        ("running stats", lambda x, m, v: F.instance_norm(x, m, v, use_input_stats=False),
         [f32(2, 3, 4, 4), f32(3), positive((3,), torch.float32)], ACCUMULATE),
        ("f64 3-d", lambda x: F.instance_norm(x), [dt(torch.float64, 2, 2, 3, 3, 2)], ACCUMULATE),
        ("bf16", lambda x: F.instance_norm(x), [dt(torch.bfloat16, 1, 2, 8)], ACCUMULATE, torch.bfloat16),
        ("one spatial element", lambda x: F.instance_norm(x), [f32(2, 3, 1)]),
        ("float16", lambda x: F.instance_norm(x), [dt(torch.float16, 2, 3, 4)]),
        ("wrong weight", lambda x, w: F.instance_norm(x, weight=w), [f32(2, 3, 4), f32(4)])),
    "torch.nn.functional.batch_norm": fixed(
        # torch's CPU kernel: parameters of the input's dtype, or float32
        # beside bfloat16; others refused ("mixed dtype (CPU)").
        ("bf16 f32 stats", lambda x, m, v: F.batch_norm(x, m, v), [dt(torch.bfloat16, 2, 3, 4), f32(3), positive((3,), torch.float32)], ACCUMULATE, torch.bfloat16),
        ("f64 f32 stats", lambda x, m, v: F.batch_norm(x, m, v), [dt(torch.float64, 2, 3), f32(3), positive((3,), torch.float32)]),
        ("f32 f64 weight", lambda x, w: F.batch_norm(x, None, None, w, training=True), [f32(2, 3), dt(torch.float64, 3)]),
        ("bool var", lambda x, m, v: F.batch_norm(x, m, v), [f32(2, 3), f32(3), torch.ones(3, dtype=torch.bool)]),
        ("eval", lambda x, m, v, w, b: F.batch_norm(x, m, v, w, b), [f32(2, 3, 4, 4), f32(3), positive((3,), torch.float32), f32(3), f32(3)], ACCUMULATE),
        ("no affine 1-d", lambda x, m, v: F.batch_norm(x, m, v, eps=1e-3), [f32(4, 3), f32(3), positive((3,), torch.float32)], ACCUMULATE),
        ("f64", lambda x, m, v: F.batch_norm(x, m, v), [dt(torch.float64, 2, 3), dt(torch.float64, 3), positive((3,), torch.float64)], ACCUMULATE),
        ("aten", lambda x, m, v: torch.ops.aten.batch_norm(x, None, None, m, v, False, 0.1, 1e-5, False), [f32(2, 3, 2), f32(3), positive((3,), torch.float32)], ACCUMULATE),
        # Training mode normalizes by the batch's biased statistics; the
        # running ones are only updated (in place, which a graph drops).
        ("training", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [f32(4, 3, 5), f32(3), f32(3)], ACCUMULATE),
        ("training running stats", lambda x, m, v: F.batch_norm(x, m, v, training=True, momentum=0.3, eps=1e-3), [f32(2, 3, 4, 4), f32(3), positive((3,), torch.float32)], ACCUMULATE),
        ("training 2-d f64", lambda x: F.batch_norm(x, None, None, training=True), [dt(torch.float64, 5, 3)], ACCUMULATE),
        ("training bf16", lambda x: F.batch_norm(x, None, None, training=True), [dt(torch.bfloat16, 4, 3, 5)], ACCUMULATE, torch.bfloat16),
        ("training empty", lambda x: F.batch_norm(x, None, None, training=True), [f32(0, 3, 2)])),
    # nn.BatchNorm normalizes by the batch whenever it keeps no running
    # statistics, in eval mode too.
    "_batch_norm modules": fixed(
        ("BatchNorm2d no running stats", Leaf(torch.nn.BatchNorm2d(3, track_running_stats=False).eval()), [f32(2, 3, 4, 4)], ACCUMULATE),
        ("BatchNorm1d training", Leaf(torch.nn.BatchNorm1d(3).train()), [f32(4, 3, 5)], ACCUMULATE),
        ("BatchNorm1d eval", Leaf(torch.nn.BatchNorm1d(3).eval()), [f32(4, 3)], ACCUMULATE)),
    "torch.nn.functional.layer_norm": fixed(
        # torch's CPU kernel: no float16; weight and bias of
        # normalized_shape's shape and the input's dtype.
        ("f16", lambda x: F.layer_norm(x, [4]), [dt(torch.float16, 2, 4)]),
        ("f64 weight", lambda x, w: F.layer_norm(x, [4], weight=w), [f32(2, 4), dt(torch.float64, 4)]),
        ("bool weight", lambda x, w: F.layer_norm(x, [4], weight=w), [f32(2, 4), torch.ones(4, dtype=torch.bool)]),
        ("0-d weight", lambda x, w: F.layer_norm(x, [4], weight=w), [f32(2, 4), f32()]),
        ("2-d bias", lambda x, b: F.layer_norm(x, [4], bias=b), [f32(2, 4), f32(1, 4)]),
        ("last dim", lambda x, w, b: F.layer_norm(x, [4], w, b), [f32(2, 3, 4), f32(4), f32(4)], ACCUMULATE),
        ("two dims", lambda x: F.layer_norm(x, [3, 4], eps=1e-3), [f32(2, 3, 4)], ACCUMULATE),
        ("f64", lambda x: F.layer_norm(x, [4]), [dt(torch.float64, 2, 4)], ACCUMULATE)),
    "torch.nn.functional.dropout": chain(unary(lambda x: F.dropout(x, 0.3, training=False))),
    "torchvision.ops.stochastic_depth.stochastic_depth": fixed(
        ("eval", lambda x: __import__("torchvision").ops.stochastic_depth(x, 0.2, "row", training=False), [f32(2, 3)])),
    "torch.dropout": unary(lambda x: torch.dropout(x, 0.5, False)),
    # (output, keep mask): deterministic in eval mode and with p = 0.
    "torch.ops.aten.native_dropout.default": fixed(
        *[(f"{d} eval {k}", lambda x, k=k: torch.native_dropout(x, 0.3, False)[k], [dt(d, 2, 3)])
          for d in ALL_DTYPES for k in (0, 1)],
        *[(f"train p=0 {k}", lambda x, k=k: torch.native_dropout(x, 0.0, True)[k],
           [tensor((5,), torch.float32, special=True)]) for k in (0, 1)],
        ("train None p=0", lambda x: torch.ops.aten.native_dropout(x, 0.0, None)[1], [f32(2)]),
        ("0-d", lambda x: torch.native_dropout(x, 0.5, False)[1], [f32()]),
        # An empty input's mask has the input's dtype (torch 1.13).
        *[(f"empty {d}", lambda x: torch.native_dropout(x, 0.5, False)[1], [dt(d, 0, 3)])
          for d in (torch.float32, torch.int64)],
        ("int in training", lambda x: torch.native_dropout(x, 0.0, True)[0], [dt(torch.int64, 3)])),

    # Pooling.
    "torch.nn.functional.max_pool1d": fixed(
        ("k3 s2 p1", lambda x: F.max_pool1d(x, 3, 2, 1), [f32(2, 3, 9)]),
        ("ceil", lambda x: F.max_pool1d(x, 2, ceil_mode=True), [f32(1, 2, 7)]),
        ("dilation", lambda x: F.max_pool1d(x, 2, 1, 1, dilation=2), [f32(2, 1, 8)]),
        ("unbatched", lambda x: F.max_pool1d(x, 3), [f32(3, 8)]),
        ("special", lambda x: F.max_pool1d(x, 2), [tensor((1, 2, 4), torch.float32, special=True)]),
        ("f64", lambda x: F.max_pool1d(x, 2), [dt(torch.float64, 1, 2, 6)]),
        ("bf16", lambda x: F.max_pool1d(x, 2), [dt(torch.bfloat16, 1, 2, 6)]),
        ("int64", lambda x: F.max_pool1d(x, 2), [dt(torch.int64, 1, 1, 4)], EXACT, torch.int64),
        ("f16", lambda x: F.max_pool1d(x, 2), [dt(torch.float16, 1, 1, 4)], EXACT, torch.float16),
        ("module", torch.nn.MaxPool1d(3, 2, padding=1, ceil_mode=True), [f32(2, 3, 8)])),
    "torch.nn.functional.max_pool2d": fixed(
        ("3x3 s2 p1", lambda x: F.max_pool2d(x, 3, 2, 1), [f32(1, 2, 7, 7)]),
        ("ceil", lambda x: F.max_pool2d(x, 2, ceil_mode=True), [f32(1, 2, 5, 5)]),
        ("dilation", lambda x: F.max_pool2d(x, 2, 1, dilation=2), [f32(2, 1, 6, 6)]),
        ("rect", lambda x: F.max_pool2d(x, (3, 2), (2, 1), (1, 0), dilation=(1, 2)), [f32(1, 2, 7, 6)]),
        ("unbatched", lambda x: F.max_pool2d(x, 2), [f32(3, 4, 4)]),
        ("special", lambda x: F.max_pool2d(x, 2), [tensor((1, 1, 4, 4), torch.float32, special=True)]),
        ("int64", lambda x: F.max_pool2d(x, 2), [dt(torch.int64, 1, 1, 4, 4)], EXACT, torch.int64),
        ("f64", lambda x: F.max_pool2d(x, 2), [dt(torch.float64, 1, 1, 4, 4)]),
        ("bf16", lambda x: F.max_pool2d(x, 2), [dt(torch.bfloat16, 1, 1, 4, 4)]),
        ("module", torch.nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=(2, 1)), [f32(1, 2, 6, 7)]),
        ("quantized", lambda x: F.max_pool2d(x, 3, 2, 1), [qtensor((1, 2, 7, 7), 0.05, 3)], QUANT_EXACT)),
    "torch.nn.functional.max_pool3d": fixed(
        ("k2", lambda x: F.max_pool3d(x, 2), [f32(1, 2, 4, 4, 4)]),
        ("special", lambda x: F.max_pool3d(x, 2), [tensor((1, 1, 2, 4, 4), torch.float32, special=True)]),
        ("k3 s2 p1", lambda x: F.max_pool3d(x, 3, 2, 1), [f32(2, 1, 5, 6, 7)]),
        ("ceil dilation", lambda x: F.max_pool3d(x, (2, 2, 3), (2, 1, 2), dilation=(1, 2, 1), ceil_mode=True),
         [f32(1, 2, 5, 6, 7)]),
        ("unbatched", lambda x: F.max_pool3d(x, 2), [f32(2, 4, 4, 4)]),
        ("f64", lambda x: F.max_pool3d(x, 2), [dt(torch.float64, 1, 1, 4, 4, 4)]),
        ("bf16", lambda x: F.max_pool3d(x, 2), [dt(torch.bfloat16, 1, 1, 4, 4, 4)], EXACT, torch.bfloat16),
        ("int64", lambda x: F.max_pool3d(x, 2), [dt(torch.int64, 1, 1, 2, 2, 2)], EXACT, torch.int64),
        ("module", torch.nn.MaxPool3d(2, stride=(1, 2, 2), padding=1), [f32(1, 2, 4, 5, 6)])),
    # return_indices=True calls F.max_poolNd_with_indices: a tuple (values,
    # indices into the flattened spatial input).
    "torch.nn.functional.max_pool1d_with_indices": fixed(
        ("values", lambda x: F.max_pool1d(x, 3, 2, 1, return_indices=True)[0], [f32(2, 3, 9)]),
        ("indices", lambda x: F.max_pool1d(x, 3, 2, 1, return_indices=True)[1], [f32(2, 3, 9)]),
        ("ceil dilation indices", lambda x: F.max_pool1d(x, 2, 2, dilation=2, ceil_mode=True, return_indices=True)[1],
         [f32(1, 2, 8)]),
        ("special indices", lambda x: F.max_pool1d(x, 2, return_indices=True)[1],
         [tensor((1, 2, 6), torch.float32, special=True)]),
        ("unbatched", lambda x: F.max_pool1d(x, 2, return_indices=True)[1], [f32(3, 8)]),
        ("aten", lambda x: torch.ops.aten.max_pool1d_with_indices(x, [2])[1], [dt(torch.float64, 1, 2, 6)])),
    "torch.nn.functional.max_pool2d_with_indices": fixed(
        ("values", lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True)[0], [f32(1, 2, 7, 7)]),
        ("indices", lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True)[1], [f32(1, 2, 7, 7)]),
        ("dilation indices", lambda x: F.max_pool2d(x, 2, 1, 1, dilation=2, return_indices=True)[1], [f32(2, 1, 6, 6)]),
        ("special indices", lambda x: F.max_pool2d(x, 2, return_indices=True)[1],
         [tensor((1, 1, 4, 4), torch.float32, special=True)]),
        ("bf16", lambda x: F.max_pool2d(x, 2, return_indices=True)[1], [dt(torch.bfloat16, 1, 1, 4, 4)]),
        ("aten", lambda x: torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [1, 1])[1], [f32(1, 1, 4, 4)])),
    "torch.nn.functional.max_pool3d_with_indices": fixed(
        ("values", lambda x: F.max_pool3d(x, 3, 2, 1, return_indices=True)[0], [f32(1, 2, 5, 6, 7)]),
        ("indices", lambda x: F.max_pool3d(x, 3, 2, 1, return_indices=True)[1], [f32(1, 2, 5, 6, 7)]),
        ("ceil indices", lambda x: F.max_pool3d(x, 2, ceil_mode=True, return_indices=True)[1], [f32(2, 3, 5, 5)]),
        ("f64", lambda x: F.max_pool3d(x, 2, return_indices=True)[1], [dt(torch.float64, 1, 1, 4, 4, 4)]),
        ("aten", lambda x: torch.ops.aten.max_pool3d_with_indices(x, [2, 2, 2])[1], [f32(1, 1, 4, 4, 4)])),
    "torch.nn.functional.avg_pool1d": fixed(
        ("k3 s2 p1", lambda x: F.avg_pool1d(x, 3, 2, 1), [f32(2, 3, 9)], ACCUMULATE),
        ("no pad count", lambda x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False), [f32(2, 3, 9)], ACCUMULATE),
        ("ceil", lambda x: F.avg_pool1d(x, 2, ceil_mode=True), [f32(1, 2, 7)], ACCUMULATE),
        ("special", lambda x: F.avg_pool1d(x, 2), [tensor((1, 2, 8), torch.float32, special=True)], ACCUMULATE),
        ("unbatched", lambda x: F.avg_pool1d(x, 3), [f32(3, 8)], ACCUMULATE),
        ("f64", lambda x: F.avg_pool1d(x, 2), [dt(torch.float64, 1, 2, 6)], ACCUMULATE),
        ("bf16", lambda x: F.avg_pool1d(x, 2), [dt(torch.bfloat16, 1, 2, 6)], ACCUMULATE),
        ("int64", lambda x: F.avg_pool1d(x, 3, 2, 1), [dt(torch.int64, 1, 2, 9)]),
        ("int32", lambda x: F.avg_pool1d(x, 2), [dt(torch.int32, 1, 1, 4)], EXACT, torch.int32),
        ("module", torch.nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False), [f32(2, 3, 8)], ACCUMULATE)),
    "torch.nn.functional.avg_pool2d": fixed(
        ("3x3 s2 p1", lambda x: F.avg_pool2d(x, 3, 2, 1), [f32(1, 2, 7, 7)], ACCUMULATE),
        ("no pad count", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), [f32(1, 2, 7, 7)], ACCUMULATE),
        ("ceil divisor", lambda x: F.avg_pool2d(x, 2, ceil_mode=True, divisor_override=3), [f32(1, 2, 5, 5)], ACCUMULATE),
        ("unbatched", lambda x: F.avg_pool2d(x, 2), [f32(3, 4, 4)], ACCUMULATE),
        ("f64", lambda x: F.avg_pool2d(x, 2), [dt(torch.float64, 1, 1, 4, 4)], ACCUMULATE),
        ("bf16", lambda x: F.avg_pool2d(x, 2), [dt(torch.bfloat16, 1, 1, 4, 4)], ACCUMULATE),
        ("int64", lambda x: F.avg_pool2d(x, 3, 2, 1), [dt(torch.int64, 1, 2, 5, 5)]),
        ("f16", lambda x: F.avg_pool2d(x, 2), [dt(torch.float16, 1, 1, 4, 4)], EXACT, torch.float16),
        ("module", torch.nn.AvgPool2d((3, 2), padding=1, divisor_override=2), [f32(1, 2, 6, 5)], ACCUMULATE),
        ("quantized 3x3 s1 p1", lambda x: F.avg_pool2d(x, 3, 1, 1), [qtensor((1, 3, 7, 7), 0.05, 100)], QUANT_EXACT),
        ("quantized channels-last no pad count", lambda x: F.avg_pool2d(
            x.contiguous(memory_format=torch.channels_last), 3, 2, 1, count_include_pad=False),
         [qtensor((1, 4, 7, 7), 0.02, 3)], QUANT_EXACT)),
    "torch.nn.functional.avg_pool3d": fixed(
        ("k2", lambda x: F.avg_pool3d(x, 2), [f32(1, 2, 4, 4, 4)], ACCUMULATE),
        ("k3 s2 p1 ceil", lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True), [f32(2, 1, 5, 6, 7)], ACCUMULATE),
        ("no pad count", lambda x: F.avg_pool3d(x, 3, 2, 1, count_include_pad=False), [f32(1, 2, 5, 5, 5)], ACCUMULATE),
        ("divisor", lambda x: F.avg_pool3d(x, 2, divisor_override=3), [f32(1, 1, 4, 4, 4)], ACCUMULATE),
        ("unbatched", lambda x: F.avg_pool3d(x, (1, 2, 2)), [f32(2, 3, 4, 4)], ACCUMULATE),
        ("f64", lambda x: F.avg_pool3d(x, 2), [dt(torch.float64, 1, 1, 4, 4, 4)], ACCUMULATE),
        ("int64", lambda x: F.avg_pool3d(x, 3, 2, 1), [dt(torch.int64, 1, 1, 5, 5, 5)]),
        ("bf16", lambda x: F.avg_pool3d(x, 2), [dt(torch.bfloat16, 1, 1, 2, 2, 2)], EXACT, torch.bfloat16),
        ("module", torch.nn.AvgPool3d(2, stride=1, padding=1, count_include_pad=False), [f32(1, 2, 3, 4, 4)], ACCUMULATE)),
    "torch.nn.functional.adaptive_avg_pool1d": fixed(
        ("uneven", lambda x: F.adaptive_avg_pool1d(x, 3), [f32(2, 3, 7)], ACCUMULATE),
        ("1", lambda x: F.adaptive_avg_pool1d(x, 1), [f32(2, 3, 5)], ACCUMULATE),
        ("larger", lambda x: F.adaptive_avg_pool1d(x, (8,)), [f32(1, 2, 5)], ACCUMULATE),
        ("special", lambda x: F.adaptive_avg_pool1d(x, 3), [tensor((1, 2, 9), torch.float32, special=True)], ACCUMULATE),
        ("unbatched", lambda x: F.adaptive_avg_pool1d(x, 2), [f32(3, 5)], ACCUMULATE),
        ("f64", lambda x: F.adaptive_avg_pool1d(x, 2), [dt(torch.float64, 1, 1, 4)], ACCUMULATE),
        ("bf16", lambda x: F.adaptive_avg_pool1d(x, 2), [dt(torch.bfloat16, 1, 1, 4)], ACCUMULATE),
        ("int64", lambda x: F.adaptive_avg_pool1d(x, 2), [dt(torch.int64, 1, 1, 4)], EXACT, torch.int64),
        # To 1 it is a mean, which torch has for float16 too.
        ("f16 to 1", lambda x: F.adaptive_avg_pool1d(x, 1), [dt(torch.float16, 2, 3, 5)], ACCUMULATE),
        ("f64 uneven", lambda x: F.adaptive_avg_pool1d(x, 3), [dt(torch.float64, 2, 3, 7)], ACCUMULATE),
        ("module", torch.nn.AdaptiveAvgPool1d(4), [f32(2, 3, 10)], ACCUMULATE)),
    "torch.nn.functional.adaptive_avg_pool2d": fixed(
        ("1x1", lambda x: F.adaptive_avg_pool2d(x, 1), [f32(2, 3, 5, 5)], ACCUMULATE),
        ("uneven", lambda x: F.adaptive_avg_pool2d(x, (3, 2)), [f32(1, 2, 7, 5)], ACCUMULATE),
        ("none", lambda x: F.adaptive_avg_pool2d(x, (None, 2)), [f32(1, 2, 3, 5)], ACCUMULATE),
        ("special", lambda x: F.adaptive_avg_pool2d(x, 3), [tensor((1, 1, 5, 5), torch.float32, special=True)], ACCUMULATE),
        ("unbatched", lambda x: F.adaptive_avg_pool2d(x, 2), [f32(3, 5, 4)], ACCUMULATE),
        ("f64", lambda x: F.adaptive_avg_pool2d(x, 2), [dt(torch.float64, 1, 1, 4, 4)], ACCUMULATE),
        ("f16", lambda x: F.adaptive_avg_pool2d(x, 2), [dt(torch.float16, 1, 1, 4, 4)], EXACT, torch.float16),
        ("f16 to 1", lambda x: F.adaptive_avg_pool2d(x, 1), [dt(torch.float16, 2, 3, 5, 5)], ACCUMULATE),
        ("f64 uneven", lambda x: F.adaptive_avg_pool2d(x, (3, 2)), [dt(torch.float64, 1, 2, 7, 5)], ACCUMULATE),
        ("module", torch.nn.AdaptiveAvgPool2d((None, 3)), [f32(1, 2, 4, 7)], ACCUMULATE),
        # torch's channels-last quantized kernel (quantized convolutions'
        # outputs are channels-last) and its contiguous one agree here.
        ("quantized 1x1", lambda x: F.adaptive_avg_pool2d(x, 1), [qtensor((2, 3, 7, 7), 0.05, 3)], QUANT_EXACT),
        ("quantized uneven channels-last", lambda x: F.adaptive_avg_pool2d(x.contiguous(memory_format=torch.channels_last), (3, 2)),
         [qtensor((1, 4, 7, 5), 0.02, 100)], QUANT_EXACT)),
    "torch.nn.functional.adaptive_avg_pool3d": fixed(
        ("2", lambda x: F.adaptive_avg_pool3d(x, 2), [f32(1, 2, 4, 5, 6)], ACCUMULATE),
        ("none", lambda x: F.adaptive_avg_pool3d(x, (2, None, 3)), [f32(2, 1, 5, 3, 7)], ACCUMULATE),
        ("special", lambda x: F.adaptive_avg_pool3d(x, 2), [tensor((1, 1, 3, 3, 4), torch.float32, special=True)], ACCUMULATE),
        ("unbatched", lambda x: F.adaptive_avg_pool3d(x, 1), [f32(3, 4, 4, 4)], ACCUMULATE),
        ("f64", lambda x: F.adaptive_avg_pool3d(x, (1, 2, 3)), [dt(torch.float64, 1, 1, 4, 4, 4)], ACCUMULATE),
        ("f16", lambda x: F.adaptive_avg_pool3d(x, 2), [dt(torch.float16, 1, 1, 4, 4, 4)], ACCUMULATE),
        ("bf16", lambda x: F.adaptive_avg_pool3d(x, 2), [dt(torch.bfloat16, 1, 1, 4, 4, 4)], EXACT, torch.bfloat16),
        ("bf16 to 1", lambda x: F.adaptive_avg_pool3d(x, 1), [dt(torch.bfloat16, 1, 2, 3, 3, 3)], ACCUMULATE),
        ("module", torch.nn.AdaptiveAvgPool3d((3, None, 2)), [f32(1, 2, 5, 4, 7)], ACCUMULATE)),
    "torch.nn.functional.adaptive_max_pool1d": fixed(
        ("uneven", lambda x: F.adaptive_max_pool1d(x, 3), [f32(2, 3, 7)]),
        ("larger", lambda x: F.adaptive_max_pool1d(x, 8), [f32(1, 2, 5)]),
        ("unbatched", lambda x: F.adaptive_max_pool1d(x, 2), [f32(3, 5)]),
        ("special", lambda x: F.adaptive_max_pool1d(x, 3), [tensor((1, 1, 8), torch.float32, special=True)]),
        ("f64", lambda x: F.adaptive_max_pool1d(x, 2), [dt(torch.float64, 1, 1, 4)]),
        ("bf16", lambda x: F.adaptive_max_pool1d(x, 2), [dt(torch.bfloat16, 1, 1, 4)]),
        ("int64", lambda x: F.adaptive_max_pool1d(x, 2), [dt(torch.int64, 1, 1, 4)], EXACT, torch.int64),
        ("module", torch.nn.AdaptiveMaxPool1d(4), [f32(2, 3, 10)])),
    "torch.nn.functional.adaptive_max_pool2d": fixed(
        ("uneven", lambda x: F.adaptive_max_pool2d(x, (3, 2)), [f32(1, 2, 7, 5)]),
        ("none", lambda x: F.adaptive_max_pool2d(x, (None, 2)), [f32(1, 2, 3, 5)]),
        ("unbatched", lambda x: F.adaptive_max_pool2d(x, 2), [f32(3, 5, 4)]),
        ("f64", lambda x: F.adaptive_max_pool2d(x, 2), [dt(torch.float64, 1, 1, 4, 4)]),
        ("f16", lambda x: F.adaptive_max_pool2d(x, 2), [dt(torch.float16, 1, 1, 4, 4)], EXACT, torch.float16),
        ("module", torch.nn.AdaptiveMaxPool2d((2, None)), [f32(1, 2, 5, 3)])),
    "torch.nn.functional.adaptive_max_pool3d": fixed(
        ("2", lambda x: F.adaptive_max_pool3d(x, 2), [f32(1, 2, 4, 5, 6)]),
        ("none", lambda x: F.adaptive_max_pool3d(x, (2, None, 3)), [f32(2, 1, 5, 3, 7)]),
        ("unbatched", lambda x: F.adaptive_max_pool3d(x, 1), [f32(3, 4, 4, 4)]),
        ("f64", lambda x: F.adaptive_max_pool3d(x, (1, 2, 3)), [dt(torch.float64, 1, 1, 4, 4, 4)]),
        ("bf16", lambda x: F.adaptive_max_pool3d(x, 2), [dt(torch.bfloat16, 1, 1, 4, 4, 4)], EXACT, torch.bfloat16),
        ("module", torch.nn.AdaptiveMaxPool3d((3, 2, 2)), [f32(1, 2, 5, 4, 7)])),
    "torch.nn.functional.adaptive_max_pool1d_with_indices": fixed(
        ("values", lambda x: F.adaptive_max_pool1d(x, 3, return_indices=True)[0], [f32(2, 3, 7)]),
        ("indices", lambda x: F.adaptive_max_pool1d(x, 3, return_indices=True)[1], [f32(2, 3, 7)]),
        ("special indices", lambda x: F.adaptive_max_pool1d(x, 3, return_indices=True)[1],
         [tensor((1, 1, 8), torch.float32, special=True)]),
        ("torch", lambda x: torch.adaptive_max_pool1d(x, (2,))[1], [f32(1, 2, 5)])),
    "torch.nn.functional.adaptive_max_pool2d_with_indices": fixed(
        ("values", lambda x: F.adaptive_max_pool2d(x, (3, 2), return_indices=True)[0], [f32(1, 2, 7, 5)]),
        ("indices", lambda x: F.adaptive_max_pool2d(x, (3, 2), return_indices=True)[1], [f32(1, 2, 7, 5)]),
        ("none indices", lambda x: F.adaptive_max_pool2d(x, (None, 2), return_indices=True)[1], [f32(3, 3, 5)]),
        ("aten", lambda x: torch.ops.aten.adaptive_max_pool2d(x, [2, 2])[1], [dt(torch.float64, 1, 1, 5, 5)])),
    "torch.nn.functional.adaptive_max_pool3d_with_indices": fixed(
        ("values", lambda x: F.adaptive_max_pool3d(x, 2, return_indices=True)[0], [f32(1, 2, 4, 5, 6)]),
        ("indices", lambda x: F.adaptive_max_pool3d(x, 2, return_indices=True)[1], [f32(1, 2, 4, 5, 6)]),
        ("aten", lambda x: torch.ops.aten.adaptive_max_pool3d(x, [1, 2, 3])[1], [f32(1, 1, 4, 4, 4)])),
    # lp_pool: avg_pool(x ** p) * window size, ** (1 / p), in torch's dtypes
    # (an int p keeps integers integral until the root: avg_pool truncates).
    "torch.nn.functional.lp_pool1d": fixed(
        ("p2", lambda x: F.lp_pool1d(x, 2, 3), [f32(2, 3, 9)], TRANSCENDENTAL),
        # The input is read again afterwards: the kernel must not write it.
        ("input kept", lambda x: F.lp_pool1d(x, 2.0, 1).sum() + x.sum(), [f32(1, 2, 4)], TRANSCENDENTAL),
        ("p3 negative", lambda x: F.lp_pool1d(x, 3, 2), [f32(1, 2, 8)], TRANSCENDENTAL),
        ("p1.5 stride ceil", lambda x: F.lp_pool1d(x, 1.5, 3, 2, ceil_mode=True), [positive((1, 2, 8), torch.float32)],
         TRANSCENDENTAL),
        ("unbatched", lambda x: F.lp_pool1d(x, 2, 2), [f32(3, 6)], TRANSCENDENTAL),
        ("f64", lambda x: F.lp_pool1d(x, 2, 2), [dt(torch.float64, 1, 2, 6)], TRANSCENDENTAL),
        ("bf16", lambda x: F.lp_pool1d(x, 2, 2), [dt(torch.bfloat16, 1, 2, 6)], ACCUMULATE),
        ("int64", lambda x: F.lp_pool1d(x, 2, 2), [dt(torch.int64, 1, 2, 7)], TRANSCENDENTAL),
        ("int64 float p", lambda x: F.lp_pool1d(x, 2.0, 2), [dt(torch.int64, 1, 2, 7)], TRANSCENDENTAL),
        ("bool", lambda x: F.lp_pool1d(x, 2, 2), [dt(torch.bool, 1, 2, 7)], TRANSCENDENTAL),
        ("int32 float p", lambda x: F.lp_pool1d(x, 3.0, 2), [dt(torch.int32, 1, 2, 6)], TRANSCENDENTAL),
        ("int32", lambda x: F.lp_pool1d(x, 2, 2), [dt(torch.int32, 1, 2, 6)], EXACT, torch.int32),
        ("f16", lambda x: F.lp_pool1d(x, 2, 2), [dt(torch.float16, 1, 2, 6)], EXACT, torch.float16),
        ("module", torch.nn.LPPool1d(2, 3, stride=2), [f32(2, 3, 9)], TRANSCENDENTAL)),
    "torch.nn.functional.lp_pool2d": fixed(
        ("p2", lambda x: F.lp_pool2d(x, 2, 3), [f32(1, 2, 7, 7)], TRANSCENDENTAL),
        ("p3 rect stride", lambda x: F.lp_pool2d(x, 3, (2, 3), (1, 2)), [f32(1, 2, 5, 7)], TRANSCENDENTAL),
        ("p1.5 ceil", lambda x: F.lp_pool2d(x, 1.5, 2, ceil_mode=True), [positive((1, 2, 5, 5), torch.float32)],
         TRANSCENDENTAL),
        ("unbatched", lambda x: F.lp_pool2d(x, 2, 2), [f32(3, 4, 4)], TRANSCENDENTAL),
        ("f64", lambda x: F.lp_pool2d(x, 2, 2), [dt(torch.float64, 1, 1, 4, 4)], TRANSCENDENTAL),
        ("int64", lambda x: F.lp_pool2d(x, 2, 2), [dt(torch.int64, 1, 2, 5, 5)], TRANSCENDENTAL),
        ("bool", lambda x: F.lp_pool2d(x, 3, 2), [dt(torch.bool, 1, 2, 4, 4)], TRANSCENDENTAL),
        ("int16", lambda x: F.lp_pool2d(x, 2, 2), [dt(torch.int16, 1, 1, 4, 4)], EXACT, torch.int16),
        ("module", torch.nn.LPPool2d(2, (2, 3)), [f32(1, 2, 6, 6)], TRANSCENDENTAL)),
    "torch.ops.aten.upsample_nearest1d.default": fixed(
        ("scale", lambda x: torch._C._nn.upsample_nearest1d(x, [7], 1.7), [f32(1, 2, 3)]),
        ("no scale", lambda x: torch._C._nn.upsample_nearest1d(x, [5], None), [f32(2, 1, 3)]),
        ("zero size", lambda x: torch._C._nn.upsample_nearest1d(x, [0], None), [f32(1, 1, 3)])),
    "torch.ops.aten.upsample_nearest2d.default": fixed(
        *[(f"{d}", lambda x: torch._C._nn.upsample_nearest2d(x, [6, 10], 2.3, 4.7),
           [dt(d, 2, 3, 2, 2)]) for d in ALL_DTYPES],
        ("2x with other scales", lambda x: torch.ops.aten.upsample_nearest2d(
            x, output_size=[8, 8], scales_h=3.0, scales_w=4.0), [f32(1, 1, 4, 4)]),
        ("no scales", lambda x: torch._C._nn.upsample_nearest2d(
            x, output_size=[11, 11], scales_h=None, scales_w=None), [f32(1, 1, 4, 4)]),
        ("down", lambda x: torch._C._nn.upsample_nearest2d(x, [2, 3], None, 0.5), [f32(1, 2, 5, 7)]),
        ("3-D input", lambda x: torch._C._nn.upsample_nearest2d(x, [3, 3], None, None), [f32(1, 2, 2)])),
    "torch.ops.aten.upsample_nearest3d.default": fixed(
        ("scales", lambda x: torch._C._nn.upsample_nearest3d(x, [2, 3, 5], 2.0, None, 1.9),
         [f32(1, 1, 1, 2, 3)]),),
    "torch.nn.functional.interpolate": chain(
        fixed(*[(f"{d} {mode}", lambda x, mode=mode: F.interpolate(x, scale_factor=2, mode=mode),
                 [dt(d, 1, 2, 3, 4)], ACCUMULATE, d)
                for d in ALL_DTYPES for mode in ("nearest", "bilinear")]),
        # Nearest source indices in float arithmetic, as torch's CPU kernel:
        # factor 1.1 of 2 maps output 1 to input 0, 2.1 of 2 gives
        # [0, 0, 0, 1] (not the halved index), 3.7 of 11 output 37 to 9.
        fixed(*[(f"nearest {mode} factor {sf} of {n}",
                 lambda x, sf=sf, mode=mode: F.interpolate(x, scale_factor=sf, mode=mode),
                 [torch.arange(float(n)).reshape(1, 1, n)])
                for mode in ("nearest", "nearest-exact")
                for n, sf in ((2, 1.1), (2, 2.1), (11, 3.7), (6, 2.3), (12, 4.9))]),
        # One channel: torch's channels-last kernel, which copies an equal
        # size and halves the index at twice the size, whatever the factor
        # (not with more channels, nor for 1-D).
        fixed(*[(f"nearest {shape} factor {sf}",
                 lambda x, sf=sf: F.interpolate(x, scale_factor=sf), [f32(*shape)])
                for shape in ((1, 1, 4, 4), (2, 1, 3, 4), (2, 3, 4, 4), (1, 1, 2, 3, 2))
                for sf in (1.1, 2.1, 2.3)]),
        fixed(("nearest size", lambda x: F.interpolate(x, size=(5, 7)), [f32(1, 2, 3, 4)]),
              ("nearest-exact", lambda x: F.interpolate(x, size=(5, 3), mode="nearest-exact"), [f32(2, 1, 3, 4)]),
              ("bilinear align_corners", lambda x: F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True),
               [f32(1, 2, 3, 4)], ACCUMULATE),
              ("bilinear down", lambda x: F.interpolate(x, scale_factor=0.5, mode="bilinear"), [f32(1, 1, 6, 5)], ACCUMULATE),
              ("linear 1-d", lambda x: F.interpolate(x, scale_factor=1.7, mode="linear"), [f32(1, 2, 5)], ACCUMULATE),
              ("trilinear", lambda x: F.interpolate(x, size=(3, 4, 2), mode="trilinear"), [f32(1, 1, 2, 3, 4)], ACCUMULATE),
              ("nearest 5-d", lambda x: F.interpolate(x, scale_factor=(2, 1, 3)), [f32(1, 1, 2, 3, 2)]),
              ("recompute", lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear", recompute_scale_factor=True),
               [f32(1, 1, 3, 5)], ACCUMULATE),
              ("module", torch.nn.Upsample(scale_factor=2, mode="bilinear"), [f32(1, 2, 3, 3)], ACCUMULATE),
              ("nearest module", torch.nn.UpsamplingNearest2d(size=(4, 5)), [f32(1, 2, 3, 3)]),
              ("bilinear module", torch.nn.UpsamplingBilinear2d(scale_factor=2), [f32(1, 2, 3, 3)], ACCUMULATE),
              ("bicubic up", lambda x: F.interpolate(x, size=(8, 9), mode="bicubic"), [f32(2, 3, 5, 7)], ACCUMULATE),
              ("bicubic align_corners", lambda x: F.interpolate(x, size=(3, 4), mode="bicubic", align_corners=True),
               [f32(1, 2, 5, 7)], ACCUMULATE),
              ("bicubic scale", lambda x: F.interpolate(x, scale_factor=1.7, mode="bicubic"), [f32(1, 2, 4, 5)], ACCUMULATE),
              ("bicubic module", torch.nn.Upsample(scale_factor=2, mode="bicubic"), [f32(1, 2, 3, 3)], ACCUMULATE),
              ("area down", lambda x: F.interpolate(x, size=(3, 4), mode="area"), [f32(2, 3, 5, 7)], ACCUMULATE),
              ("area up", lambda x: F.interpolate(x, size=(11, 13), mode="area"), [f32(1, 2, 5, 7)], ACCUMULATE),
              ("area 1-d", lambda x: F.interpolate(x, size=4, mode="area"), [f32(2, 3, 9)], ACCUMULATE),
              ("area 3-d", lambda x: F.interpolate(x, size=(2, 3, 4), mode="area"), [f32(1, 2, 5, 6, 7)], ACCUMULATE),
              ("bicubic 3-d input", lambda x: F.interpolate(x, size=4, mode="bicubic"), [f32(1, 2, 3)]))),

    # Reductions.
    "torch.mean": chain(
        unary(torch.mean, dtypes=FLOAT_DTYPES, tol=ACCUMULATE, special=False),
        fixed(("dim keepdim", lambda x: x.mean(1, keepdim=True), [f32(2, 3, 4)], ACCUMULATE),
              ("float16 sum overflow", lambda x: (x.mean(), x.mean(1))[0] + x.mean(1).sum(),
               [torch.full((3, 4), 40000.0, dtype=torch.float16)], ACCUMULATE),
              ("dims", lambda x: torch.mean(x, (0, 2)), [f32(2, 3, 4)], ACCUMULATE),
              ("int dtype=", lambda x: torch.mean(x, 0, dtype=torch.float64), [dt(torch.int32, 3, 4)], ACCUMULATE),
              ("empty dim", lambda x: x.mean(1), [f32(2, 0)], ACCUMULATE),
              ("aten mean.dim", lambda x: torch.ops.aten.mean.dim(x, [0], True), [f32(3, 4)], ACCUMULATE),
              ("aten mean.default", lambda x: torch.ops.aten.mean.default(x), [f32(3, 4)], ACCUMULATE),
              ("quantized dims", lambda x: x.mean([2, 3]), [qtensor((2, 4, 5, 5), 0.05, 100)], QUANT_EXACT),
              # (torch dequantizes, takes the float mean and quantizes
              # where the dims are not the innermost of the layout: its
              # float sum rounds its own way.)
              ("quantized channels-last dim 1", lambda x: x.contiguous(memory_format=torch.channels_last).mean(1),
               [qtensor((2, 4, 5, 5), 0.02, 3)], QUANT_ONE_STEP))),
    # NaN counts as 0 (the samples' special values include NaN); nanmean of
    # an all-NaN row is NaN (0 / 0).
    "torch.diff": fixed(
        ("default", torch.diff, [f32(3, 5)]),
        ("n 2 dim 0", lambda x: torch.diff(x, n=2, dim=0), [f32(4, 3)]),
        ("n past the size", lambda x: torch.diff(x, n=7), [f32(2, 5)]),
        ("n 0", lambda x: torch.diff(x, n=0), [f32(2, 3)]),
        ("empty other dim", lambda x: torch.diff(x, dim=0), [f32(5, 0)]),
        ("prepend append promote", lambda x, p, a: torch.diff(x, dim=1, prepend=p, append=a),
         [dt(torch.int64, 2, 3), dt(torch.int32, 2, 1), f32(2, 2)]),
        ("bool", torch.diff, [dt(torch.bool, 6)]),
        ("uint8 wraps", torch.diff, [dt(torch.uint8, 6)]),
        ("int64 n 3", lambda x: torch.diff(x, n=3), [dt(torch.int64, 2, 6)]),
        ("float16", torch.diff, [dt(torch.float16, 5)]),
        ("0-d", torch.diff, [f32()]),
        ("prepend of another rank", lambda x, p: torch.diff(x, prepend=p), [f32(2, 3), f32(2)]),
        ("prepend of another size", lambda x, p: torch.diff(x, prepend=p), [f32(2, 3), f32(3, 1)])),
    "torch.nansum": chain(
        reduction(torch.nansum, dims=(None, 1, (0, 2))),
        fixed(("all NaN row", lambda x: torch.nansum(x, 1), [torch.tensor([[1.0, float("nan")], [float("nan")] * 2])]),
              ("dtype", lambda x: torch.nansum(x, 0, dtype=torch.float64), [f32(3, 2)], ACCUMULATE))),
    "torch.nanmean": chain(
        reduction(torch.nanmean, dims=(None, 1, (0, 2)), dtypes=FLOAT_DTYPES),
        fixed(("NaNs", lambda x: torch.nanmean(x, 1), [torch.tensor([[1.0, float("nan"), 4.0], [float("nan")] * 3])]),
              ("int64 refused", lambda x: torch.nanmean(x), [dt(torch.int64, 3)]),
              ("bool refused", lambda x: torch.nanmean(x), [dt(torch.bool, 3)]))),
    "torch.sum": chain(
        unary(torch.sum, tol=ACCUMULATE, special=False),
        fixed(("dim keepdim", lambda x: x.sum(1, keepdim=True), [f32(2, 3, 4)], ACCUMULATE),
              ("dims", lambda x: torch.sum(x, (0, -1)), [dt(torch.int32, 2, 3, 4)]),
              ("bool dim", lambda x: x.sum(0), [dt(torch.bool, 4, 3)]),
              ("dtype f64", lambda x: torch.sum(x, dtype=torch.float64), [f32(4)], ACCUMULATE),
              ("dtype int32 of bool", lambda x: torch.sum(x, 1, dtype=torch.int32), [dt(torch.bool, 2, 5)]),
              ("0-d dim 0", lambda x: x.sum(0), [f32()]),
              ("dim=[] is all", lambda x: torch.sum(x, []), [dt(torch.int16, 2, 3)]),
              ("empty", lambda x: x.sum(0), [f32(0, 3)]))),

    # Reductions over dims, with indices.
    "torch.amax": chain(reduction(torch.amax, dims=((), 1, (0, 2), -1)),
                        fixed(("empty dim kept", lambda x: x.amax(1), [f32(0, 3)]))),
    "torch.amin": reduction(torch.amin, dims=((), 1, (0, 2), -1)),
    # (Both results, stacked: the harness compares one output.)
    "torch.aminmax": chain(
        # (r[0], r[1]: torch.fx records a tuple's items, not the tuple.)
        reduction(lambda x, **k: (lambda r: torch.stack([r[0], r[1]]))(torch.aminmax(x, **k)),
                  dims=(None, 1, -1)),
        fixed(("keepdim, all dims", lambda x: torch.stack(torch.aminmax(x, keepdim=True)),
               [f32(2, 3)]),
              ("nan", lambda x: torch.stack(torch.aminmax(x, dim=0)),
               [torch.tensor([[1.0, float("nan")], [-1.0, 2.0]])]))),
    "torch.argmax": chain(reduction(torch.argmax, dims=(None, 1, -1), multi=False),
                          fixed(("ties", torch.argmax, [torch.tensor([3, 1, 3])]),
                                ("nan", torch.argmax, [torch.tensor([1.0, math.nan, 3.0])]))),
    "torch.argmin": reduction(torch.argmin, dims=(None, 0, -1), multi=False),
    "torch.max": chain(reduction(lambda x, **kw: torch.max(x, **kw) if "dim" not in kw
                                 else torch.max(x, **kw)[0], dims=(None, 1, -1), multi=False),
                       fixed(("indices", lambda x: torch.max(x, 1)[1], [f32(3, 4)]),
                             ("keepdim tuple", lambda x: x.max(0, keepdim=True).values, [dt(torch.int32, 3, 4)]),
                             ("nan", lambda x: x.max(0)[1], [torch.tensor([1.0, math.nan, 3.0])]))),
    "torch.min": chain(reduction(lambda x, **kw: torch.min(x, **kw) if "dim" not in kw
                                 else torch.min(x, **kw)[0], dims=(None, 1, -1), multi=False),
                       fixed(("indices", lambda x: torch.min(x, -1).indices, [dt(torch.int16, 3, 4)]))),
    "torch.all": reduction(torch.all, dims=(None, 1, -1), multi=False),
    "torch.any": reduction(torch.any, dims=(None, 0, -1), multi=False),
    "torch.prod": chain(reduction(torch.prod, dims=(None, 1, -1), multi=False),
                        fixed(("dtype", lambda x: torch.prod(x, 1, dtype=torch.float64), [f32(2, 3)], ACCUMULATE))),
    "torch.var": chain(reduction(torch.var, dims=(None, 1, (0, 2)), dtypes=FLOAT_DTYPES),
                       fixed(("unbiased False", lambda x: x.var(False), [f32(3, 4)], ACCUMULATE),
                             ("dim unbiased False", lambda x: torch.var(x, 1, False, True), [f32(3, 4)], ACCUMULATE),
                             ("correction 0", lambda x: torch.var(x, 1, correction=0), [f32(3, 4)], ACCUMULATE),
                             ("one element", lambda x: x.var(), [f32(1)], ACCUMULATE),
                             # (torch accumulates float32 in double: a float32
                             # two-pass sum loses this variance.)
                             ("large values", lambda x: (x * 1e4 + 1e6).var(1), [f32(4, 500)], ACCUMULATE))),
    "torch.std": chain(reduction(torch.std, dims=(None, 1, (0, 2)), dtypes=FLOAT_DTYPES),
                       fixed(("unbiased False", lambda x: x.std(1, unbiased=False), [f32(3, 4)], ACCUMULATE))),
    "torch.var_mean": fixed(("dim", lambda x: torch.var_mean(x, 1)[0] + torch.var_mean(x, 1)[1], [f32(3, 4)], ACCUMULATE),
                            ("all f64", lambda x: torch.var_mean(x)[1], [dt(torch.float64, 3, 4)], ACCUMULATE)),
    "torch.std_mean": fixed(("dim", lambda x: torch.std_mean(x, (0, 1), keepdim=True)[0], [f32(3, 4, 2)], ACCUMULATE)),
    "torch.logsumexp": chain(reduction(torch.logsumexp, dims=(1, (0, 2), -1), multi=True, tol=TRANSCENDENTAL),
                             fixed(("-inf row", lambda x: torch.logsumexp(x, 1), [torch.full((2, 3), -math.inf)]),
                                   # torch rounds each step to bfloat16: 4.71875 here, where the
                                   # value rounded once is 4.6875; expm1 makes that ulp 3%
                                   # (fuzz-diff).
                                   ("bf16 step rounding", lambda x: torch.expm1(torch.logsumexp(x, 0)),
                                    [torch.tensor([[-0.75, 0.75, 4.5], [-4.5, 0.0, -4.5], [0.0, 1.5, 3.0]],
                                                  dtype=torch.bfloat16)], EXACT))),
    "torch.cumsum": chain(*[fixed(*[(f"{d} dim {k}", lambda x, k=k: torch.cumsum(x, k), [dt(d, 3, 4)], ACCUMULATE)
                                    for k in (0, -1)]) for d in ALL_DTYPES],
                          fixed(("dtype", lambda x: x.cumsum(0, dtype=torch.float64), [dt(torch.int32, 5)]),
                                ("0-d", lambda x: x.cumsum(0), [f32()], ACCUMULATE),
                                # (uint8 widens unsigned: 255, not -1; fuzz-diff.)
                                ("0-d uint8", lambda x: x.cumsum(-1), [torch.tensor(255, dtype=torch.uint8)]))),
    "torch.trapezoid": fixed(
        *[(f"{d} x", torch.trapezoid, [dt(d, 2, 3), dt(d, 2, 3)], ACCUMULATE) for d in ALL_DTYPES],
        *[(f"{d} dx", lambda y: torch.trapezoid(y, dx=0.5, dim=0), [dt(d, 3, 2)], ACCUMULATE) for d in ALL_DTYPES],
        ("trapz", lambda y, x: torch.trapz(y, x, dim=0), [f32(3, 2), f32(3, 2)], ACCUMULATE),
        ("trapz dx", lambda y: torch.trapz(y, dx=2), [f32(2, 4)], ACCUMULATE),
        ("default", torch.trapezoid, [f32(4)], ACCUMULATE),
        ("1-d x", lambda y, x: torch.trapezoid(y, x, dim=0), [f32(3, 2), dt(torch.float64, 3)], ACCUMULATE),
        ("lower-rank x", lambda y, x: torch.trapezoid(y, x), [f32(2, 3, 4), f32(3, 4)], ACCUMULATE),
        ("int dx", lambda y: torch.trapezoid(y, dx=3), [dt(torch.int64, 2, 3)], ACCUMULATE),
        ("no samples", torch.trapezoid, [dt(torch.int64, 2, 0)]),
        ("one sample", torch.trapezoid, [f32(2, 1)]),
        ("0-d", torch.trapezoid, [f32()]),
        ("bool", torch.trapezoid, [dt(torch.bool, 3)]),
        ("x of another length", lambda y, x: torch.trapezoid(y, x), [f32(2, 3), f32(4)])),
    "torch.cumulative_trapezoid": fixed(
        *[(f"{d} x", torch.cumulative_trapezoid, [dt(d, 2, 3), dt(d, 2, 3)], ACCUMULATE) for d in ALL_DTYPES],
        *[(f"{d} dx", lambda y: torch.cumulative_trapezoid(y, dx=0.5, dim=0), [dt(d, 3, 2)], ACCUMULATE)
          for d in ALL_DTYPES],
        ("1-d x", lambda y, x: torch.cumulative_trapezoid(y, x), [f32(2, 4), f32(4)], ACCUMULATE),
        ("empty", torch.cumulative_trapezoid, [f32(2, 0)]),
        ("0-d", torch.cumulative_trapezoid, [f32()])),
    "torch.cov": fixed(
        *[(f"{d}", torch.cov, [dt(d, 3, 5)], ACCUMULATE) for d in ALL_DTYPES],
        ("vector", torch.cov, [f32(6)], ACCUMULATE),
        ("0-d", torch.cov, [f32()]),
        ("correction 0", lambda x: torch.cov(x, correction=0), [f32(2, 4)], ACCUMULATE),
        ("no degrees of freedom", lambda x: torch.cov(x, correction=4), [f32(2, 4)], ACCUMULATE),
        ("method", lambda x: x.cov(), [dt(torch.int64, 2, 3)], ACCUMULATE),
        ("3-d", torch.cov, [f32(2, 2, 2)])),
    "torch.corrcoef": fixed(
        *[(f"{d}", torch.corrcoef, [dt(d, 3, 5)], ACCUMULATE) for d in ALL_DTYPES],
        ("vector", torch.corrcoef, [f32(5)], ACCUMULATE),
        ("one row", torch.corrcoef, [dt(torch.int64, 1, 4)], ACCUMULATE),
        ("constant row", torch.corrcoef, [torch.tensor([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])], ACCUMULATE),
        ("3-d", torch.corrcoef, [f32(2, 2, 2)])),
    "torch.linalg.vander": fixed(
        *[(f"{d}", torch.linalg.vander, [dt(d, 2, 3)], ACCUMULATE) for d in ALL_DTYPES],
        ("N", lambda x: torch.linalg.vander(x, N=4), [f32(3)], ACCUMULATE),
        ("0-d", lambda x: torch.linalg.vander(x, N=3), [f32()], ACCUMULATE),
        ("N=1", lambda x: torch.linalg.vander(x, N=1), [f32(3)])),
    "torch.cumprod": chain(*[fixed(*[(f"{d} dim {k}", lambda x, k=k: torch.cumprod(x, k), [dt(d, 3, 4)], ACCUMULATE)
                                     for k in (0, -1)]) for d in ALL_DTYPES],
                           fixed(("0-d uint8", lambda x: x.cumprod(-1), [torch.tensor(255, dtype=torch.uint8)]))),

    # cummax/cummin: ties and NaN take the later index (torch's scan).
    **{f"torch.{name}": chain(
        *[fixed((f"{d} values dim 0", lambda x, f=f: f(x, 0)[0], [dt(d, 3, 4)]),
                (f"{d} indices dim -1", lambda x, f=f: f(x, -1)[1], [dt(d, 3, 4)]))
          for d in ALL_DTYPES],
        fixed(("ties", lambda x, f=f: f(x, 1)[1], [torch.tensor([[1, 3, 3, 2, 3], [2, 2, 1, 1, 5]])]),
              ("nan values", lambda x, f=f: f(x, 0)[0],
               [torch.tensor([1., float("nan"), 3, float("nan"), -1, 7])]),
              ("nan indices", lambda x, f=f: f(x, 0)[1],
               [torch.tensor([1., float("nan"), 3, float("nan"), -1, 7])]),
              ("0-d", lambda x, f=f: f(x, 0)[1], [f32()]),
              ("empty", lambda x, f=f: f(x, 1)[0], [f32(2, 0)]),
              ("method values", lambda x, name=name: getattr(x, name)(dim=2).values, [f32(2, 3, 4)]),
              ("dim out of range rejected", lambda x, f=f: f(x, 2)[0], [f32(2, 3)])))
       for name, f in (("cummax", torch.cummax), ("cummin", torch.cummin))},
    # median/nanmedian: the lower median, by (value, index) order; median
    # of NaNs is the first NaN, nanmedian skips them.
    **{f"torch.{name}": chain(
        *[fixed((f"{d} all", lambda x, f=f: f(x), [dt(d, 3, 4)]),
                (f"{d} dim values", lambda x, f=f: f(x, 1)[0], [dt(d, 3, 4)]),
                (f"{d} dim 0 keepdim indices", lambda x, f=f: f(x, 0, keepdim=True)[1], [dt(d, 4, 3)]))
          for d in ALL_DTYPES],
        fixed(("ties", lambda x, f=f: f(x, -1)[1], [torch.tensor([[1, 3, 3, 2, 3, 3], [2, 2, 1, 1, 5, 1]])]),
              *[(f"nan {i}", lambda x, f=f, i=i: f(x, 1)[i],
                 [torch.tensor([[1., float("nan"), 3, float("nan"), -1, 7], [4., 2, 2, 1, 0, 9]])])
                for i in (0, 1)],
              ("nan all", lambda x, f=f: f(x), [torch.tensor([1., float("nan"), 3, float("nan"), -1])]),
              *[(f"all nan row {i}", lambda x, f=f, i=i: f(x, 1)[i], [torch.tensor([[float("nan")] * 3, [1., 2, 0]])])
                for i in (0, 1)],
              ("0-d", lambda x, f=f: f(x, 0)[1], [f32()]),
              ("empty dim rejected", lambda x, f=f: f(x, 1)[0], [f32(2, 0)])))
       for name, f in (("median", torch.median), ("nanmedian", torch.nanmedian))},
    # quantile/nanquantile: sort, then lerp between the ranks' neighbours;
    # a NaN makes quantile's result NaN, nanquantile skips them.
    **{f"torch.{name}": chain(
        *[fixed((f"{mode} all", lambda x, f=f, m=mode: f(x, 0.3, interpolation=m), [f32(3, 4)]),
                (f"{mode} dim q list", lambda x, q, f=f, m=mode: f(x, q, dim=1, interpolation=m),
                 [f32(3, 5), torch.tensor([0.0, 0.25, 0.5, 0.6, 1.0])]))
          for mode in ("linear", "lower", "higher", "midpoint", "nearest")],
        fixed(("float64 dim 0 keepdim", lambda x, f=f: f(x, 0.7, 0, True), [f64(4, 3, 2)]),
              ("keepdim all q list", lambda x, q, f=f: f(x, q, keepdim=True), [f32(2, 3), torch.tensor([0.1, 0.9])]),
              ("0-d q tensor", lambda x, q, f=f: f(x, q, dim=-1), [f32(2, 3), torch.tensor(0.45)]),
              ("0-d input", lambda x, f=f: f(x, 0.5, dim=0, keepdim=True), [f32()]),
              ("method", lambda x, f=f, name=name: getattr(x, name)(0.25, dim=0), [f32(5, 2)]),
              ("int q", lambda x, f=f: f(x, 1, dim=1), [f32(2, 3)]),
              *[(f"nan {m}", lambda x, f=f, m=m: f(x, torch.tensor([0.0, 0.5, 1.0]), dim=1, interpolation=m),
                 [torch.tensor([[1., float("nan"), 3, float("nan"), -1, 7], [4., 2, 2, 1, 0, 9],
                                [float("nan")] * 6])])
                for m in ("linear", "nearest")],
              ("q out of range rejected", lambda x, f=f: f(x, 1.5), [f32(3)]),
              ("q tensor out of range rejected", lambda x, q, f=f: f(x, q), [f32(3), torch.tensor([0.5, -0.1])]),
              ("int input rejected", lambda x, f=f: f(x, 0.5), [dt(torch.int64, 3)]),
              ("q dtype rejected", lambda x, q, f=f: f(x, q), [f32(3), torch.tensor([0.5], dtype=torch.float64)]),
              ("2-D q rejected", lambda x, q, f=f: f(x, q), [f32(3), torch.full((2, 2), 0.5)]),
              ("empty rejected", lambda x, f=f: f(x, 0.5), [f32(0, 3)]),
              ("interpolation rejected", lambda x, f=f: f(x, 0.5, interpolation="cubic"), [f32(3)])))
       for name, f in (("quantile", torch.quantile), ("nanquantile", torch.nanquantile))},
    # mode: torch's CPU kernel sorts (value, index) pairs by value with
    # std::sort (not stable beyond 16 elements) and takes the first longest
    # run: its value and the index of its last pair.
    "torch.mode": chain(
        *[fixed((f"{d} values", lambda x: torch.mode(x)[0], [tensor((3, 6), d, low=-2, high=2)]),
                (f"{d} indices dim 0", lambda x: torch.mode(x, 0)[1], [tensor((7, 3), d, low=-2, high=2)]))
          for d in ALL_DTYPES],
        _both_results(("ties", lambda x: torch.mode(x, -1)[1], [torch.tensor([[1, 3, 3, 2, 3, 3], [2, 2, 1, 1, 5, 1]])]),
              ("frequency tie", lambda x: torch.mode(x, 1), [torch.tensor([[4, 1, 4, 1, 2], [0, 9, 9, 0, 7]])]),
              *[(f"long runs {n}", lambda x: torch.mode(x, 1),
                 [torch.randint(0, 4, (5, n), generator=torch.Generator().manual_seed(n))])
                for n in (17, 40, 100)],
              ("long float runs", lambda x: torch.mode(x, 0, keepdim=True),
               [torch.randint(-3, 3, (64, 3), generator=torch.Generator().manual_seed(1)).float()]),
              ("nan", lambda x: torch.mode(x, 1),
               [torch.tensor([[3., float("nan"), 1, float("nan"), 1], [float("nan")] * 5,
                              [2., 2, float("nan"), 0, float("nan")]])]),
              ("nan long", lambda x: torch.mode(x),
               [torch.tensor([float("nan"), 1., 2, 1, float("nan"), 0] * 5)]),
              ("0-d", lambda x: torch.mode(x, 0, True), [f32()]),
              ("method", lambda x: x.mode(dim=1, keepdim=True), [dt(torch.int32, 2, 5)]),
              ("empty outer", lambda x: torch.mode(x, 1), [f32(0, 3)]),
              ("empty dim rejected", lambda x: torch.mode(x, 0), [f32(0, 3)]),
              ("dim out of range rejected", lambda x: torch.mode(x, 2), [f32(2, 3)]))),
    # histc: trunc((x - lo) / (hi - lo) * bins), the last bin taking hi;
    # histogram: the edges' upper bound (around the linear guess for an int).
    "torch.histc": fixed(
        *[(f"{d} data range", lambda x: torch.histc(x, 7), [tensor((4, 50), d, low=-3, high=8)])
          for d in (torch.float32, torch.float64)],
        ("range", lambda x: torch.histc(x, 9, 0.3, 10.1), [f32(300)]),
        ("edges", lambda x: torch.histc(x, 7, 0.3, 10.1), [torch.linspace(0.3, 10.1, 8)]),
        ("one value", lambda x: torch.histc(x, 4), [torch.full((5,), 2.5)]),
        ("bfloat16", lambda x: torch.histc(x, 7, -3, 8), [dt(torch.bfloat16, 60)]),
        ("empty", lambda x: torch.histc(x, 3), [f32(0)]),
        ("0-d", lambda x: torch.histc(x, 3, -1, 1), [f32()]),
        ("method", lambda x: x.histc(bins=5, min=-2, max=2), [f64(3, 4)]),
        ("nan in range", lambda x: torch.histc(x, 4, 0, 3), [torch.tensor([1., float("nan"), 2.5, 3.5])]),
        ("nan data range rejected", lambda x: torch.histc(x, 4), [torch.tensor([1., float("nan")])]),
        ("int rejected", lambda x: torch.histc(x, 4, 0, 3), [dt(torch.int64, 5)]),
        ("bins rejected", lambda x: torch.histc(x, 0), [f32(5)]),
        ("min above max rejected", lambda x: torch.histc(x, 4, 2, 1), [f32(5)])),
    "torch.histogram": _both_results(
        *[(f"{d} data range", lambda x: torch.histogram(x, 7), [tensor((4, 50), d, low=-3, high=8)])
          for d in (torch.float32, torch.float64)],
        ("range", lambda x: torch.histogram(x, 9, range=(0.3, 10.1)), [f32(300)]),
        ("edges", lambda x: torch.histogram(x, 7, range=(0.3, 10.1)), [torch.linspace(0.3, 10.1, 8)]),
        ("many bins", lambda x: torch.histogram(x, 40, range=(-3., 8.)), [f32(500)]),
        ("bfloat16 range", lambda x: torch.histogram(x, 6, range=(-3., 8.)), [dt(torch.bfloat16, 50)]),
        ("bfloat16 data range rejected", lambda x: torch.histogram(x, 6), [dt(torch.bfloat16, 5)]),
        ("bins tensor", lambda x, b: torch.histogram(x, b), [f32(40), torch.tensor([-4., -1, 0, 0.5, 3, 5])]),
        ("weight density", lambda x, w: torch.histogram(x, 5, weight=w, density=True), [f64(6, 5), f64(6, 5)]),
        ("bins tensor weight density", lambda x, b, w: torch.histogram(x, b, weight=w, density=True),
         [f32(30), torch.tensor([-4., -1, 0, 0.5, 3, 5]), f32(30)]),
        ("one value", lambda x: torch.histogram(x, 4), [torch.full((5,), 2.5)]),
        ("empty", lambda x: torch.histogram(x, 3), [f32(0)]),
        ("method", lambda x: x.histogram(3), [f32(7)]),
        ("nan in range", lambda x: torch.histogram(x, 4, range=(0., 3.)), [torch.tensor([1., float("nan"), 2.5, 3.5])]),
        ("nan data range rejected", lambda x: torch.histogram(x, 4), [torch.tensor([1., float("nan")])]),
        ("int rejected", lambda x: torch.histogram(x, 4), [dt(torch.int64, 5)]),
        ("weight dtype rejected", lambda x, w: torch.histogram(x, 3, weight=w), [f32(5), f64(5)]),
        ("range rejected", lambda x: torch.histogram(x, 3, range=(3., 1.)), [f32(5)])),
    # segment_reduce: each segment folded into `initial` (else the
    # identity); an empty segment's mean is NaN without it.
    "torch.segment_reduce": fixed(
        *[(f"{r} lengths{' initial' if init is not None else ''}",
           lambda x, n, r=r, init=init: torch.segment_reduce(x, r, lengths=n, initial=init),
           [f32(5), torch.tensor([2, 0, 3, 0])])
          for r in ("sum", "mean", "max", "min", "prod") for init in (None, 2)],
        *[(f"{r} offsets axis 1", lambda x, o, r=r: torch.segment_reduce(x, r, offsets=o, axis=1, initial=1.5),
           [f64(2, 6, 3), torch.tensor([[0, 1, 1, 6], [0, 4, 5, 6]])])
          for r in ("sum", "mean", "max")],
        ("lengths 2-D unsafe", lambda x, n: torch.segment_reduce(x, "min", lengths=n, axis=1, unsafe=True),
         [f32(3, 5), torch.tensor([[1, 2, 2], [0, 5, 0], [3, 0, 1]], dtype=torch.int32)]),
        ("nan", lambda x, n: torch.segment_reduce(x, "max", lengths=n),
         [torch.tensor([1., float("nan"), 2., float("nan"), 0.]), torch.tensor([2, 1, 2])]),
        ("bad lengths sum rejected", lambda x, n: torch.segment_reduce(x, "sum", lengths=n),
         [f32(5), torch.tensor([2, 2])]),
        ("negative length rejected", lambda x, n: torch.segment_reduce(x, "sum", lengths=n),
         [f32(3), torch.tensor([4, -1])]),
        ("int data rejected", lambda x, n: torch.segment_reduce(x, "sum", lengths=n),
         [dt(torch.int64, 3), torch.tensor([1, 2])]),
        ("reduce rejected", lambda x, n: torch.segment_reduce(x, "median", lengths=n),
         [f32(3), torch.tensor([1, 2])])),
    # index_reduce: scatter_reduce of the source's slices into the input's.
    "torch.index_reduce": chain(
        *[fixed(*[(f"{d} {r}{' exclude self' if not inc else ''}",
                   lambda x, s, r=r, inc=inc: torch.index_reduce(x, 0, torch.tensor([0, 2, 0, 3, 0]), s, r,
                                                                 include_self=inc),
                   [tensor((4, 3), d, low=-4, high=5), tensor((5, 3), d, low=-4, high=5)])
                  for r in ("prod", "mean", "amax", "amin") for inc in (True, False)])
          for d in (torch.float32, torch.float64, torch.int64, torch.int32, torch.uint8)],
        fixed(("dim 1 method", lambda x, s: x.index_reduce(1, torch.tensor([1, 1, 0]), s, "amax"),
               [f32(2, 4, 3), f32(2, 3, 3)]),
              ("0-d", lambda x, s: torch.index_reduce(x, 0, torch.tensor([0, 0]), s, "amin"), [f32(), f32(2)]),
              ("nan", lambda x, s: torch.index_reduce(x, 0, torch.tensor([0, 1]), s, "amin"),
               [torch.tensor([1., float("nan")]), torch.tensor([float("nan"), 2.])]),
              ("uint8 mean wraps", lambda x, s: torch.index_reduce(x, 0, torch.tensor([0, 0, 1]), s, "mean"),
               [torch.tensor([200, 100], dtype=torch.uint8), torch.tensor([250, 100, 3], dtype=torch.uint8)]),
              *[(f"bool {r}", lambda x, s, r=r: torch.index_reduce(x, 1, torch.tensor([0, 2, 0]), s, r),
                 [dt(torch.bool, 2, 3), dt(torch.bool, 2, 3)]) for r in ("prod", "amax", "amin")],
              ("bool mean rejected", lambda x, s: torch.index_reduce(x, 1, torch.tensor([0, 2, 0]), s, "mean"),
               [dt(torch.bool, 2, 3), dt(torch.bool, 2, 3)]),
              ("int32 index", lambda x, s, i: torch.index_reduce(x, 0, i, s, "mean"),
               [f32(3, 2), f32(2, 2), torch.tensor([2, 2], dtype=torch.int32)]),
              ("index out of range rejected", lambda x, s: torch.index_reduce(x, 0, torch.tensor([0, 3]), s, "prod"),
               [f32(3, 2), f32(2, 2)]),
              ("negative index rejected", lambda x, s: torch.index_reduce(x, 0, torch.tensor([0, -1]), s, "prod"),
               [f32(3, 2), f32(2, 2)]),
              ("sum rejected", lambda x, s: torch.index_reduce(x, 0, torch.tensor([0, 1]), s, "sum"),
               [f32(3, 2), f32(2, 2)]),
              ("bool rejected", lambda x, s: torch.index_reduce(x, 0, torch.tensor([0]), s, "amax"),
               [dt(torch.bool, 2), dt(torch.bool, 1)]))),
    # Casts: every dtype to every dtype, with special values.
    "Tensor.to": chain(
        fixed(*[(f"{a} to {b}", lambda x, b=b: x.to(b), [tensor((2, 5), a, special=True, low=-300, high=300)])
                for a in ALL_DTYPES for b in ALL_DTYPES]),
        fixed(("device", lambda x: x.to("cpu"), [f32(3)]),
              ("device and dtype", lambda x: x.to(torch.device("cpu"), torch.int32), [f32(3)]),
              ("like a tensor", lambda x, y: x.to(y), [f32(3), dt(torch.int16, 2)]),
              ("dtype= copy=", lambda x: x.to(dtype=torch.int8, copy=True), [f32(3)]),
              ("0-d", lambda x: x.to(torch.float64), [dt(torch.int32)]))),
    "Tensor.type_as": fixed(*[(f"{a} as {b}", lambda x, y: x.type_as(y), [dt(a, 3), dt(b, 2)])
                              for a, b in PAIRS]),
    **{f"Tensor.{m}": fixed(*[(f"{d}", lambda x, m=m: getattr(x, m)(), [tensor((2, 3), d, special=True, low=-300, high=300)])
                              for d in ALL_DTYPES])
       for m in ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte", "bool"]},

    # Indexing with tensors, and shape ops that copy.
    "torch.index_select": fixed(*[(f"{d} dim {k}", lambda x, i, k=k: torch.index_select(x, k, i),
                                   [dt(d, 3, 4), torch.tensor([2, 0, 2])]) for d in ALL_DTYPES for k in (0, -1)],
                                ("int32 index", lambda x, i: x.index_select(1, i), [f32(2, 3), torch.tensor([1], dtype=torch.int32)]),
                                ("0-d index", lambda x, i: x.index_select(0, i), [f32(3, 2), torch.tensor(1)]),
                                ("0-d input", lambda x, i: torch.index_select(x, 0, i), [f32(), torch.tensor([0, 0])]),
                                ("0-d input out of range", lambda x, i: torch.index_select(x, -1, i), [f32(), torch.tensor([-1])]),
                                ("empty index", lambda x, i: x.index_select(0, i), [f32(3, 2), torch.zeros(0, dtype=torch.int64)]),
                                # torch refuses an index of another dtype.
                                *[(f"{d} index", lambda x, i: x.index_select(0, i), [f32(3, 2), torch.tensor([1, 0], dtype=d)])
                                  for d in (torch.uint8, torch.int16, torch.bool)]),
    "torch.gather": fixed(*[(f"{d} dim {k}", lambda x, i, k=k: torch.gather(x, k, i),
                             [dt(d, 3, 4), torch.tensor([[0, 2], [1, 1]])]) for d in ALL_DTYPES for k in (0, 1)],
                          ("negative dim", lambda x, i: x.gather(-1, i), [f32(2, 3), torch.tensor([[2], [0]])])),
    # Data-dependent sizes: the trace's count, checked at run time
    # (python/tests/test_guards.py has an input that gives another).
    "torch.nonzero": fixed(
        ("special values", lambda x: torch.nonzero(x), [tensor((8,), torch.float32, special=True)]),
        ("2-d", lambda x: torch.nonzero(x), [torch.tensor([[0., 1.5, math.nan], [-0.0, 2.0, 0.0]])]),
        ("as_tuple", lambda x: torch.nonzero(x, as_tuple=True)[1], [torch.tensor([[0., 1.5, math.nan], [-0.0, 2.0, 0.0]])]),
        ("as_tuple 3-d", lambda x: x.nonzero(as_tuple=True)[2], [torch.tensor([[[1, 0], [0, 3]], [[0, 0], [5, 0]]])]),
        ("method bool", lambda x: x.nonzero(), [torch.tensor([True, False, True, True])]),
        ("0-d", lambda x: torch.nonzero(x), [torch.tensor(2.5)]),
        ("0-d zero", lambda x: torch.nonzero(x), [torch.tensor(0)]),
        ("0-d as_tuple", lambda x: torch.nonzero(x, as_tuple=True)[0], [torch.tensor(2.5)]),
        ("empty", lambda x: torch.nonzero(x), [f32(0, 3)]),
        ("none nonzero", lambda x: torch.nonzero(x), [torch.zeros(2, 3)]),
        ("aten", lambda x: torch.ops.aten.nonzero(x), [torch.tensor([1, 0, 3], dtype=torch.uint8)]),
        *[(f"{d}", lambda x: torch.nonzero(x), [dt(d, 3, 4)], EXACT, d) for d in ALL_DTYPES]),
    "torch.argwhere": fixed(
        ("2-d", lambda x: torch.argwhere(x), [torch.tensor([[1, 0], [0, 2]])]),
        ("method", lambda x: x.argwhere(), [torch.tensor([0.0, -1.0, math.inf])]),
        ("0-d", lambda x: torch.argwhere(x), [torch.tensor(True)])),
    "torch.masked_select": fixed(
        *[(f"{d}", lambda x, m: torch.masked_select(x, m),
           [dt(d, 3, 4), torch.arange(12).reshape(3, 4) % 3 == 1], EXACT, d) for d in ALL_DTYPES],
        ("method, broadcast mask", lambda x, m: x.masked_select(m), [f32(3, 4), torch.tensor([True, False, False, True])]),
        ("broadcast input", lambda x, m: torch.masked_select(x, m),
         [f32(4), torch.tensor([[True, False, True, False], [False, True, True, True]])]),
        ("0-d input", lambda x, m: torch.masked_select(x, m), [f32(), torch.tensor([True, False, True])]),
        ("0-d mask", lambda x, m: torch.masked_select(x, m), [f32(2, 3), torch.tensor(True)]),
        ("uint8 mask", lambda x, m: torch.masked_select(x, m),
         [f32(2, 3), torch.tensor([[1, 0, 1], [0, 0, 1]], dtype=torch.uint8)]),
        ("uint8 mask of 2", lambda x, m: torch.masked_select(x, m),
         [f32(2, 3), torch.tensor([[1, 0, 2], [0, 0, 1]], dtype=torch.uint8)]),
        ("none selected", lambda x, m: torch.masked_select(x, m), [f32(2, 3), torch.zeros(2, 3, dtype=torch.bool)]),
        ("empty", lambda x, m: torch.masked_select(x, m), [f32(0, 3), torch.ones(3, dtype=torch.bool)]),
        ("int64 mask", lambda x, m: torch.masked_select(x, m), [f32(2, 3), torch.ones(2, 3, dtype=torch.int64)]),
        ("shapes do not broadcast", lambda x, m: torch.masked_select(x, m),
         [f32(2, 3), torch.ones(2, 2, dtype=torch.bool)])),
    # (The harness compares one output: each sample picks one of the tuple.)
    "torch.functional.unique_consecutive": fixed(
        *[(f"{d} {what}", lambda x, k=k: torch.unique_consecutive(x, return_inverse=True, return_counts=True)[k],
           [torch.tensor([[1, 1, 2], [2, 0, 0]]).to(d)], EXACT, d)
          for d in ALL_DTYPES for k, what in enumerate(("values", "inverse", "counts"))],
        ("values only", lambda x: torch.unique_consecutive(x), [torch.tensor([3., 3., -0.0, 0.0, 1., 1.])]),
        *[(f"NaN runs {k}", lambda x, k=k: torch.unique_consecutive(x, return_counts=True)[k],
           [torch.tensor([1., math.nan, math.nan, 2., 2., math.inf, math.inf])]) for k in (0, 1)],
        ("inverse of a matrix", lambda x: x.unique_consecutive(return_inverse=True)[1],
         [torch.tensor([[1., 1.], [1., 1.], [2., 0.]])]),
        *[(f"dim {dim} {k}", lambda x, dim=dim, k=k: torch.unique_consecutive(
            x, return_inverse=True, return_counts=True, dim=dim)[k], [x])
          for dim, x in ((0, torch.tensor([[1., 1.], [1., 1.], [2., 0.], [2., 0.], [1., 1.]])),
                         (1, torch.tensor([[1, 1, 3, 3], [2, 2, 0, 4]])),
                         (-2, torch.tensor([[[1, 2], [1, 2], [0, 0]], [[5, 5], [5, 5], [5, 5]]])))
          for k in (0, 1, 2)],
        *[(f"one run {k}", lambda x, k=k: torch.unique_consecutive(x, return_inverse=True, return_counts=True)[k],
           [torch.full((2, 3), 7)]) for k in (0, 1, 2)],
        *[(f"0-d {k}", lambda x, k=k: torch.unique_consecutive(x, return_inverse=True, return_counts=True)[k],
           [f32()]) for k in (0, 1, 2)],
        *[(f"empty {k}", lambda x, k=k: torch.unique_consecutive(x, return_inverse=True, return_counts=True)[k],
           [f32(0, 3)]) for k in (0, 1, 2)],
        *[(f"empty dim 0 {k}", lambda x, k=k: torch.unique_consecutive(
            x, return_inverse=True, return_counts=True, dim=0)[k], [f32(0, 3)]) for k in (0, 1, 2)],
        ("dim of a 0-d tensor", lambda x: torch.unique_consecutive(x, dim=0), [f32()]),
        ("dim out of range", lambda x: torch.unique_consecutive(x, dim=2), [f32(2, 3)])),
    "torch.bincount": fixed(
        ("counts", lambda x: torch.bincount(x), [torch.tensor([1, 3, 1, 0, 3, 3])]),
        ("minlength", lambda x: torch.bincount(x, minlength=7), [torch.tensor([1, 3, 1])]),
        ("minlength below max", lambda x: x.bincount(minlength=2), [torch.tensor([4, 0])]),
        ("float32 weights", lambda x, w: torch.bincount(x, w), [torch.tensor([2, 0, 2, 1]), f32(4)], ACCUMULATE),
        ("float64 weights", lambda x, w: torch.bincount(x, w), [torch.tensor([2, 0, 2]), dt(torch.float64, 3)], ACCUMULATE),
        ("int weights", lambda x, w: torch.bincount(x, w), [torch.tensor([2, 0, 2]), torch.tensor([3, -1, 4])]),
        ("uint8 input", lambda x: torch.bincount(x), [torch.tensor([200, 3, 3], dtype=torch.uint8)]),
        ("int8 input", lambda x: torch.bincount(x, minlength=1), [torch.tensor([5, 0], dtype=torch.int8)]),
        ("empty", lambda x: torch.bincount(x), [torch.tensor([], dtype=torch.int64)]),
        ("empty minlength", lambda x: torch.bincount(x, minlength=3), [torch.tensor([], dtype=torch.int64)]),
        ("float input", lambda x: torch.bincount(x), [f32(3)])),
    "torch.nn.functional.embedding": fixed(
        ("2-d indices", lambda i, w: F.embedding(i, w), [torch.tensor([[1, 3], [0, 3]]), f32(5, 4)]),
        ("int32 indices", lambda i, w: F.embedding(i, w), [torch.tensor([4, 0], dtype=torch.int32), dt(torch.float64, 5, 2)]),
        ("padding_idx", lambda i, w: F.embedding(i, w, padding_idx=0), [torch.tensor([0, 1]), f32(3, 2)]),
        ("module", _EMBEDDING, [torch.tensor([[2, 1]])]),
        ("0-d index", lambda i, w: F.embedding(i, w), [torch.tensor(2), f32(3, 2)])),
    # Activation gradients: (grad_output, forward input or output). Where
    # torch's vectorized and scalar loops treat NaN differently (elu,
    # hardtanh), special values are left out: which loop runs depends on
    # the size.
    **{f"torch.ops.aten.{name}.default": fixed(
        *[(f"{d}", lambda g, x, call=call: call(g, x),
           [dt(d, 3, 4), tensor((3, 4), d, special=name not in ("elu_backward", "hardtanh_backward"))],
           TRANSCENDENTAL, d)
          for d in ALL_DTYPES],
        ("broadcast", lambda g, x, call=call: call(g, x), [f32(2, 1, 4), f32(3, 1)], TRANSCENDENTAL),
        ("int64 grad", lambda g, x, call=call: call(g, x), [dt(torch.int64, 3, 4), f32(3, 4)], TRANSCENDENTAL),
        # Compared in the promoted dtype: a uint8 input is not wrapped.
        ("uint8 input", lambda g, x, call=call: call(g, x), [dt(torch.float64, 3, 4), dt(torch.uint8, 3, 4)],
         TRANSCENDENTAL))
       for name, call in [
           # (An int threshold too: -1 must not wrap for a uint8 input; and
           # -1.75, which an integer dtype truncates to -1 before comparing.)
           ("threshold_backward", lambda g, x: torch.ops.aten.threshold_backward(g, x, 0.5)
            + torch.ops.aten.threshold_backward(g, x, -1)
            + torch.ops.aten.threshold_backward(g, x, -1.75)),
           ("tanh_backward", lambda g, y: torch.ops.aten.tanh_backward(g, y)),
           ("sigmoid_backward", lambda g, y: torch.ops.aten.sigmoid_backward(g, y)),
           ("leaky_relu_backward", lambda g, x: torch.ops.aten.leaky_relu_backward(g, x, 0.2, False)),
           ("hardtanh_backward", lambda g, x: torch.ops.aten.hardtanh_backward(g, x, -1.5, 2.0)),
           ("gelu_backward", lambda g, x: torch.ops.aten.gelu_backward(g, x)
            + torch.ops.aten.gelu_backward(g, x, approximate="tanh")),
           ("softplus_backward", lambda g, x: torch.ops.aten.softplus_backward(g, x, 2.0, 3.0)),
           ("elu_backward", lambda g, x: torch.ops.aten.elu_backward(g, 1.5, 1.2, 0.8, False, x)
            + torch.ops.aten.elu_backward(g, 1.5, 1.0, 1.0, True, x.clamp(min=-1.4)))]},
    "torch.ops.aten.rrelu_with_noise_backward.default": fixed(
        *[(f"{d} training {tr}", lambda g, x, n, tr=tr: torch.ops.aten.rrelu_with_noise_backward(
            g, x, n, 0.1, 0.9, tr, False), [dt(d, 3, 4), dt(d, 3, 4), positive((3, 4), d)])
          for d in (torch.float32, torch.float64, torch.bfloat16) for tr in (True, False)],
        # In training the noise is used whatever lower and upper are.
        ("training lower == upper", lambda g, x, n: torch.ops.aten.rrelu_with_noise_backward(
            g, x, n, 0.5, 0.5, True, True), [f32(3, 4), f32(3, 4), positive((3, 4), torch.float32)]),
        ("broadcast", lambda g, x, n: torch.ops.aten.rrelu_with_noise_backward(
            g, x, n, 0.1, 0.9, False, False) + torch.ops.aten.rrelu_with_noise_backward(
            g, x, n, 0.1, 0.9, True, False), [f32(4), f32(3, 4), positive((3, 1), torch.float32)]),
        ("int64 grad training", lambda g, x, n: torch.ops.aten.rrelu_with_noise_backward(
            g, x, n, 0.1, 0.9, True, False), [dt(torch.int64, 3), f32(3), positive((3,), torch.float32)]),
        ("int64 eval", lambda g, x, n: torch.ops.aten.rrelu_with_noise_backward(
            g, x, n, 0, 1, False, False), [dt(torch.int64, 3), dt(torch.int64, 3), dt(torch.int64, 3)]),
        ("self_is_result negative slope", lambda g, x, n: torch.ops.aten.rrelu_with_noise_backward(
            g, x, n, -0.9, -0.1, False, True), [f32(3), f32(3), f32(3)])),
    # Max unpooling of max pooling's own indices (and of hand-written ones:
    # out of range, negative, of another dtype).
    "torch.ops.aten.max_unpool2d.default": fixed(
        *[(f"{d} {name}", lambda x, d=d, k=k, st=st, out=out: torch.ops.aten.max_unpool2d(
            *F.max_pool2d(x, k, st, return_indices=True), out), [dt(d, *shape)])
          for d in (torch.float32, torch.float64)
          for name, shape, k, st, out in (("batched", (2, 2, 4, 8), 2, 2, (4, 8)),
                                          ("unbatched larger", (2, 4, 6), 2, 2, (5, 7)),
                                          ("overlapping windows", (1, 3, 5, 5), 3, 1, (5, 5)))],
        ("float32 to int64", lambda x: torch.ops.aten.max_unpool2d(
            *F.max_pool2d(x, 2, return_indices=True), (4, 4)).to(torch.int64), [f32(1, 2, 4, 4)]),
        ("index out of range", lambda x, i: torch.ops.aten.max_unpool2d(x, i, (2, 2)),
         [f32(1, 1, 2, 2), torch.tensor([[[[0, 1], [2, 4]]]])]),
        ("negative index", lambda x, i: torch.ops.aten.max_unpool2d(x, i, (2, 2)),
         [f32(1, 1, 1, 2), torch.tensor([[[[0, -1]]]])]),
        ("int32 indices", lambda x, i: torch.ops.aten.max_unpool2d(x, i, (2, 2)),
         [f32(1, 1, 1, 2), torch.tensor([[[[0, 1]]]], dtype=torch.int32)]),
        ("indices of another shape", lambda x, i: torch.ops.aten.max_unpool2d(x, i, (2, 2)),
         [f32(1, 1, 1, 2), torch.tensor([[[[0]]]])]),
        ("one output size", lambda x, i: torch.ops.aten.max_unpool2d(x, i, [4]),
         [f32(1, 1, 1, 2), torch.tensor([[[[0, 1]]]])]),
        ("2-d input", lambda x, i: torch.ops.aten.max_unpool2d(x, i, (2, 2)),
         [f32(1, 2), torch.tensor([[0, 1]])]),
        *[(f"{d}", lambda x, i: torch.ops.aten.max_unpool2d(x, i, (2, 2)),
           [dt(d, 1, 1, 1, 2), torch.tensor([[[[0, 3]]]])])
          for d in (torch.int64, torch.bfloat16, torch.float16, torch.bool)]),
    "torch.ops.aten.max_unpool3d.default": fixed(
        *[(f"{d} {name}", lambda x, k=k, st=st, p=p, out=out: torch.ops.aten.max_unpool3d(
            *F.max_pool3d(x, k, st, p, return_indices=True), out, st, p), [dt(d, *shape)])
          for d in (torch.float32, torch.float64)
          for name, shape, k, st, p, out in (
              ("padded", (2, 2, 4, 5, 6), 2, (2, 3, 2), (0, 0, 1), (4, 5, 6)),
              ("unbatched", (2, 4, 4, 4), 2, 2, 0, (4, 4, 4)))],
        ("zero stride", lambda x: torch.ops.aten.max_unpool3d(
            *F.max_pool3d(x, 2, return_indices=True), (4, 4, 4), (0, 2, 2), (0, 0, 0)), [f32(1, 1, 4, 4, 4)]),
        ("two strides", lambda x: torch.ops.aten.max_unpool3d(
            *F.max_pool3d(x, 2, return_indices=True), (4, 4, 4), (2, 2), (0, 0, 0)), [f32(1, 1, 4, 4, 4)])),
    **{f"torch.nn.functional.max_unpool{n}d": fixed(
        *[(f"{name}", lambda x, n=n, k=k, st=st, p=p, out=out: getattr(F, f"max_unpool{n}d")(
            *getattr(F, f"max_pool{n}d")(x, k, st, p, return_indices=True), k, st, p, out), [f32(*shape)])
          for name, shape, k, st, p, out in (
              ("default size", (2, 3) + (6,) * n, 2, None, 0, None),
              ("strided padded", (1, 2) + (7,) * n, 3, 2, 1, None),
              ("output_size", (2, 3) + (6,) * n, 2, None, 0, [7] * n),
              ("full output_size", (2, 3) + (6,) * n, 2, None, 0, [2, 3] + [7] * n),
              ("output_size too large", (2, 3) + (6,) * n, 2, None, 0, [8] * n),
              ("unbatched", (3,) + (4,) * n, 2, 2, 0, None))])
       for n in (1, 2, 3)},
    # (Values spread over several quantization steps and past the range.)
    **{name: fixed(
        *[(f"{d} {qn}", lambda x, sc=sc, zp=zp, lo=lo, hi=hi, call=call: call(x * 30, sc, zp, lo, hi),
           [dt(d, 4, 5)]) for d in (torch.float32, torch.float64, torch.float16)
          for qn, sc, zp, lo, hi in (("uint8", 0.1, 1, 0, 255), ("int8", 0.37, 0, -128, 127),
                                     ("narrow", 1.5, 3, -5, 10))],
        ("special", lambda x, call=call: call(x, 0.25, 2, -3, 9),
         [tensor((8,), torch.float32, special=True)]),
        ("halfway points", lambda x, call=call: call(x, 0.5, 0, -100, 100),
         [torch.tensor([0.25, 0.75, -0.25, -1.25, 2.75, 1e9, -1e9])]),
        ("0-d", lambda x, call=call: call(x, 0.1, 1, 0, 255), [f32()]),
        ("quant_min above quant_max", lambda x, call=call: call(x, 0.1, 1, 255, 0), [f32(3)]),
        ("zero_point outside", lambda x, call=call: call(x, 0.1, 300, 0, 255), [f32(3)]),
        *[(f"{d}", lambda x, call=call: call(x, 0.1, 1, 0, 255), [dt(d, 3)])
          for d in (torch.bfloat16, torch.int64, torch.bool)])
       for name, call in (
           ("torch.fake_quantize_per_tensor_affine", torch.fake_quantize_per_tensor_affine),
           ("torch.ops.aten.fake_quantize_per_tensor_affine_cachemask.default",
            lambda *a: torch.ops.aten.fake_quantize_per_tensor_affine_cachemask(*a)[0]
            * torch.ops.aten.fake_quantize_per_tensor_affine_cachemask(*a)[1]))},
    # (Sizes equal, doubled and in between, scales given and not; the
    # gradients of a forward upsample_nearest are these sums.)
    **{f"torch.ops.aten.upsample_nearest{n}d_backward.default": fixed(
        *[(f"{d} {name}", lambda g, n=n, out=out, inp=inp, sc=sc: getattr(
            torch.ops.aten, f"upsample_nearest{n}d_backward")(g, out, inp, *sc),
           [dt(d, *((2, 3) + tuple(out)))], ACCUMULATE)
          for d in (torch.float32, torch.float64, torch.bfloat16)
          for name, out, inp, sc in (
              ("up", [7] * n, [2, 3] + [3] * n, ()),
              ("doubled, scale ignored", [6] * n, [2, 3] + [3] * n, (2.7,) * n),
              ("down with scales", [4] * n, [2, 3] + [6] * n, (0.6,) * n),
              ("mixed", [5] + [4] * (n - 1), [2, 3] + [5] + [2] * (n - 1), ()))],
        ("wrong grad shape", lambda g, n=n: getattr(torch.ops.aten, f"upsample_nearest{n}d_backward")(
            g, [7] * n, [2, 3] + [3] * n), [f32(*((2, 3) + (6,) * n))]),
        ("short input_size", lambda g, n=n: getattr(torch.ops.aten, f"upsample_nearest{n}d_backward")(
            g, [7] * n, [2] + [3] * n), [f32(*((2, 3) + (7,) * n))]),
        *[(f"{d}", lambda g, n=n: getattr(torch.ops.aten, f"upsample_nearest{n}d_backward")(
            g, [4] * n, [1, 2] + [2] * n), [dt(d, *((1, 2) + (4,) * n))])
          for d in (torch.float16, torch.int64)])
       for n in (1, 2, 3)},
    "torch.ops.aten.slice.Tensor": fixed(
        *[(f"{d}", lambda x: torch.ops.aten.slice(x, 1, 1, 5, 2), [dt(d, 3, 6)]) for d in ALL_DTYPES],
        ("defaults", lambda x: torch.ops.aten.slice.Tensor(x), [f32(3, 2)]),
        ("negative bounds", lambda x: torch.ops.aten.slice(x, -1, -4, -1), [f32(2, 5)]),
        ("past the end", lambda x: torch.ops.aten.slice(x, 0, 7, 9), [f32(7, 2)]),
        ("clamped end", lambda x: torch.ops.aten.slice(x, 0, 1, 9223372036854775807), [f32(4, 2)]),
        ("empty", lambda x: torch.ops.aten.slice(x, 0, 3, 1), [f32(4, 2)]),
        ("step 3", lambda x: torch.ops.aten.slice(x, 2, None, None, 3), [f32(2, 2, 7)]),
        ("zero step", lambda x: torch.ops.aten.slice(x, 0, 0, 2, 0), [f32(4)]),
        ("0-d", lambda x: torch.ops.aten.slice(x, 0), [f32()])),
    "torch.ops.aten.index.Tensor": fixed(
        *[(f"{d}", lambda x, i: torch.ops.aten.index(x, [i]), [dt(d, 4, 3), torch.tensor([3, 0, -1])])
          for d in ALL_DTYPES],
        ("None first", lambda x, i: torch.ops.aten.index(x, [None, i]), [f32(2, 5, 3), torch.tensor([[4, 0], [1, 1]])]),
        ("two broadcast", lambda x, i, j: torch.ops.aten.index(x, [i, j]),
         [f32(3, 4, 2), torch.tensor([[0], [2]]), torch.tensor([1, 3, 0])]),
        ("separated", lambda x, i, j: torch.ops.aten.index.Tensor(x, [i, None, j]),
         [f32(3, 4, 5), torch.tensor([0, 2]), torch.tensor([4, 1])]),
        ("bool mask", lambda x, m: torch.ops.aten.index(x, [m]), [f32(3, 2), torch.tensor([True, False, True])]),
        ("int32 index", lambda x, i: torch.ops.aten.index(x, [i]), [f32(5), torch.tensor([4, 0], dtype=torch.int32)]),
        ("out of range", lambda x, i: torch.ops.aten.index(x, [i]), [f32(3), torch.tensor([3])])),
    "torch.nn.functional.bilinear": fixed(
        *[(f"{d}", lambda a, b, w, c: F.bilinear(a, b, w, c), [dt(d, 2, 3), dt(d, 2, 4), dt(d, 5, 3, 4), dt(d, 5)],
           ACCUMULATE, d) for d in ALL_DTYPES],
        ("batched no bias", lambda a, b, w: F.bilinear(a, b, w), [f32(2, 3, 2), f32(2, 3, 4), f32(1, 2, 4)], ACCUMULATE),
        ("module", torch.nn.Bilinear(3, 2, 4), [f32(5, 3), f32(5, 2)], ACCUMULATE),
        ("mismatch", lambda a, b, w: F.bilinear(a, b, w), [f32(2, 3), f32(3, 4), f32(5, 3, 4)])),
    "torch.linalg.det": fixed(
        *[(f"{d}", torch.linalg.det, [dt(d, 3, 3)], ACCUMULATE, d) for d in ALL_DTYPES],
        ("batched", lambda a: torch.det(a), [f32(2, 4, 4)], ACCUMULATE),
        ("singular", lambda a: torch.linalg.det(a * 0), [f32(3, 3)]),
        ("0x0", torch.linalg.det, [f32(0, 0)]),
        ("not square", torch.linalg.det, [f32(2, 3)])),
    "torch.linalg.slogdet": fixed(
        *[(f"{d} {k}", lambda a, k=k: torch.linalg.slogdet(a)[k], [dt(d, 3, 3)], ACCUMULATE, d)
          for d in ALL_DTYPES for k in range(2)],
        ("batched", lambda a: torch.slogdet(a)[1], [f32(2, 4, 4)], ACCUMULATE),
        ("singular", lambda a: torch.linalg.slogdet(a * 0)[0], [f32(2, 2)])),
    "torch.linalg.inv": fixed(
        *[(f"{d}", lambda a: torch.linalg.inv(a + 4 * torch.eye(3, dtype=a.dtype)), [dt(d, 3, 3)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64)],
        ("batched", lambda a: torch.inverse(a + 5 * torch.eye(4)), [f32(2, 4, 4)], ACCUMULATE),
        ("singular", lambda a: torch.linalg.inv(a * 0), [f32(2, 2)])),
    # Factorizations over LAPACK (docs/linalg-runtime.md).
    "torch.linalg.cholesky": fixed(
        *[(f"{d} {u}", lambda a, u=u: torch.linalg.cholesky(a, upper=u), [spd(4, 4, dtype=d)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for u in (False, True)],
        ("batched", torch.linalg.cholesky, [spd(2, 3, 5, 5)], ACCUMULATE),
        ("0x0", torch.linalg.cholesky, [f32(0, 0)]),
        ("int", torch.linalg.cholesky, [torch.eye(3, dtype=torch.int64)]),
        ("not positive-definite", lambda a: torch.linalg.cholesky(-a), [spd(3, 3)]),
        ("not square", torch.linalg.cholesky, [f32(2, 3)])),
    "torch.linalg.cholesky_ex": fixed(
        *[(f"{d} {k}", lambda a, k=k: torch.linalg.cholesky_ex(a)[k], [spd(2, 4, 4, dtype=d)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for k in range(2)],
        ("upper", lambda a: torch.linalg.cholesky_ex(a, upper=True)[0], [spd(3, 3)], ACCUMULATE),
        ("failing info", lambda a: torch.linalg.cholesky_ex(-a)[1], [spd(2, 3, 3)]),
        ("check_errors", lambda a: torch.linalg.cholesky_ex(-a, check_errors=True)[0], [spd(3, 3)])),
    "torch.cholesky": fixed(
        ("lower", torch.cholesky, [spd(4, 4)], ACCUMULATE),
        ("upper", lambda a: torch.cholesky(a, upper=True), [spd(2, 4, 4, dtype=torch.float64)], ACCUMULATE),
        ("method", lambda a: a.cholesky(), [spd(3, 3)], ACCUMULATE)),
    "torch.linalg.lu_factor": fixed(
        *[(f"{d} {m}x{n} {k}", lambda a, k=k: torch.linalg.lu_factor(a)[k], [dt(d, m, n)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for (m, n) in ((4, 4), (3, 5), (5, 2)) for k in range(2)],
        ("batched", lambda a: torch.linalg.lu_factor(a)[0], [f32(2, 3, 4, 4)], ACCUMULATE),
        ("singular", lambda a: torch.linalg.lu_factor(a * 0)[0], [f32(3, 3)]),
        ("no pivot", lambda a: torch.linalg.lu_factor(a, pivot=False)[0], [f32(3, 3)])),
    "torch.linalg.lu_factor_ex": fixed(
        *[(f"{d} {k}", lambda a, k=k: torch.linalg.lu_factor_ex(a)[k], [dt(d, 2, 4, 3)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for k in range(3)],
        ("singular info", lambda a: torch.linalg.lu_factor_ex(a * 0)[2], [f32(2, 3, 3)])),
    "torch.linalg.solve": fixed(
        *[(f"{d} matrix", torch.linalg.solve, [well_conditioned(4, 4, dtype=d), dt(d, 4, 2)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64)],
        ("vector", torch.linalg.solve, [well_conditioned(5, 5), f32(5)], ACCUMULATE),
        ("batched vector", torch.linalg.solve, [well_conditioned(2, 3, 3), f32(2, 3)], ACCUMULATE),
        ("broadcast", torch.linalg.solve, [well_conditioned(2, 1, 3, 3), f32(4, 3, 2)], ACCUMULATE),
        ("right", lambda a, b: torch.linalg.solve(a, b, left=False), [well_conditioned(3, 3), f32(2, 3)], ACCUMULATE),
        ("singular", lambda a, b: torch.linalg.solve(a * 0, b), [f32(3, 3), f32(3)]),
        ("int", torch.linalg.solve, [torch.eye(2, dtype=torch.int64), torch.ones(2, dtype=torch.int64)])),
    "torch.linalg.solve_ex": fixed(
        *[(f"{d} {k}", lambda a, b, k=k: torch.linalg.solve_ex(a, b)[k], [well_conditioned(2, 3, 3, dtype=d), dt(d, 3, 1)],
           ACCUMULATE, d) for d in (torch.float32, torch.float64) for k in range(2)],
        ("singular info", lambda a, b: torch.linalg.solve_ex(a * 0, b)[1], [f32(3, 3), f32(3)])),
    "torch.linalg.inv_ex": fixed(
        *[(f"{d} {k}", lambda a, k=k: torch.linalg.inv_ex(a)[k], [well_conditioned(2, 4, 4, dtype=d)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for k in range(2)],
        ("0x0", lambda a: torch.linalg.inv_ex(a)[0], [f32(0, 0)]),
        ("singular info", lambda a: torch.linalg.inv_ex(a * 0)[1], [f32(3, 3)]),
        ("check_errors", lambda a: torch.linalg.inv_ex(a * 0, check_errors=True)[0], [f32(3, 3)])),
    "torch.linalg.qr": fixed(
        *[(f"{d} {m}x{n} {mode} {k}", lambda a, mode=mode, k=k: torch.linalg.qr(a, mode)[k], [dt(d, m, n)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for (m, n) in ((4, 4), (5, 3), (3, 5)) for mode in ("reduced", "complete") for k in range(2)],
        ("r", lambda a: torch.linalg.qr(a, mode="r")[1], [f32(2, 5, 3)], ACCUMULATE),
        ("batched", lambda a: torch.linalg.qr(a)[0], [f32(2, 3, 4, 2)], ACCUMULATE),
        ("bad mode", lambda a: torch.linalg.qr(a, mode="full")[0], [f32(3, 3)])),
    "torch.qr": fixed(
        *[(f"some={some} {k}", lambda a, some=some, k=k: torch.qr(a, some)[k], [f32(5, 3)], ACCUMULATE)
          for some in (True, False) for k in range(2)]),
    "torch.linalg.svd": fixed(
        *[(f"{d} {m}x{n} {full} {k}", lambda a, full=full, k=k: torch.linalg.svd(a, full_matrices=full)[k],
           [dt(d, m, n)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for (m, n) in ((4, 4), (5, 3), (3, 5)) for full in (True, False) for k in range(3)],
        ("batched", lambda a: torch.linalg.svd(a)[0], [f32(2, 3, 4)], ACCUMULATE),
        ("0x3", lambda a: torch.linalg.svd(a)[2], [f32(0, 3)]),
        ("int", lambda a: torch.linalg.svd(a)[1], [torch.eye(2, dtype=torch.int64)])),
    "torch.svd": fixed(
        *[(f"some={some} uv={uv} {k}", lambda a, some=some, uv=uv, k=k: torch.svd(a, some, uv)[k], [f32(5, 3)], ACCUMULATE)
          for some in (True, False) for uv in (True, False) for k in range(3)]),
    "torch.linalg.svdvals": fixed(
        *[(f"{d}", torch.linalg.svdvals, [dt(d, 2, 5, 3)], ACCUMULATE, d) for d in (torch.float32, torch.float64)],
        ("wide", torch.linalg.svdvals, [f32(3, 6)], ACCUMULATE)),
    "torch.linalg.eigh": fixed(
        *[(f"{d} {uplo} {k}", lambda a, uplo=uplo, k=k: torch.linalg.eigh(a, UPLO=uplo)[k], [dt(d, 4, 4)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for uplo in ("L", "U") for k in range(2)],
        ("batched", lambda a: torch.linalg.eigh(a)[1], [spd(2, 5, 5)], ACCUMULATE),
        ("0x0", lambda a: torch.linalg.eigh(a)[0], [f32(0, 0)]),
        ("bad UPLO", lambda a: torch.linalg.eigh(a, UPLO="X")[0], [f32(3, 3)])),
    "torch.linalg.eigvalsh": fixed(
        *[(f"{d} {uplo}", lambda a, uplo=uplo: torch.linalg.eigvalsh(a, UPLO=uplo), [dt(d, 2, 4, 4)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for uplo in ("L", "U")]),
    "torch.linalg.solve_triangular": fixed(
        *[(f"{d} upper={u} left={l} unit={un}",
           lambda a, b, u=u, l=l, un=un: torch.linalg.solve_triangular(a, b, upper=u, left=l, unitriangular=un),
           [triangular(3, 3, dtype=d, upper=u), dt(d, 3, 3)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for u in (True, False) for l in (True, False) for un in (True, False)],
        ("broadcast", lambda a, b: torch.linalg.solve_triangular(a, b, upper=True),
         [triangular(2, 1, 3, 3), f32(4, 3, 2)], ACCUMULATE)),
    "torch.triangular_solve": fixed(
        *[(f"upper={u} transpose={t} {k}",
           lambda b, a, u=u, t=t, k=k: torch.triangular_solve(b, a, upper=u, transpose=t)[k],
           [f32(4, 2), triangular(4, 4, upper=u)], ACCUMULATE)
          for u in (True, False) for t in (True, False) for k in range(2)],
        ("unit", lambda b, a: torch.triangular_solve(b, a, unitriangular=True)[0],
         [f32(2, 3, 2), triangular(3, 3)], ACCUMULATE)),
    "torch.linalg.lu_solve": fixed(
        *[(f"{d} left={l} adjoint={adj}",
           lambda a, b, l=l, adj=adj: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, left=l, adjoint=adj),
           [well_conditioned(2, 3, 3, dtype=d), dt(d, 3, 3)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for l in (True, False) for adj in (True, False)],
        ("given factors", lambda lu, b: torch.linalg.lu_solve(lu, torch.tensor([2, 2, 3], dtype=torch.int32), b),
         [well_conditioned(3, 3), f32(3, 2)], ACCUMULATE)),
    "torch.lu_solve": fixed(
        ("batched", lambda a, b: torch.lu_solve(b, *torch.linalg.lu_factor(a)), [well_conditioned(2, 4, 4), f32(2, 4, 1)],
         ACCUMULATE)),
    "torch.cholesky_solve": fixed(
        *[(f"{d} upper={u}", lambda a, b, u=u: torch.cholesky_solve(b, torch.linalg.cholesky(a, upper=u), upper=u),
           [spd(2, 4, 4, dtype=d), dt(d, 4, 3)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for u in (False, True)],
        ("vector", lambda a, b: torch.cholesky_solve(b, a), [f32(3, 3), f32(3)])),
    "torch.cholesky_inverse": fixed(
        *[(f"{d} upper={u}", lambda a, u=u: torch.cholesky_inverse(torch.linalg.cholesky(a, upper=u), upper=u),
           [spd(2, 4, 4, dtype=d)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for u in (False, True)],
        ("0x0", torch.cholesky_inverse, [f32(0, 0)]),
        ("singular", lambda a: torch.cholesky_inverse(a * 0), [f32(3, 3)])),
    "torch.linalg.lu": fixed(
        *[(f"{d} {m}x{n} {k}", lambda a, k=k: torch.linalg.lu(a)[k], [dt(d, 2, m, n)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for (m, n) in ((4, 4), (3, 5), (5, 3)) for k in range(3)],
        ("no pivot", lambda a: torch.linalg.lu(a, pivot=False)[0], [f32(3, 3)])),
    "torch.lu_unpack": fixed(
        *[(f"{d} {m}x{n} data={ud} pivots={up} {k}",
           lambda a, ud=ud, up=up, k=k: torch.lu_unpack(*torch.linalg.lu_factor(a), ud, up)[k], [dt(d, m, n)],
           ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for (m, n) in ((4, 4), (3, 5), (5, 3)) for ud in (True, False) for up in (True, False)
          for k in range(3)],
        ("int64 pivots", lambda lu, p: torch.lu_unpack(lu, p)[0], [f32(3, 3), torch.tensor([1, 2, 3])])),
    "torch.functional.lu": fixed(
        *[(f"{d} infos={i} {k}", lambda a, i=i, k=k: torch.functional.lu(a, True, i)[k], [dt(d, 2, 4, 3)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for i in (False, True) for k in range(3 if i else 2)],
        ("singular", lambda a: torch.functional.lu(a * 0)[0], [f32(3, 3)])),
    "torch.symeig": fixed(
        *[(f"{d} vectors={v} upper={u} {k}",
           lambda a, v=v, u=u, k=k: torch.symeig(a, eigenvectors=v, upper=u)[k], [dt(d, 4, 4)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for v in (False, True) for u in (False, True) for k in range(2)]),
    "torch.geqrf": fixed(
        *[(f"{d} {m}x{n} {k}", lambda a, k=k: torch.geqrf(a)[k], [dt(d, 2, m, n)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for (m, n) in ((4, 4), (5, 3), (3, 5)) for k in range(2)]),
    "torch.linalg.householder_product": fixed(
        *[(f"{d} {m}x{n} k={k}", torch.linalg.householder_product, [dt(d, 2, m, n), dt(d, 2, k)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for (m, n, k) in ((4, 4, 4), (6, 5, 3), (5, 2, 2))],
        ("from geqrf", lambda a: torch.linalg.householder_product(*torch.geqrf(a)), [f32(5, 3)], ACCUMULATE),
        ("tau too long", torch.linalg.householder_product, [f32(4, 3), f32(4)])),
    "torch.ormqr": fixed(
        *[(f"{d} left={l} transpose={tr}",
           lambda a, c, l=l, tr=tr: torch.ormqr(*torch.geqrf(a), c, left=l, transpose=tr),
           [dt(d, 2, 4, 3), dt(d, 2, 4, 4)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for l in (True, False) for tr in (True, False)],
        ("wide", lambda a, t, c: torch.ormqr(a, t, c), [f32(5, 2), f32(2), f32(5, 3)], ACCUMULATE)),
    "torch.logdet": fixed(
        *[(f"{d}", torch.logdet, [well_conditioned(2, 3, 3, dtype=d)], ACCUMULATE, d) for d in (torch.float32, torch.float64)],
        ("negative determinant", lambda a: torch.logdet(a * torch.tensor([-1.0, 1.0, 1.0])), [well_conditioned(3, 3)],
         ACCUMULATE),
        ("singular", lambda a: torch.logdet(a * 0), [f32(2, 2)]),
        ("0x0", torch.logdet, [f32(0, 0)])),
    "torch.linalg.matrix_rank": fixed(
        *[(f"{d} {m}x{n}", torch.linalg.matrix_rank, [dt(d, 2, m, n)], None, d)
          for d in (torch.float32, torch.float64) for (m, n) in ((4, 4), (5, 3), (3, 5))],
        ("low rank", lambda a, b: torch.linalg.matrix_rank(a @ b), [f32(5, 2), f32(2, 5)]),
        ("atol", lambda a: torch.linalg.matrix_rank(a, atol=3.0), [f32(4, 4)]),
        ("atol rtol", lambda a: torch.linalg.matrix_rank(a, atol=1.0, rtol=0.5), [f32(4, 4)]),
        ("hermitian", lambda a: torch.linalg.matrix_rank(a + a.mT, hermitian=True), [f32(2, 4, 4)]),
        ("0x0", torch.linalg.matrix_rank, [f32(0, 0)])),
    "torch.linalg.cond": fixed(
        *[(f"{d} p={p}", lambda a, p=p: torch.linalg.cond(a, p), [dt(d, 2, 4, 4)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for p in (None, 2, -2)],
        ("rectangular", torch.linalg.cond, [f32(5, 3)], ACCUMULATE)),
    "torch.linalg.tensorinv": fixed(
        *[(f"{d} ind={i}", lambda a, i=i: torch.linalg.tensorinv(a, ind=i), [a], ACCUMULATE, d)
          for d in (torch.float32, torch.float64)
          for (i, a) in ((2, well_conditioned(12, 12, dtype=d).reshape(4, 3, 6, 2)),
                         (1, well_conditioned(6, 6, dtype=d).reshape(6, 2, 3)),
                         (3, well_conditioned(6, 6, dtype=d).reshape(2, 3, 1, 6)))],
        ("shapes differ", lambda a: torch.linalg.tensorinv(a, ind=1), [f32(2, 3, 6)]),
        ("ind 0", lambda a: torch.linalg.tensorinv(a, ind=0), [f32(2, 2)]),
        ("singular", lambda a: torch.linalg.tensorinv(a * 0, ind=1), [f32(2, 2)]),
        ("int", lambda a: torch.linalg.tensorinv(a, ind=1), [torch.eye(2, dtype=torch.int64)])),
    "torch.linalg.tensorsolve": fixed(
        *[(f"{d} dims={dims}", lambda a, b, dims=dims: torch.linalg.tensorsolve(a, b, dims=dims), [a, dt(d, *bs)],
           ACCUMULATE, d)
          for d in (torch.float32, torch.float64)
          for (dims, a, bs) in ((None, well_conditioned(6, 6, dtype=d).reshape(2, 3, 6), (2, 3)),
                                ((0, 2), well_conditioned(6, 6, dtype=d).reshape(2, 3, 6), (3, 2)),
                                ((0,), well_conditioned(6, 6, dtype=d).reshape(6, 2, 3), (2, 3)))],
        ("products differ", torch.linalg.tensorsolve, [f32(2, 3, 6), f32(6)]),
        ("dtypes differ", torch.linalg.tensorsolve, [f32(2, 3, 6), f64(2, 3)]),
        ("singular", lambda a, b: torch.linalg.tensorsolve(a * 0, b), [f32(2, 3, 6), f32(2, 3)])),
    "torch.linalg.lstsq": fixed(
        *[(f"{d} {drv} {m}x3 {k}", lambda a, b, drv=drv, k=k: torch.linalg.lstsq(a, b, driver=drv)[k],
           [dt(d, 2, m, 3), dt(d, 2, m, 2)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for drv in ("gels", "gelsy", "gelsd", "gelss")
          for m in (2, 3, 5) for k in range(4) if drv != "gels" or m >= 3],
        ("default driver", lambda a, b: torch.linalg.lstsq(a, b)[0], [f32(4, 3), f32(4, 2)], ACCUMULATE),
        ("vector", lambda a, b: torch.linalg.lstsq(a, b, driver="gels")[1], [f32(2, 4, 3), f32(2, 4)], ACCUMULATE),
        ("broadcast", lambda a, b: torch.linalg.lstsq(a, b, driver="gelsd")[0], [f32(2, 1, 4, 3), f32(3, 4, 2)],
         ACCUMULATE),
        # (A column 1e4 times smaller than the others: rank 2. Not gelsy:
        # torch 1.13 passes it an uninitialized pivot array for the first
        # matrix, which marks columns as leading at random, so torch's own
        # solution of a rank-deficient problem changes from run to run:
        # 0.185 off ours in one process, equal in another.)
        *[(f"rcond {drv} {k}",
           lambda a, b, drv=drv, k=k: torch.linalg.lstsq(a * torch.tensor([1.0, 1.0, 1e-4]), b, 1e-2, driver=drv)[k],
           [f32(2, 4, 3), f32(2, 4, 1)], ACCUMULATE) for drv in ("gelsd", "gelss") for k in (0, 2)],
        ("rank-deficient gelsd", lambda a, b: torch.linalg.lstsq(a * 0 + 1, b, driver="gelsd")[1], [f32(4, 3), f32(4, 1)]),
        ("rank-deficient gels", lambda a, b: torch.linalg.lstsq(a * 0 + 1, b, driver="gels")[0], [f32(4, 3), f32(4, 1)]),
        ("bad driver", lambda a, b: torch.linalg.lstsq(a, b, driver="gelsx")[0], [f32(4, 3), f32(4, 1)]),
        ("dtypes differ", lambda a, b: torch.linalg.lstsq(a, b)[0], [f32(4, 3), f64(4, 1)]),
        ("rows differ", lambda a, b: torch.linalg.lstsq(a, b)[0], [f32(4, 3), f32(3, 1)])),
    "torch.linalg.ldl_factor": fixed(
        *[(f"{d} {k}", lambda a, k=k: torch.linalg.ldl_factor(a + a.mT)[k], [dt(d, 2, 5, 5)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for k in range(2)],
        ("0x0", lambda a: torch.linalg.ldl_factor(a)[0], [f32(0, 0)]),
        ("not square", lambda a: torch.linalg.ldl_factor(a)[0], [f32(3, 4)])),
    "torch.linalg.ldl_factor_ex": fixed(
        *[(f"{d} {k}", lambda a, k=k: torch.linalg.ldl_factor_ex(a + a.mT)[k], [dt(d, 5, 5)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for k in range(3)],
        ("singular info", lambda a: torch.linalg.ldl_factor_ex(a * 0)[2], [f32(2, 3, 3)])),
    "torch.linalg.ldl_solve": fixed(
        *[(f"{d}", lambda a, b: torch.linalg.ldl_solve(*torch.linalg.ldl_factor(a + a.mT), b),
           [well_conditioned(2, 5, 5, dtype=d), dt(d, 5, 3)], ACCUMULATE, d) for d in (torch.float32, torch.float64)],
        ("broadcast", lambda a, b: torch.linalg.ldl_solve(*torch.linalg.ldl_factor(a + a.mT), b),
         [well_conditioned(4, 4), f32(2, 4, 1)], ACCUMULATE),
        ("given factors", torch.linalg.ldl_solve,
         [well_conditioned(3, 3), torch.tensor([1, -3, -3], dtype=torch.int32), f32(3, 2)], ACCUMULATE),
        ("rows differ", torch.linalg.ldl_solve, [f32(3, 3), torch.tensor([1, 2, 3], dtype=torch.int32), f32(4, 1)])),
    "torch.linalg.matrix_exp": fixed(
        *[(f"{d} {scale}", lambda a, scale=scale: torch.linalg.matrix_exp(a * scale), [dt(d, 2, 5, 5)],
           ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for scale in (1e-9, 1e-4, 0.01, 0.1, 0.3, 1.0)],
        ("large", lambda a: torch.matrix_exp(a), [dt(torch.float64, 3, 3) * 3], ACCUMULATE),
        ("8x8", lambda a: torch.linalg.matrix_exp(a / 8), [f32(2, 8, 8)], ACCUMULATE),
        ("1x1", torch.linalg.matrix_exp, [f32(3, 1, 1)], ACCUMULATE),
        ("0x0", torch.linalg.matrix_exp, [f32(0, 0)]),
        ("not square", torch.linalg.matrix_exp, [f32(3, 4)])),
    "torch.linalg.pinv": fixed(
        *[(f"{d} {m}x{n}", torch.linalg.pinv, [dt(d, 2, m, n)], ACCUMULATE, d)
          for d in (torch.float32, torch.float64) for (m, n) in ((4, 4), (5, 3), (3, 5))],
        ("rtol", lambda a: torch.linalg.pinv(a, rtol=0.5), [f32(4, 4)], ACCUMULATE),
        ("atol", lambda a: torch.linalg.pinv(a, atol=2.0), [f32(4, 4)], ACCUMULATE),
        ("rcond", lambda a: torch.linalg.pinv(a, 0.3), [f32(3, 4)], ACCUMULATE),
        ("hermitian", lambda a: torch.linalg.pinv(a + a.mT, hermitian=True), [f32(2, 4, 4)], ACCUMULATE),
        ("0x3", torch.linalg.pinv, [f32(0, 3)])),
    "torch.pinverse": fixed(
        ("default", torch.pinverse, [f32(2, 4, 3)], ACCUMULATE),
        ("rcond", lambda a: torch.pinverse(a, rcond=0.2), [f64(4, 4)], ACCUMULATE),
        ("0x0", torch.pinverse, [f32(0, 0)])),
    "torch.nn.functional.poisson_nll_loss": fixed(
        *[(f"{d}", lambda x, t: F.poisson_nll_loss(x, t), [dt(d, 3, 4), positive((3, 4), d)], TRANSCENDENTAL, d)
          for d in FLOAT_DTYPES],
        ("not log input full", lambda x, t: F.poisson_nll_loss(x, t, log_input=False, full=True, reduction="none"),
         [positive((3, 4), torch.float32), positive((3, 4), torch.float32)], TRANSCENDENTAL),
        ("sum", lambda x, t: F.poisson_nll_loss(x, t, reduction="sum", eps=0.1), [f32(5), f32(5)], TRANSCENDENTAL),
        ("module", torch.nn.PoissonNLLLoss(full=True), [f32(2, 3), positive((2, 3), torch.float32)], TRANSCENDENTAL),
        # Typed as torch composes it: a 0-d target gives way to the
        # dimensioned log (float32 here, float64 with log_input), integers
        # compute in float.
        ("uint8 0-d f64 target", lambda x, t: F.poisson_nll_loss(x, t, log_input=False, reduction="sum"),
         [positive((1, 4), torch.uint8), positive((), torch.float64)], TRANSCENDENTAL),
        ("uint8 0-d f64 target log", lambda x, t: F.poisson_nll_loss(x, t, reduction="none"),
         [positive((1, 4), torch.uint8), positive((), torch.float64)], TRANSCENDENTAL),
        ("bf16 0-d f32 target full", lambda x, t: F.poisson_nll_loss(x, t, full=True, reduction="none"),
         [positive((2, 3), torch.bfloat16), dt(torch.float32).abs() + 2], TRANSCENDENTAL),
        ("int64 int32", lambda x, t: F.poisson_nll_loss(x, t, log_input=False, reduction="mean"),
         [positive((2, 3), torch.int64), positive((2, 3), torch.int32)], TRANSCENDENTAL)),
    "torch.is_floating_point": fixed(
        *[(f"{d}", lambda x: x * 2 if torch.is_floating_point(x) else x + 1, [dt(d, 2)]) for d in ALL_DTYPES]),
    "torch.broadcast_tensors": fixed(
        ("three", lambda a, b, c: torch.broadcast_tensors(a, b, c)[1], [f32(2, 1), dt(torch.int64, 3), f32(1, 1, 1)]),
        ("dtypes kept", lambda a, b: torch.broadcast_tensors(a, b)[0], [dt(torch.int32, 3), f32(2, 3)]),
        ("mismatch", lambda a, b: torch.broadcast_tensors(a, b)[0], [f32(2), f32(3)])),
    "torch.isclose": fixed(
        *[(f"{d}", lambda a, b: torch.isclose(a, b), [dt(d, 3, 4), dt(d, 3, 4)]) for d in ALL_DTYPES],
        ("special", lambda a, b: torch.isclose(a, b, equal_nan=True),
         [tensor((5,), torch.float32, special=True), tensor((5,), torch.float32, special=True)]),
        ("tolerances", lambda a: torch.isclose(a, a + 1e-3, rtol=0, atol=2e-3), [f32(2, 3)]),
        # Bools are compared as floats: with atol=1, False is close to True.
        ("bool atol", lambda a, b: torch.isclose(a, b, atol=1.0),
         [torch.tensor([False, True, False]), torch.tensor([True, True, False])]),
        ("broadcast", lambda a, b: a.isclose(b, rtol=0.5), [f32(2, 3), f32(3)]),
        ("mixed", lambda a, b: torch.isclose(a, b), [f32(2), dt(torch.float64, 2)]),
        # Integers too, in float32: uint8 differences do not wrap, and int64s
        # 1 apart beyond 2^24 are one float32 (fuzz-diff: isclose-uint8-no-wrap).
        ("uint8 no wrap", lambda a, b: torch.isclose(a, b, rtol=0.75, atol=0.75),
         [torch.tensor([6, 10, 20, 254, 0, 255], dtype=torch.uint8),
          torch.tensor([254, 20, 10, 6, 255, 0], dtype=torch.uint8)]),
        ("int64 in float32", lambda a, b: torch.isclose(a, b, rtol=0.0, atol=0.5),
         [torch.tensor([2 ** 40, 2 ** 40, -5, 2 ** 62]), torch.tensor([2 ** 40 + 1, 2 ** 40, -4, -2 ** 62])])),
    "torch.addbmm": fixed(
        *[(f"{d}", lambda i, a, b: torch.addbmm(i, a, b), [dt(d, 2, 4), dt(d, 3, 2, 5), dt(d, 3, 5, 4)], ACCUMULATE)
          for d in ALL_DTYPES],
        ("scaled broadcast", lambda i, a, b: i.addbmm(a, b, beta=0.5, alpha=2), [f32(4), f32(2, 3, 2), f32(2, 2, 4)],
         ACCUMULATE)),
    "torch.logcumsumexp": fixed(
        *[(f"{d}", lambda x: torch.logcumsumexp(x, 1), [tensor((3, 4), d, special=True)], TRANSCENDENTAL, d)
          for d in ALL_DTYPES],
        ("dim 0", lambda x: x.logcumsumexp(0), [f32(4, 3)], TRANSCENDENTAL),
        ("0-d", lambda x: torch.logcumsumexp(x, 0), [f32()], TRANSCENDENTAL)),
    "torch.fill": fixed(
        *[(f"{d}", lambda x: torch.fill(x, 2.7), [dt(d, 2, 3)]) for d in ALL_DTYPES],
        ("int value", lambda x: torch.fill(x, 3), [f32(2)]),
        ("0-d tensor", lambda x, v: torch.fill(x, v), [dt(torch.int32, 3), dt(torch.float64)]),
        ("fill_", lambda x: (x * 2).fill_(-1.5), [f32(2, 2)]),
        ("aten fill_ tensor", lambda x, v: torch.ops.aten.fill_(x * 1, v), [f32(3), dt(torch.int64)]),
        ("1-d value", lambda x, v: torch.fill(x, v), [f32(3), f32(3)]),
        ("0-d input", lambda x: torch.fill(x, True), [f32()])),
    "torch.ops.aten.copy.default": fixed(
        *[(f"{d}", lambda x, y: torch.ops.aten.copy(x, y), [dt(d, 2, 3), dt(torch.float32, 2, 3)]) for d in ALL_DTYPES],
        ("broadcast", lambda x, y: torch.ops.aten.copy.default(x, y), [f32(2, 3), dt(torch.int64, 3)]),
        ("copy_", lambda x, y: (x * 2).copy_(y) + 1, [f32(2, 3), dt(torch.float64, 1, 3)]),
        ("aten copy_", lambda x, y: torch.ops.aten.copy_(x * 1, y), [dt(torch.int32, 4), f32(4)]),
        ("too big", lambda x, y: torch.ops.aten.copy(x, y), [f32(3), f32(2, 3)])),
    "torch.ops.aten.native_layer_norm.default": fixed(
        *[(f"{d} {k}", lambda x, w, b, k=k: torch.ops.aten.native_layer_norm(x, [4], w, b, 1e-5)[k],
           [dt(d, 2, 3, 4), dt(d, 4), dt(d, 4)], ACCUMULATE) for d in (torch.float32, torch.float64) for k in range(3)],
        ("two dims no affine", lambda x: torch.ops.aten.native_layer_norm(x, [3, 4], None, None, 0.5)[2],
         [f32(2, 3, 4)], ACCUMULATE)),
    "torch.ops.aten.native_group_norm_backward.default": fixed(*_group_norm_backward_samples()),
    "torch.ops.aten.native_group_norm.default": fixed(
        *[(f"{d} {k}", lambda x, w, b, k=k: torch.ops.aten.native_group_norm(x, w, b, 2, 6, 4, 3, 1e-6)[k],
           [dt(d, 2, 6, 2, 2), dt(d, 6), dt(d, 6)], ACCUMULATE)
          for d in (torch.float32, torch.float64, torch.bfloat16) for k in range(3)],
        *[(f"no affine, 3-d {k}", lambda x, k=k: torch.ops.aten.native_group_norm(x, None, None, 3, 4, 5, 2, 1e-5)[k],
           [f32(3, 4, 5)], ACCUMULATE) for k in range(3)],
        ("N * C * HxW not the size", lambda x: torch.ops.aten.native_group_norm(x, None, None, 2, 6, 5, 3, 1e-5)[0],
         [f32(2, 6, 2, 2)]),
        ("groups do not divide", lambda x: torch.ops.aten.native_group_norm(x, None, None, 2, 6, 4, 4, 1e-5)[0],
         [f32(2, 6, 2, 2)]),
        ("weight of another size", lambda x, w: torch.ops.aten.native_group_norm(x, w, None, 2, 6, 4, 3, 1e-5)[0],
         [f32(2, 6, 2, 2), f32(5)])),
    "torch._weight_norm": fixed(
        *[(f"{d} dim {dim}", lambda v, g, dim=dim: torch._weight_norm(v, g, dim),
           [dt(d, 3, 4, 5), dt(d, *[(3, 4, 5)[i] if i == dim else 1 for i in range(3)])], ACCUMULATE)
          for d in (torch.float32, torch.float64, torch.float16, torch.bfloat16) for dim in (0, 1, 2)],
        ("whole tensor", lambda v, g: torch._weight_norm(v, g, -1), [f32(3, 4), f32()], ACCUMULATE),
        ("g broadcast", lambda v, g: torch._weight_norm(v, g, 1), [f32(3, 4), f32(4)], ACCUMULATE),
        ("module", lambda x, v, g: F.conv1d(x, torch._weight_norm(v, g, 0)),
         [f32(2, 3, 8), f32(5, 3, 3), f32(5, 1, 1)], ACCUMULATE),
        ("mixed dtypes", lambda v, g: torch._weight_norm(v, g, 0), [f32(3, 4), dt(torch.float64, 3, 1)]),
        ("int64", lambda v, g: torch._weight_norm(v, g, 0), [dt(torch.int64, 3, 4), dt(torch.int64, 3, 1)]),
        *[(f"0-d dim {dim}", lambda v, g, dim=dim: torch._weight_norm(v, g, dim), [f32(), f32()])
          for dim in (0, -1)]),
    "torch.ops.aten._weight_norm_interface.default": fixed(
        *[(f"{d} dim {dim} {k}", lambda v, g, dim=dim, k=k: torch.ops.aten._weight_norm_interface(v, g, dim)[k],
           [dt(d, 3, 10, 6), dt(d, *[(3, 10, 6)[i] if i == dim else 1 for i in range(3)])], ACCUMULATE)
          for d in (torch.float32, torch.float64, torch.bfloat16) for dim in (0, 2) for k in range(2)
          # (torch's bfloat16 kernel rounds the norm's steps to bfloat16,
          # within 1e-3 of ours; only its result is compared.)
          if not (d == torch.bfloat16 and k == 1)],
        ("float16", lambda v, g: torch.ops.aten._weight_norm_interface(v, g, 0)[0],
         [dt(torch.float16, 3, 4), dt(torch.float16, 3, 1)]),
        ("a middle dim", lambda v, g: torch.ops.aten._weight_norm_interface(v, g, 1)[0],
         [f32(3, 4, 5), f32(1, 4, 1)])),
    "torch.ops.aten.native_batch_norm.default": fixed(
        *[(f"{d} {k}", lambda x, w, b, m, v, k=k: torch.ops.aten.native_batch_norm(x, w, b, m, v, False, 0.1, 1e-5)[k],
           [dt(d, 2, 3, 4), dt(d, 3), dt(d, 3), dt(d, 3), positive((3,), d)], ACCUMULATE)
          for d in (torch.float32, torch.float64) for k in range(3)],
        *[(f"training {k}", lambda x, w, b, m, v, k=k: torch.ops.aten.native_batch_norm(x, w, b, m, v, True, 0.1, 1e-5)[k],
           [f32(2, 3, 4), f32(3), f32(3), f32(3), positive((3,), torch.float32)], ACCUMULATE)
          for k in range(3)],
        *[(f"training no stats 2-d {k}", lambda x, k=k: torch.ops.aten.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)[k],
           [dt(torch.float64, 5, 3)], ACCUMULATE) for k in range(3)]),
    "torch.ops.aten.nll_loss_forward.default": fixed(
        *[(f"reduction {r} {k}", lambda x, t, r=r, k=k: torch.ops.aten.nll_loss_forward(x, t, None, r, 2)[k],
           [f32(4, 3), torch.tensor([0, 2, 1, 2])], ACCUMULATE) for r in (0, 1, 2) for k in range(2)],
        ("weight", lambda x, t, w: torch.ops.aten.nll_loss_forward(x, t, w, 1, -100)[1],
         [f32(3, 4), torch.tensor([3, 0, 3]), positive((4,), torch.float32)], ACCUMULATE),
        *[(f"unbatched {t} {k}", lambda x, t, k=k: torch.ops.aten.nll_loss_forward(x, t, None, 0, 2)[k],
           [f32(3), torch.tensor(t)], ACCUMULATE) for t in (0, 2) for k in range(2)],
        ("spatial", lambda x, t: torch.ops.aten.nll_loss_forward(x, t, None, 1, -100)[0],
         [f32(2, 3, 4), torch.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])], ACCUMULATE)),
    **{f"torch.ops.aten.max_pool{n}d_with_indices_backward.default": fixed(
        *[(f"{d} {name}", lambda g, x, n=n, k=k, st=st, p=p: getattr(torch.ops.aten, f"max_pool{n}d_with_indices_backward")(
            g, x, [k] * n, [st] * n, [p] * n, [1] * n, False,
            getattr(torch.ops.aten, f"max_pool{n}d_with_indices")(x, [k] * n, [st] * n, [p] * n)[1]),
           [dt(d, *((1, 2) + (2,) * n)), dt(d, *((1, 2) + (4,) * n))], ACCUMULATE)
          for d in (torch.float32, torch.float64)
          for name, k, st, p in (("disjoint", 2, 2, 0),)],
        ("overlapping", lambda g, x, n=n: getattr(torch.ops.aten, f"max_pool{n}d_with_indices_backward")(
            g, x, [3] * n, [1] * n, [1] * n, [1] * n, False,
            getattr(torch.ops.aten, f"max_pool{n}d_with_indices")(x, [3] * n, [1] * n, [1] * n)[1]),
         [f32(*((1, 1) + (3,) * n)), f32(*((1, 1) + (3,) * n))], ACCUMULATE))
       for n in (2, 3)},
    **{f"torch.ops.aten._{log}softmax_backward_data.default": fixed(
        *[(f"{d} dim {dim}", lambda g, y, dim=dim, d=d, log=log: getattr(torch.ops.aten, f"_{log}softmax_backward_data")(
            g, y, dim, d), [dt(d, 3, 2, 4), dt(d, 3, 2, 4)], ACCUMULATE)
          for d in (torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64)
          for dim in (1, -1)],
        ("0-d", lambda g, y, log=log: getattr(torch.ops.aten, f"_{log}softmax_backward_data")(
            g, y, 0, torch.float32), [f32(), f32()], ACCUMULATE),
        ("float16 input_dtype", lambda g, y, log=log: getattr(torch.ops.aten, f"_{log}softmax_backward_data")(
            g, y, 0, torch.float16), [f32(2), f32(2)], ACCUMULATE))
       for log in ("", "log_")},
    # (torch's oneDNN path gives every gradient whatever output_mask says,
    # its native path None for the masked ones, as the schema means: the
    # samples take all three, so that eager torch agrees with itself.)
    "torch.ops.aten.convolution_backward.default": fixed(
        *[(f"{name} {k}", lambda g, x, w, k=k, st=st, p=p, dil=dil, tr=tr, op=op, gr=gr:
           torch.ops.aten.convolution_backward(g, x, w, None, st, p, dil, tr, op, gr, [True, True, True])[k],
           [f32(*torch.convolution(torch.zeros(xs), torch.zeros(ws), None, st, p, dil, tr, op, gr).shape),
            f32(*xs), f32(*ws)], GRAD_SUMS)
          for name, xs, ws, st, p, dil, tr, op, gr in (
              ("plain", (2, 2, 6, 6), (2, 2, 2, 2), [1, 1], [0, 0], [1, 1], False, [0], 1),
              ("strided padded dilated grouped", (2, 6, 9, 10), (4, 3, 2, 3), [2, 3], [2, 1], [3, 2], False,
               [0, 0], 2),
              ("1-d", (2, 3, 11), (6, 1, 3), [2], [1], [2], False, [0], 3),
              ("3-d", (1, 3, 7, 7, 7), (4, 3, 3, 1, 3), [1, 2, 1], [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 1),
              ("transposed", (2, 4, 5, 6), (4, 3, 3, 2), [2, 2], [1, 0], [1, 2], True, [1, 1], 2),
              ("transposed output padding past the stride", (2, 4, 5, 6), (4, 3, 3, 1), [2, 1], [1, 0],
               [3, 1], True, [2, 0], 1))
          for k in range(3)],
        *[(f"{d} {k}", lambda g, x, w, k=k: torch.ops.aten.convolution_backward(
            g, x, w, [2], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])[k],
           [dt(d, 1, 2, 4, 4), dt(d, 1, 3, 4, 4), dt(d, 2, 3, 3, 3)], ACCUMULATE)
          for d in (torch.float64, torch.bfloat16) for k in range(3)],
        ("grad_output of another shape", lambda g, x, w: torch.ops.aten.convolution_backward(
            g, x, w, None, [1, 1], [0, 0], [1, 1], False, [0], 1, [True, True, True])[0],
         [f32(2, 2, 4, 4), f32(2, 2, 6, 6), f32(2, 2, 2, 2)]),
        ("channels that do not match", lambda g, x, w: torch.ops.aten.convolution_backward(
            g, x, w, None, [1, 1], [0, 0], [1, 1], False, [0], 2, [True, True, True])[0],
         [f32(2, 2, 5, 5), f32(2, 2, 6, 6), f32(2, 2, 2, 2)])),
    "torch.ops.prims.squeeze.default": fixed(
        ("dims", lambda x: torch.ops.prims.squeeze(x, [0, 4, 1]), [f32(1, 1, 3, 2, 1)]),
        ("none", lambda x: torch.ops.prims.squeeze(x, dimensions=[]), [f32(1, 2)]),
        ("not of size 1", lambda x: torch.ops.prims.squeeze(x, [1]), [f32(1, 2)]),
        ("negative", lambda x: torch.ops.prims.squeeze(x, [-1]), [f32(2, 1)])),
    "torch.ops.prims.prod.default": fixed(
        *[(f"{d}", lambda x: torch.ops.prims.prod(x, (0, 1)), [dt(d, 3, 4, 5)], ACCUMULATE) for d in ALL_DTYPES],
        ("negative dims", lambda x: torch.ops.prims.prod(x, [-1, 1]), [f32(2, 3, 4)], ACCUMULATE),
        ("no dims", lambda x: torch.ops.prims.prod(x, []), [dt(torch.int32, 2, 3)]),
        ("all, to 0-d", lambda x: torch.ops.prims.prod(x, [0, 1]), [positive((2, 3), torch.float64)], ACCUMULATE),
        ("output_dtype", lambda x: torch.ops.prims.prod(x, [1], output_dtype=torch.float64),
         [dt(torch.int16, 2, 3)], ACCUMULATE),
        ("empty dim", lambda x: torch.ops.prims.prod(x, [1]), [f32(2, 0)]),
        ("dim out of range", lambda x: torch.ops.prims.prod(x, [2]), [f32(2, 3)])),
    "torch.ops.prims.split_dim.default": fixed(
        ("first", lambda x: torch.ops.prims.split_dim(x, 0, 4), [f32(12, 2)]),
        ("last", lambda x: torch.ops.prims.split_dim(x, 1, 3), [dt(torch.int64, 2, 6)]),
        ("remainder", lambda x: torch.ops.prims.split_dim(x, 0, 4), [f32(6)])),
    "torch.ops.aten._trilinear.default": fixed(
        ("bilinear form", lambda a, w, b: torch.ops.aten._trilinear(a, w, b, [1, 3], [0], [1, 2], [2, 3]),
         [f32(3, 4), f32(6, 4, 5), f32(3, 5)], ACCUMULATE),
        ("no sum", lambda a, b, c: torch.ops.aten._trilinear(a, b, c, [], [], [], [], 0),
         [f32(3, 3, 3), f32(3, 3, 3), f32(3, 3, 3)], ACCUMULATE),
        ("varying ranks", lambda a, b, c: torch.ops.aten._trilinear(a, b, c, [1], [], [0, 1], [0], 0),
         [f32(2, 6), f32(2, 3, 6), f32(6)], ACCUMULATE),
        ("sum all", lambda a, b, c: torch.ops.aten._trilinear(a, b, c, [1], [], [], [0, 1, 2], 2),
         [f32(2, 6), f32(2, 3, 6), f32(2, 3, 6)], ACCUMULATE),
        *[(f"{d}", lambda a, b, c: torch.ops.aten._trilinear(a, b, c, [0], [1], [], [1]),
           [dt(d, 3), dt(d, 4), dt(d, 4, 3)], ACCUMULATE)
          for d in (torch.int32, torch.int64, torch.bool, torch.float64, torch.bfloat16)],
        ("a dim all three expand", lambda a, b, c: torch.ops.aten._trilinear(a, b, c, [0], [0], [0], [2], 0),
         [f32(2, 3, 6), f32(2, 3, 6), f32(2, 3, 6)]),
        ("mixed dtypes", lambda a, b, c: torch.ops.aten._trilinear(a, b, c, [], [], [], []),
         [f32(2), dt(torch.float64, 2), f32(2)]),
        ("sizes differ", lambda a, b, c: torch.ops.aten._trilinear(a, b, c, [], [], [], []),
         [f32(2, 3), f32(2, 1), f32(2, 3)])),
    "torch.ops.aten.nll_loss_backward.default": fixed(
        *[(f"reduction {r}", lambda g, x, t, r=r: torch.ops.aten.nll_loss_backward(
            g, x, t, None, r, 1, torch.ops.aten.nll_loss_forward(x, t, None, r, 1)[1]),
           [f32(4) if r == 0 else f32(), f32(4, 3), torch.tensor([0, 1, 2, 1])], ACCUMULATE) for r in (0, 1, 2)],
        ("weight", lambda g, x, t, w: torch.ops.aten.nll_loss_backward(
            g, x, t, w, 1, -100, torch.ops.aten.nll_loss_forward(x, t, w, 1, -100)[1]),
         [f32(), f32(3, 4), torch.tensor([3, 0, 3]), positive((4,), torch.float32)], ACCUMULATE),
        ("unbatched", lambda g, x, t: torch.ops.aten.nll_loss_backward(g, x, t, None, 2, -100, torch.tensor(1.0)),
         [f32(), f32(5), torch.tensor(3)], ACCUMULATE),
        # A 1-D input with a 1-D target of its size: torch reads the
        # target's first element; grad_output has one element ([1] here).
        *[(f"unbatched, 1-D target, reduction {r}", lambda g, x, t, r=r: torch.ops.aten.nll_loss_backward(
            g, x, t, None, r, 10, torch.tensor(3.0)),
           [f32(1), f32(3), torch.tensor([2, 0, 1])], ACCUMULATE) for r in (0, 1, 2)],
        ("spatial", lambda g, x, t: torch.ops.aten.nll_loss_backward(
            g, x, t, None, 0, -100, torch.tensor(0.0)),
         [f32(2, 4), f32(2, 3, 4), torch.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])], ACCUMULATE)),
    "torch.ops.aten._index_put_impl.default": fixed(
        ("in-place", lambda x, i, v: torch.ops.aten._index_put_impl_(x * 1, (i,), v, accumulate=False, unsafe=False),
         [f32(5), torch.tensor([4, 0]), f32(2)]),
        ("accumulate", lambda x, i, v: torch.ops.aten._index_put_impl_(x + 0, (i,), v, True),
         [f32(3, 2), torch.tensor([1, 1]), f32(2, 2)])),
    "traced.nn.rnn": fixed(*_RNN_SAMPLES),
    "traced.nn.rnn_cell": fixed(*_CELL_SAMPLES),
    # Quantized tensors.
    "torch.quantize_per_tensor": fixed(
        ("quint8", lambda x: torch.quantize_per_tensor(x, 0.05, 3, torch.quint8), [f32(2, 3, 4)], QUANT_EXACT),
        ("qint8", lambda x: torch.quantize_per_tensor(x, 0.02, -2, torch.qint8), [f32(3, 4)], QUANT_EXACT),
        ("qint32", lambda x: torch.quantize_per_tensor(x, 0.001, 7, torch.qint32), [f32(5)], QUANT_EXACT),
        ("tensor parameters", lambda x, s, z: torch.quantize_per_tensor(x, s, z, torch.quint8),
         [f32(3, 4), torch.tensor(0.1), torch.tensor(5)], QUANT_EXACT),
        ("one-element parameters", lambda x, s, z: torch.quantize_per_tensor(x, s, z, torch.quint8),
         [f32(3, 4), torch.tensor([0.03]), torch.tensor([200])], QUANT_EXACT),
        ("0-d", lambda x: torch.quantize_per_tensor(x, 0.5, 1, torch.quint8), [f32()], QUANT_EXACT),
        ("empty", lambda x: torch.quantize_per_tensor(x, 0.5, 1, torch.quint8), [f32(0, 3)], QUANT_EXACT)),
    "torch.quantize_per_channel": fixed(
        ("qint8 axis 0", lambda x, s, z: torch.quantize_per_channel(x, s, z, 0, torch.qint8),
         [f32(3, 4), torch.tensor([0.01, 0.02, 0.05], dtype=torch.float64), torch.tensor([0, -1, 2])], QUANT_EXACT),
        ("quint8 axis 1", lambda x, s, z: torch.quantize_per_channel(x, s, z, 1, torch.quint8),
         [f32(2, 4, 3), torch.tensor([0.03, 0.02, 0.05, 0.1], dtype=torch.float64), torch.tensor([3, 0, 128, 7])],
         QUANT_EXACT)),
    "torch.dequantize": fixed(
        ("quint8", lambda q: q.dequantize(), [qtensor((2, 3, 4), 0.05, 3)]),
        ("qint8", lambda q: torch.dequantize(q), [qtensor((3, 4), 0.02, -5, torch.qint8)]),
        ("qint32", lambda q: torch.dequantize(q), [qtensor((3, 4), 0.001, 9, torch.qint32)]),
        ("per channel", lambda q: q.dequantize(), [qchannels((3, 4), 0)]),
        ("per channel quint8 axis 1", lambda q: q.dequantize(), [qchannels((2, 3, 4), 1, torch.quint8)]),
        ("float", lambda x: torch.dequantize(x), [f32(3)])),
    "torch.ops.quantized.add": fixed(*_quantized_binary_samples(torch.ops.quantized.add)),
    "torch.ops.quantized.add_relu": fixed(*_quantized_binary_samples(torch.ops.quantized.add_relu)),
    "torch.ops.quantized.mul": fixed(*_quantized_binary_samples(torch.ops.quantized.mul)),
    "torch.ops.quantized.mul_relu": fixed(*_quantized_binary_samples(torch.ops.quantized.mul_relu)),
    "torch.ops.quantized.hardswish": fixed(
        ("quint8", lambda x: torch.ops.quantized.hardswish(x, 0.03, 10), [qtensor((2, 3, 4), 0.05, 100)], QUANT_EXACT),
        ("qint8", lambda x: torch.ops.quantized.hardswish(x, 0.02, -20), [qtensor((3, 5), 0.04, 0, torch.qint8)],
         QUANT_EXACT)),
    # (These small samples take torch's scalar loop, which dequantizes
    # unfused; the kernels compute its vectorized loop, as models' tensors
    # take it: a step apart, rarely. test_quantized.py's
    # test_activation_modules checks them exactly on whole vectors.)
    "torch.ops.quantized.leaky_relu": fixed(
        ("quint8", lambda x: torch.ops.quantized.leaky_relu(x, 0.13, False, 0.03, 90), [qtensor((2, 3, 4), 0.05, 100)],
         QUANT_ONE_STEP),
        ("qint8", lambda x: torch.ops.quantized.leaky_relu(x, 0.3, False, 0.02, -20), [qtensor((3, 5), 0.04, 0, torch.qint8)],
         QUANT_ONE_STEP)),
    "torch.ops.quantized.elu": fixed(
        ("quint8", lambda x: torch.ops.quantized.elu(x, 0.03, 90), [qtensor((2, 3, 4), 0.05, 100)], QUANT_ONE_STEP),
        ("qint8 alpha", lambda x: torch.ops.quantized.elu(x, 0.02, -20, 0.5), [qtensor((3, 5), 0.04, 0, torch.qint8)],
         QUANT_ONE_STEP)),
    "torch.ops.quantized.cat": fixed(
        ("requantized", lambda a, b: torch.ops.quantized.cat([a, b], 1, 0.04, 2),
         [qtensor((2, 3), 0.05, 3), qtensor((2, 4), 0.02, 100)], QUANT_EXACT),
        ("qint8 dim 0", lambda a, b: torch.ops.quantized.cat([a, b], 0, 0.05, -3),
         [qtensor((2, 3), 0.05, -3, torch.qint8), qtensor((1, 3), 0.03, 2, torch.qint8)], QUANT_EXACT)),
    "torch.ao.nn.quantized.functional.conv1d": fixed(*_quantized_conv_samples(1, False)),
    "torch.ao.nn.quantized.functional.conv2d": fixed(*_quantized_conv_samples(2, False)),
    "torch.ao.nn.quantized.functional.conv3d": fixed(*_quantized_conv_samples(3, False)),
    "traced.quantized.conv_relu1d": fixed(*_quantized_conv_samples(1, True)),
    "traced.quantized.conv_relu2d": fixed(*_quantized_conv_samples(2, True)),
    "traced.quantized.conv_relu3d": fixed(*_quantized_conv_samples(3, True)),
    "traced.quantized.linear_dynamic": fixed(*_linear_dynamic_samples()),
    "torch.fused_moving_avg_obs_fake_quant": fixed(*_fused_fake_quant_samples()),
    "torch.ao.nn.quantized.functional.linear": fixed(*_quantized_linear_samples(False)),
    "traced.quantized.linear_relu": fixed(*_quantized_linear_samples(True)),
    "traced.int8.conv2d": fixed(*_int8_samples(False)),
    "traced.int8.linear": fixed(*_int8_samples(True)),
    "torch.nn.functional.embedding_bag": fixed(
        *[(f"2-d {mode}", lambda i, w, mode=mode: F.embedding_bag(i, w, mode=mode),
           [torch.tensor([[0, 2, 1], [3, 3, 0]]), f32(5, 4)], ACCUMULATE) for mode in ("sum", "mean", "max")],
        *[(f"offsets {mode}", lambda i, o, w, mode=mode: F.embedding_bag(i, w, o, mode=mode),
           [torch.tensor([1, 2, 4, 4, 3]), torch.tensor([0, 2, 2]), f32(5, 3)], ACCUMULATE)
          for mode in ("sum", "mean", "max")],
        ("include_last_offset", lambda i, o, w: F.embedding_bag(i, w, o, include_last_offset=True),
         [torch.tensor([1, 2, 4, 0]), torch.tensor([0, 1, 4]), f32(5, 2)], ACCUMULATE),
        # The indices from the last offset on are in no bag. (Sum mode
        # only: in mean and max modes torch 1.13 writes past a buffer's end
        # there and aborts.)
        ("include_last_offset, indices after it",
         lambda i, o, w: F.embedding_bag(i, w, o, mode="sum", include_last_offset=True),
         [torch.tensor([1, 2, 4, 0, 3, 3]), torch.tensor([0, 1, 1, 4]), f32(5, 2)], ACCUMULATE),
        ("per_sample_weights", lambda i, w, p: F.embedding_bag(i, w, mode="sum", per_sample_weights=p),
         [torch.tensor([[0, 1], [2, 2]]), f32(3, 2), f32(2, 2)], ACCUMULATE),
        ("padding_idx", lambda i, w: F.embedding_bag(i, w, padding_idx=1),
         [torch.tensor([[0, 1, 1], [1, 1, 1]]), f32(3, 2)], ACCUMULATE),
        # 1-D with a padding index; the second bag holds padding alone.
        *[(f"offsets padding_idx {mode}", lambda i, o, w, mode=mode: F.embedding_bag(i, w, o, mode=mode, padding_idx=-2),
           [torch.tensor([0, 3, 3, 2, 3, 1]), torch.tensor([0, 2, 3, 3]), f32(4, 3)], ACCUMULATE)
          for mode in ("sum", "mean", "max")],
        ("f64 int32", lambda i, w: F.embedding_bag(i, w), [torch.tensor([[1, 0]], dtype=torch.int32),
                                                         dt(torch.float64, 2, 3)], ACCUMULATE),
        ("module", _EMBEDDING_BAG, [torch.tensor([0, 3, 1, 2]), torch.tensor([0, 1])], ACCUMULATE),
        ("mean with weights", lambda i, w, p: F.embedding_bag(i, w, per_sample_weights=p),
         [torch.tensor([[0, 1]]), f32(3, 2), f32(1, 2)])),
    "torch.ops.aten.embedding_bag.padding_idx": fixed(*_aten_embedding_bag_samples(
        lambda w, i, o, mode, psw, ilo, pad: torch.ops.aten.embedding_bag(
            w, i, o, False, mode, False, psw, ilo, pad))),
    "torch.ops.aten._embedding_bag.default": fixed(*_aten_embedding_bag_samples(
        lambda w, i, o, mode, psw, ilo, pad: torch.ops.aten._embedding_bag(
            w, i, o, False, mode, False, psw, ilo, -1 if pad is None else pad))),
    "torch.nn.functional.grid_sample": fixed(
        *[(f"{mode} {pad} {ac}", lambda x, g, mode=mode, pad=pad, ac=ac:
           F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac),
           [f32(2, 3, 4, 5), tensor((2, 3, 6, 2), torch.float32, low=-1.4, high=1.4)], ACCUMULATE)
          for mode in ("bilinear", "nearest") for pad in ("zeros", "border", "reflection")
          for ac in (False, True)],
        ("f64 default", lambda x, g: F.grid_sample(x, g), [dt(torch.float64, 1, 2, 3, 3),
                                                          tensor((1, 2, 2, 2), torch.float64, low=-1, high=1)]),
        ("mixed dtypes", lambda x, g: F.grid_sample(x, g, align_corners=False),
         [f32(1, 1, 3, 3), dt(torch.float64, 1, 2, 2, 2)])),
    "torch.ops.aten.grid_sampler.default": fixed(
        *[(f"{mode} {pad}", lambda x, g, mode=mode, pad=pad: torch.ops.aten.grid_sampler(x, g, mode, pad, False),
           [f32(1, 2, 4, 4), tensor((1, 3, 3, 2), torch.float32, low=-1.3, high=1.3)], ACCUMULATE)
          for mode in (0, 1) for pad in (0, 1, 2)]),
    "torch.nn.functional.affine_grid": fixed(
        *[(f"{d} {ac}", lambda t, ac=ac: F.affine_grid(t, [2, 3, 4, 5], align_corners=ac),
           [dt(d, 2, 2, 3)], ACCUMULATE) for d in (torch.float32, torch.float64) for ac in (False, True)],
        ("3-d", lambda t: F.affine_grid(t, [1, 1, 2, 3, 4], align_corners=False), [f32(1, 3, 4)], ACCUMULATE),
        ("one column", lambda t: F.affine_grid(t, [1, 1, 3, 1], align_corners=True), [f32(1, 2, 3)], ACCUMULATE),
        ("bad theta", lambda t: F.affine_grid(t, [1, 1, 3, 3], align_corners=False), [f32(1, 3, 3)])),
    "torch.nn.functional.unfold": fixed(
        *[(f"{d}", lambda x: F.unfold(x, 2), [dt(d, 1, 2, 3, 4)], EXACT, d) for d in ALL_DTYPES],
        ("dilated padded strided", lambda x: F.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
         [f32(2, 3, 5, 6)]),
        ("unbatched", lambda x: F.unfold(x, 3, padding=1), [f32(2, 4, 4)]),
        ("module", torch.nn.Unfold((2, 2), stride=2), [f32(1, 3, 4, 6)]),
        ("too small", lambda x: F.unfold(x, 5), [f32(1, 1, 3, 3)])),
    "torch.nn.functional.fold": fixed(
        *[(f"{d}", lambda x: F.fold(x, (3, 4), 2), [dt(d, 1, 8, 6)], ACCUMULATE, d) for d in ALL_DTYPES],
        ("overlapping padded", lambda x: F.fold(x, (5, 6), (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)),
         [f32(2, 18, 15)], ACCUMULATE),
        ("unbatched", lambda x: F.fold(x, 4, 2, stride=2), [f32(12, 4)]),
        ("module", torch.nn.Fold((4, 6), (2, 2), stride=2), [f32(1, 12, 6)]),
        ("wrong blocks", lambda x: F.fold(x, (3, 4), 2), [f32(1, 8, 5)])),
    "torch.searchsorted": fixed(
        *[(f"{d}", lambda s, v: torch.searchsorted(s, v), [torch.sort(dt(d, 7))[0], dt(d, 3, 4)])
          for d in ALL_DTYPES if d != torch.bool],
        ("right", lambda s, v: torch.searchsorted(s, v, right=True), [torch.tensor([1., 3, 3, 5, 7]), torch.tensor([[0., 3, 6], [8, 1, 5]])]),
        *[(f"bool value {b}", lambda s, b=b: torch.searchsorted(s, b, right=b), [torch.tensor([0., 0.5, 1, 2])])
          for b in (False, True)],
        ("side right", lambda s, v: torch.searchsorted(s, v, side="right"), [torch.tensor([1, 3, 3, 5]), torch.tensor([3, 4, 5])]),
        ("n-d", lambda s, v: torch.searchsorted(s, v), [torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[3, 6], [0, 4]])]),
        ("sorter", lambda s, v, i: torch.searchsorted(s, v, sorter=i),
         [torch.tensor([5., 1, 3]), torch.tensor([[0., 3, 6], [8, 1, 5]]), torch.tensor([1, 2, 0])]),
        ("n-d sorter int32", lambda s, v, i: torch.searchsorted(s, v, sorter=i, out_int32=True),
         [torch.tensor([[5, 1, 3], [2, 9, 4]]), torch.tensor([[3, 6], [0, 4]]), torch.tensor([[1, 2, 0], [0, 2, 1]])]),
        ("mixed nan", lambda s, v: torch.searchsorted(s, v), [torch.tensor([1, 3, 5]), torch.tensor([2.5, float("nan"), 5.0])]),
        ("number", lambda s: torch.searchsorted(s, 4), [torch.tensor([1., 3, 5, 7])]),
        ("empty sequence", lambda s, v: torch.searchsorted(s, v), [f32(0), f32(3)]),
        ("bool rejected", lambda s, v: torch.searchsorted(s, v), [torch.tensor([False, True]), torch.tensor([True])]),
        ("opposite sides rejected", lambda s, v: torch.searchsorted(s, v, right=True, side="left"), [f32(3), f32(2)]),
        ("rows rejected", lambda s, v: torch.searchsorted(s, v), [f32(2, 3), f32(3)])),
    "torch.isin": fixed(
        *[(f"{d}", lambda x, t: torch.isin(x, t), [dt(d, 4, 5), dt(d, 6)]) for d in ALL_DTYPES],
        ("invert", lambda x, t: torch.isin(x, t, invert=True), [dt(torch.int64, 3, 4), dt(torch.int64, 2, 2)]),
        ("mixed", lambda x, t: torch.isin(x, t), [torch.tensor([1, 2, 3]), torch.tensor([1.5, 2.0])]),
        ("uint8 and -1", lambda x, t: torch.isin(x, t), [torch.tensor([255, 3], dtype=torch.uint8), torch.tensor([-1, 3])]),
        ("nan", lambda x, t: torch.isin(x, t), [torch.tensor([float("nan"), 1.]), torch.tensor([float("nan"), 1.])]),
        ("number test", lambda x: torch.isin(x, 2), [torch.tensor([1, 2, 2])]),
        ("number elements", lambda t: torch.isin(2.0, t), [torch.tensor([1., 2.])]),
        ("empty test", lambda x, t: torch.isin(x, t), [f32(3), f32(0)])),
    "torch.kthvalue": fixed(
        # (Values only where ties make torch's index arbitrary.)
        *[(f"{d}", lambda x: torch.kthvalue(x, 2)[0], [dt(d, 3, 5)]) for d in ALL_DTYPES],
        ("indices", lambda x: torch.kthvalue(x, 2)[1], [f32(3, 5)]),
        ("dim keepdim", lambda x: x.kthvalue(3, 0, True)[1], [f32(4, 2)]),
        ("0-d", lambda x: torch.kthvalue(x, 1)[0], [f32()]),
        ("k too big", lambda x: torch.kthvalue(x, 4)[0], [f32(3)])),
    "Tensor.unfold": fixed(
        *[(f"{d}", lambda x: x.unfold(1, 3, 2), [dt(d, 2, 7)]) for d in ALL_DTYPES],
        ("last dim", lambda x: x.unfold(-1, 2, 1), [f32(3, 4)]),
        ("step beyond", lambda x: x.unfold(0, 2, 5), [f32(6, 2)]),
        ("0-d", lambda x: x.unfold(0, 1, 1), [f32()]),
        ("too big", lambda x: x.unfold(0, 4, 1), [f32(3)])),
    "torch.bucketize": fixed(
        *[(f"{d}", lambda x, b: torch.bucketize(x, b), [dt(d, 3, 4), torch.tensor([-2, 0, 3]).to(d)]) for d in ALL_DTYPES],
        ("right int32", lambda x, b: torch.bucketize(x, b, out_int32=True, right=True),
         [dt(torch.int64, 5), torch.tensor([-1, 1, 3])]),
        ("mixed", lambda x, b: torch.bucketize(x, b), [f32(2, 3), torch.tensor([-2, 0, 2])]),
        ("2-d boundaries", lambda x, b: torch.bucketize(x, b), [f32(3), f32(2, 2)])),
    "torch.renorm": fixed(
        *[(f"{d}", lambda x: torch.renorm(x, 2, 0, 3.0), [dt(d, 3, 4)]) for d in ALL_DTYPES],
        ("p=1 dim 1", lambda x: x.renorm(1, 1, 2.5), [f32(2, 3, 2)]),
        ("inf", lambda x: torch.renorm(x, float("inf"), -1, 1.0), [f32(3, 2)])),
    "torch.take": fixed(
        *[(f"{d}", torch.take, [dt(d, 3, 4), torch.tensor([[0, 5], [-1, 11]])]) for d in ALL_DTYPES],
        ("0-d", torch.take, [f32(), torch.tensor(0)]),
        ("empty index", torch.take, [f32(2, 2), torch.zeros(0, dtype=torch.int64)]),
        ("method", lambda x, i: x.take(i), [f32(5), torch.tensor([4, -5])]),
        ("out of range", torch.take, [f32(2, 2), torch.tensor([4])]),
        ("int32 index", torch.take, [f32(2, 2), torch.tensor([1], dtype=torch.int32)])),
    "torch.put": fixed(
        *[(f"{d}", torch.put, [dt(d, 3, 4), torch.tensor([[0, 5], [-1, 10]]), dt(d, 2, 2)]) for d in ALL_DTYPES],
        *[(f"{d} accumulate", lambda x, i, s: torch.put(x, i, s, accumulate=True),
           [dt(d, 3, 4), torch.tensor([1, 1, -2]), dt(d, 3)]) for d in ALL_DTYPES],
        ("method", lambda x, i, s: x.put(i, s), [f32(5), torch.tensor([4]), f32(1)]),
        ("in place", lambda x, i, s: x.clone().put_(i, s, accumulate=True) * 2, [f32(2, 3), torch.tensor([4, 4]), f32(2)]),
        ("out of range", torch.put, [f32(2, 2), torch.tensor([4]), f32(1)]),
        ("dtypes differ", torch.put, [f32(2, 2), torch.tensor([1]), dt(torch.float64, 1)]),
        ("counts differ", torch.put, [f32(2, 2), torch.tensor([1]), f32(2)])),
    "torch.diagonal_scatter": fixed(
        *[(f"{d}", torch.diagonal_scatter, [dt(d, 3, 4), dt(d, 3)]) for d in ALL_DTYPES],
        ("offset", lambda x, s: torch.diagonal_scatter(x, s, 2), [f32(4, 4), f32(2)]),
        ("negative offset", lambda x, s: x.diagonal_scatter(s, -1), [f32(4, 3), f32(3)]),
        ("dims", lambda x, s: torch.diagonal_scatter(x, s, 1, 2, 0), [f32(3, 2, 4), f32(2, 2)]),
        ("converts src", torch.diagonal_scatter, [f32(2, 2), dt(torch.float64, 2)]),
        ("empty diagonal", lambda x, s: torch.diagonal_scatter(x, s, 5), [f32(2, 2), f32(0)]),
        ("wrong size", torch.diagonal_scatter, [f32(3, 4), f32(2)])),
    "torch.as_strided_scatter": fixed(
        *[(f"{d}", lambda x, s: torch.as_strided_scatter(x, s, (2, 2), (1, 2)), [dt(d, 3, 3), dt(d, 2, 2)]) for d in ALL_DTYPES],
        ("offset", lambda x, s: torch.as_strided_scatter(x, s, (2,), (3,), 1), [f32(3, 3), f32(2)]),
        ("converts src", lambda x, s: x.as_strided_scatter(s, (3,), (1,)), [f32(4), dt(torch.int64, 3)]),
        ("past the end", lambda x, s: torch.as_strided_scatter(x, s, (3,), (4,)), [f32(3, 3), f32(3)]),
        ("wrong size", lambda x, s: torch.as_strided_scatter(x, s, (2,), (1,)), [f32(3), f32(3)])),
    "torch.select_scatter": fixed(
        *[(f"{d}", lambda x, y: torch.select_scatter(x, y, 1, 2), [dt(d, 3, 4), dt(d, 3)]) for d in ALL_DTYPES],
        ("negative dim and index", lambda x, y: x.select_scatter(y, -1, -1), [f32(2, 3, 4), f32(2, 3)]),
        ("converts src", lambda x, y: torch.select_scatter(x, y, 0, 0), [f32(2, 3), dt(torch.int64, 3)]),
        ("1-D into 0-d src", lambda x, y: torch.select_scatter(x, y, 0, 1), [f32(3), f32()]),
        ("index out of range", lambda x, y: torch.select_scatter(x, y, 0, 2), [f32(2, 3), f32(3)]),
        ("wrong size", lambda x, y: torch.select_scatter(x, y, 0, 0), [f32(2, 3), f32(2)])),
    "torch.slice_scatter": fixed(
        *[(f"{d}", lambda x, y: torch.slice_scatter(x, y, 1, 1, 6, 2), [dt(d, 3, 6), dt(d, 3, 3)]) for d in ALL_DTYPES],
        # (Every argument given: with a default step torch 1.13 refuses or
        # computes from one process to the next, its SymInt defaults read
        # wrongly; a CI run saw it compute what this machine refuses.)
        ("whole dim", lambda x, y: torch.slice_scatter(x, y, 0, 0, 2, 1),
         [f32(2, 3), f32(2, 3)]),
        ("converts src", lambda x, y: x.slice_scatter(y, 0, -2), [f32(4, 2), dt(torch.float64, 2, 2)]),
        ("aten", lambda x, y: torch.ops.aten.slice_scatter(x, y, dim=1, start=0, end=1), [f32(3, 2), f32(3, 1)]),
        ("wrong size", lambda x, y: torch.slice_scatter(x, y, 0, 0, 2), [f32(4, 2), f32(3, 2)])),
    "torch.diag_embed": fixed(
        *[(f"{d}", lambda x: torch.diag_embed(x), [dt(d, 2, 3)]) for d in ALL_DTYPES],
        ("offset", lambda x: torch.diag_embed(x, 2), [f32(4)]),
        ("negative offset dims", lambda x: x.diag_embed(offset=-1, dim1=0, dim2=2), [f32(2, 3)]),
        ("swapped dims", lambda x: torch.diag_embed(x, 1, -1, -2), [f32(3, 2)]),
        ("same dims", lambda x: torch.diag_embed(x, 0, 1, 1), [f32(3, 2)])),
    "torch.rot90": fixed(
        *[(f"{d}", lambda x: torch.rot90(x), [dt(d, 2, 3)]) for d in ALL_DTYPES],
        *[(f"k={k}", lambda x, k=k: x.rot90(k, [1, 2]), [f32(2, 3, 4)]) for k in (-3, -1, 0, 2, 3, 5)],
        ("reversed dims", lambda x: torch.rot90(x, 1, [1, 0]), [f32(2, 3)]),
        ("empty", lambda x: torch.rot90(x), [f32(0, 3)]),
        ("1-d", lambda x: torch.rot90(x), [f32(3)])),
    "torch.count_nonzero": fixed(
        *[(f"{d}", lambda x: torch.count_nonzero(x), [tensor((3, 4), d, special=True)]) for d in ALL_DTYPES],
        ("dim", lambda x: x.count_nonzero(1), [dt(torch.int64, 3, 4)]),
        ("dims", lambda x: torch.count_nonzero(x, (0, 2)), [dt(torch.int32, 2, 3, 4)]),
        ("0-d", lambda x: torch.count_nonzero(x), [f32()]),
        ("empty", lambda x: torch.count_nonzero(x, 0), [f32(0, 2)])),
    "torch.linalg.cross": fixed(
        *[(f"{d}", lambda x, y: torch.linalg.cross(x, y), [dt(d, 2, 3), dt(d, 2, 3)]) for d in ALL_DTYPES],
        ("dim", lambda x, y: torch.linalg.cross(x, y, dim=0), [f32(3, 2), f32(3, 2)]),
        ("broadcast", lambda x, y: torch.linalg.cross(x, y), [f32(1, 3), f32(4, 3)]),
        ("mixed", lambda x, y: torch.linalg.cross(x, y), [f32(3), dt(torch.float64, 3)]),
        ("not 3", lambda x, y: torch.linalg.cross(x, y), [f32(2, 2), f32(2, 2)])),
    "torch.cross": fixed(
        ("first dim of 3", lambda x, y: torch.cross(x, y), [f32(2, 3, 3), f32(2, 3, 3)]),
        ("dim", lambda x, y: x.cross(y, dim=-1), [dt(torch.int64, 4, 3), dt(torch.int64, 4, 3)])),
    "torch.as_strided": fixed(
        *[(f"{d}", lambda x: torch.as_strided(x, (2, 2), (1, 2)), [dt(d, 3, 3)]) for d in ALL_DTYPES],
        ("offset", lambda x: x.as_strided((3, 2), (2, 1), 1), [f32(8)]),
        ("overlapping", lambda x: torch.as_strided(x, (4, 3), (1, 1)), [f32(6)]),
        ("broadcast", lambda x: torch.as_strided(x, (2, 3), (0, 1)), [f32(3)]),
        ("out of storage", lambda x: torch.as_strided(x, (3, 3), (3, 1), 1), [f32(3, 3)]),
        ("empty", lambda x: torch.as_strided(x, (0, 4), (4, 1)), [f32(2, 2)])),
    "torch.empty_like": fixed(
        *[(f"{d}", lambda x: torch.empty_like(x).fill_(1), [dt(d, 2, 3)]) for d in ALL_DTYPES],
        ("dtype", lambda x: torch.empty_like(x, dtype=torch.int32).zero_(), [f32(2)]),
        ("0-d", lambda x: torch.empty_like(x).zero_(), [f32()])),
    "torch.narrow": fixed(*[(f"{d}", lambda x: x.narrow(1, 1, 2), [dt(d, 3, 4)]) for d in ALL_DTYPES],
        # (A 0-d integer tensor start, as torch's narrow.Tensor.)
        ("tensor start", lambda x: torch.narrow(x, dim=1, start=torch.tensor(1), length=2), [f32(6, 4)]),
        ("negative tensor start", lambda x, s: torch.narrow(x, 0, s, 2), [f32(5, 2), torch.tensor(-3)]),
        ("int32 tensor start", lambda x, s: x.narrow(1, s, 3), [f32(2, 4), torch.tensor(1, dtype=torch.int32)]),
        ("start past the end", lambda x, s: torch.narrow(x, 0, s, 2), [f32(4), torch.tensor(3)]),
        ("float tensor start", lambda x: torch.narrow(x, 0, torch.tensor(1.0), 1), [f32(4)]),
        ("1-d tensor start", lambda x: torch.narrow(x, 0, torch.tensor([1]), 1), [f32(4)]),
        ("int start", lambda x: torch.narrow(x, -1, -2, 2), [f32(3, 4)]),
                          ("negative start", lambda x: torch.narrow(x, -1, -2, 2), [f32(2, 5)]),
                          ("empty", lambda x: x.narrow(0, 1, 0), [f32(3, 2)])),
    "torch.flip": fixed(*[(f"{d}", lambda x: x.flip(0, -1), [dt(d, 3, 4)]) for d in ALL_DTYPES],
                        ("list", lambda x: torch.flip(x, [1]), [f32(2, 3, 2)]),
                        ("0-d", lambda x: x.flip(0), [f32()])),
    "torch.roll": fixed(*[(f"{d}", lambda x: x.roll(1, 0), [dt(d, 3, 4)]) for d in ALL_DTYPES],
                        ("flattened", lambda x: torch.roll(x, -3), [f32(2, 4)]),
                        ("two dims", lambda x: torch.roll(x, (1, -2), (1, 0)), [f32(3, 4)]),
                        ("large shift", lambda x: x.roll(7, -1), [f32(2, 3)])),
    "Tensor.repeat": fixed(*[(f"{d}", lambda x: x.repeat(2, 1, 3), [dt(d, 3, 2)]) for d in ALL_DTYPES],
                           ("list", lambda x: x.repeat([2, 2]), [f32(3)]),
                           ("zero", lambda x: x.repeat(0, 2), [f32(2, 2)]),
                           ("0-d", lambda x: x.repeat(3), [f32()])),
    "torch.tile": fixed(("fewer dims", lambda x: torch.tile(x, (2,)), [f32(2, 3)]),
                        ("more dims", lambda x: x.tile(2, 1, 2), [dt(torch.int16, 3)])),
    "torch.zeros_like": fixed(*[(f"{d}", torch.zeros_like, [dt(d, 2, 3)]) for d in ALL_DTYPES],
                              ("dtype", lambda x: torch.zeros_like(x, dtype=torch.int32), [f32(2)])),
    "torch.ones_like": fixed(*[(f"{d}", torch.ones_like, [dt(d, 2, 3)]) for d in ALL_DTYPES],
                             ("0-d dtype", lambda x: torch.ones_like(x, dtype=torch.bool), [f32()])),
    "torch.full_like": fixed(*[(f"{d}", lambda x: torch.full_like(x, 7), [dt(d, 2, 3)]) for d in ALL_DTYPES],
                             ("float fill", lambda x: torch.full_like(x, 2.5), [f32(2)]),
                             ("dtype", lambda x: torch.full_like(x, -1, dtype=torch.int8), [f32(2)]),
                             ("bool fill", lambda x: torch.full_like(x, True), [f32(2)])),
    "torch.tril": fixed(*[(f"{d}", torch.tril, [dt(d, 3, 4)]) for d in ALL_DTYPES],
                        ("diagonal", lambda x: x.tril(1), [f32(2, 3, 3)]),
                        ("negative diagonal", lambda x: torch.tril(x, -1), [f32(4, 2)])),
    "torch.triu": fixed(*[(f"{d}", torch.triu, [dt(d, 3, 4)]) for d in ALL_DTYPES],
                        ("diagonal", lambda x: x.triu(2), [f32(2, 3, 5)])),
    "torch.nn.functional.one_hot": fixed(("basic", lambda x: F.one_hot(x, 5), [torch.tensor([[0, 4], [2, 2]])]),
                                         ("0-d", lambda x: F.one_hot(x, 3), [torch.tensor(1)])),
    "torch.constant_pad_nd": fixed(
        *[(f"{d}", lambda x: torch.constant_pad_nd(x, [1, 2], 3), [dt(d, 2, 3)]) for d in ALL_DTYPES],
        ("default value", lambda x: torch.constant_pad_nd(x, [1, 1, 0, 2]), [f32(2, 3)]),
        ("float value on ints", lambda x: torch.constant_pad_nd(x, [1, 2], -2.5), [dt(torch.int64, 3)]),
        ("negative pad", lambda x: torch.constant_pad_nd(x, [-1, 2], 1.5), [f32(2, 3)]),
        ("odd length", lambda x: torch.constant_pad_nd(x, [1]), [f32(2, 3)]),
        ("too long", lambda x: torch.constant_pad_nd(x, [1, 1, 1, 1]), [f32(3)])),
    "torch.nn.functional.pad": fixed(*[(f"{d}", lambda x: F.pad(x, (1, 2)), [dt(d, 2, 3)]) for d in ALL_DTYPES],
                                     ("two dims value", lambda x: F.pad(x, (1, 0, 0, 2), value=-1.5), [f32(1, 2, 3)]),
                                     ("crop", lambda x: F.pad(x, (-1, 1)), [f32(2, 4)]),
                                     ("reflect 1d", lambda x: F.pad(x, (2, 1), mode="reflect"), [f32(2, 3, 4)]),
                                     ("reflect 2d", lambda x: F.pad(x, (1, 1, 2, 0), "reflect"), [f32(1, 2, 3, 3)]),
                                     ("reflect too wide", lambda x: F.pad(x, (3, 0), mode="reflect"), [f32(1, 3)]),
                                     ("replicate 2d", lambda x: F.pad(x, (2, 1, 0, 3), mode="replicate"), [f32(2, 3, 2)]),
                                     ("replicate 3d", lambda x: F.pad(x, (1, 1, 1, 0, 0, 2), mode="replicate"), [f32(1, 1, 2, 2, 2)]),
                                     ("circular 1d", lambda x: F.pad(x, (2, 3), mode="circular"), [f32(1, 2, 4)]),
                                     ("circular 2d", lambda x: F.pad(x, (1, 0, 1, 2), mode="circular"), [f32(1, 1, 3, 3)]),
                                     ("reflect module", torch.nn.ReflectionPad2d((1, 0, 2, 1)), [f32(1, 2, 3, 3)]),
                                     ("replicate module", torch.nn.ReplicationPad1d(2), [f32(1, 2, 3)]),
                                     ("zero module", torch.nn.ZeroPad2d(1), [f32(1, 1, 2, 2)]),
                                     ("constant module", torch.nn.ConstantPad1d((0, 2), 3.5), [f32(2, 3)]),
                                     ("reflect wrong rank", lambda x: F.pad(x, (1, 1), mode="reflect"), [f32(1, 1, 2, 3)])),
    "torch.split": fixed(*[(f"{d}", lambda x: x.split(2, 1)[1], [dt(d, 2, 5)]) for d in ALL_DTYPES],
                         ("sections", lambda x: torch.split(x, [1, 3], 0)[1], [f32(4, 2)]),
                         ("last piece", lambda x: x.split(2)[-1], [f32(5)]),
                         ("aten list", lambda x: torch.ops.aten.split(x, 2, 0)[1], [f32(5, 3)]),
                         ("all", lambda x: torch.cat(x.split(3, -1), 0), [f32(2, 7)])),

    # Copies, detaching, 2-d transposes and new tensors like an input.
    "torch.clone": fixed(*[(f"{d}", lambda x: x.clone() + x.clone().sum() * 0 if d != torch.bool else x.clone(),
                            [dt(d, 2, 3)]) for d in ALL_DTYPES if d != torch.bool],
                         ("bool", lambda x: torch.clone(x), [dt(torch.bool, 3)])),
    "Tensor.detach": fixed(("f32", lambda x: x.detach(), [f32(2, 3)]),
                           ("0-d int", lambda x: x.detach(), [dt(torch.int8)])),
    "torch.t": fixed(("2-d", lambda x: x.t(), [dt(torch.int32, 2, 3)]),
                     ("1-d", lambda x: torch.t(x), [f32(3)]),
                     ("0-d", lambda x: x.t(), [f32()]),
                     ("then add", lambda x, y: x.t() + y, [f32(2, 3), f32(3, 2)])),
    "Tensor.new_zeros": fixed(("like", lambda x: x.new_zeros(2, 3), [dt(torch.int16, 4)]),
                              ("traced size", lambda x: x.new_zeros(x.shape[0]), [f32(3)]),
                              ("dtype", lambda x: x.new_zeros((2,), dtype=torch.bool), [f32(3)])),
    "Tensor.new_ones": fixed(("like", lambda x: x.new_ones(3), [dt(torch.float16, 4)]),
                             ("0-d", lambda x: x.new_ones([]), [f32(3)])),
    "Tensor.new_full": fixed(("like", lambda x: x.new_full((2, 2), 7), [dt(torch.uint8, 4)]),
                             ("float", lambda x: x.new_full([3], -1.5), [f32(1)])),
    # In-place spellings (the tracer points later uses at the result).
    "_inplace": fixed(
        ("add_", lambda x, y: x.clone().add_(y), [f32(2, 3), f32(3)]),
        ("iadd", lambda x, y: _iadd(x, y), [dt(torch.int32, 3), dt(torch.int32, 3)]),
        ("mul_ float into half", lambda x, y: x.clone().mul_(y), [dt(torch.float16, 3), f32(3)]),
        ("relu_", lambda x: torch.relu_(x.clone()), [f32(4)]),
        ("clamp_", lambda x: x.clone().clamp_(-1, 1), [f32(4)]),
        ("masked_fill_", lambda x, m: x.clone().masked_fill_(m, 0), [f32(4), dt(torch.bool, 4)]),
        ("sigmoid_ chain", lambda x: x.clone().sigmoid_().mul_(2).sub_(1), [f32(2, 2)], TRANSCENDENTAL),
        # ATen's in-place packets, and the deprecated add(input, alpha, other).
        ("aten add_", lambda x, y: torch.ops.aten.add_(x.clone(), y), [f32(2, 3), f32(3)]),
        ("aten sub_ scalar", lambda x: torch.ops.aten.sub_(x.clone(), 2), [dt(torch.int32, 3)]),
        ("aten mul_", lambda x, y: torch.ops.aten.mul_(x.clone(), y), [f32(3), dt(torch.int64, 3)]),
        ("aten div_", lambda x, y: torch.ops.aten.div_(x.clone(), y), [f32(3), positive((3,), torch.float32)]),
        ("add(x, alpha, other)", lambda x: torch.add(x, 3, 2), [dt(torch.int8, 3, 4)]),
        ("sub(x, alpha, other)", lambda x, y: torch.sub(x, 0.5, y), [f32(3), f32(3)]),
        ("x.add(alpha, other)", lambda x: x.add(2, 1.5), [dt(torch.int64, 3)])),

    "torch.select": fixed(*[(f"{d}", lambda x: x.select(1, -1), [dt(d, 2, 3, 4)]) for d in ALL_DTYPES],
                          ("to 0-d", lambda x: torch.select(x, 0, 2), [f32(3)])),
    "torch.movedim": fixed(("one", lambda x: torch.movedim(x, 0, -1), [f32(2, 3, 4)]),
                           ("two", lambda x: x.movedim((0, 1), (2, 0)), [dt(torch.int8, 2, 3, 4)]),
                           ("moveaxis", lambda x: torch.moveaxis(x, -1, 1), [f32(2, 3, 4)])),
    "torch.msort": fixed(
        *[(f"{d}", torch.msort, [dt(d, 5, 3)]) for d in ALL_DTYPES],
        ("method", lambda x: x.msort(), [f32(4)]),
        ("0-d", torch.msort, [f32()]),
        ("nan", torch.msort, [torch.tensor([[2.0, math.nan], [math.nan, 1.0], [0.0, -1.0]])])),
    "torch.sort": fixed(*[(f"{d}", lambda x: torch.sort(x)[0] if d == torch.bool else torch.sort(x, 0)[1],
                           [torch.randperm(6).reshape(3, 2).to(d)]) for d in NUMERIC],
                        ("descending values", lambda x: x.sort(descending=True).values, [f32(2, 5)]),
                        ("nan last", lambda x: x.sort()[1], [torch.tensor([2.0, math.nan, -1.0, 0.5])]),
                        ("0-d", lambda x: x.sort()[0], [f32()])),
    "torch.argsort": fixed(("f32", torch.argsort, [f32(3, 5)]),
                           ("dim 0 descending", lambda x: x.argsort(0, True), [torch.randperm(12).reshape(4, 3)])),
    "torch.topk": fixed(("values", lambda x: torch.topk(x, 2)[0], [f32(3, 5)]),
                        ("indices smallest", lambda x: x.topk(3, dim=0, largest=False).indices, [f32(4, 2)]),
                        ("int", lambda x: x.topk(1)[0], [torch.randperm(10).reshape(2, 5)]),
                        ("k 0", lambda x: x.topk(0)[0], [f32(3)])),
    "torch.scatter": fixed(
        ("src", lambda x, i, s: torch.scatter(x, 0, i, s), [f32(3, 4), torch.tensor([[2, 0, 1, 0]]), f32(2, 4)]),
        ("value", lambda x, i: x.scatter(1, i, 7.5), [f32(2, 3), torch.tensor([[2], [0]])]),
        ("int", lambda x, i, s: x.scatter(1, i, s), [dt(torch.int32, 2, 3), torch.tensor([[1, 0]]), dt(torch.int32, 1, 2)]),
        ("reduce add", lambda x, i, s: x.scatter(0, i, s, reduce="add"), [f32(3, 2), torch.tensor([[1, 1], [1, 0]]), f32(2, 2)]),
        ("reduce multiply", lambda x, i: x.scatter(0, i, 2.0, reduce="multiply"), [f32(3, 2), torch.tensor([[1, 1], [1, 0]])]),
        ("in place", lambda x, i, s: x.clone().scatter_(0, i, s), [f32(3), torch.tensor([2, 0]), f32(2)])),
    "torch.scatter_add": fixed(
        ("repeated", lambda x, i, s: torch.scatter_add(x, 0, i, s), [f32(3, 2), torch.tensor([[0, 0], [0, 2], [1, 1]]), f32(3, 2)]),
        ("int", lambda x, i, s: x.scatter_add(1, i, s), [dt(torch.int64, 2, 3), torch.tensor([[1, 1, 1]]), dt(torch.int64, 1, 3)])),

    # Shapes.
    "torch.flatten": chain(unary(torch.flatten, special=False),
                           _storage_samples(lambda x: torch.flatten(x, 1), (2, 3, 4)),
                           fixed(("range", lambda x: torch.flatten(x, 1, 2), [f32(2, 3, 4, 5)]),
                                 ("module style", lambda x: x.flatten(1), [dt(torch.bool, 2, 3, 4)]))),
    "torch.reshape": chain(unary(lambda x: x.reshape(-1), special=False),
                           fixed(("traced sizes", lambda x: x.reshape([x.shape[0], -1]), [dt(torch.int8, 2, 3, 4)]),
                                 ("to 0-d", lambda x: x.reshape([]), [f32(1)]),
                                 ("empty", lambda x: torch.reshape(x, (3, 0, 2)), [f32(0, 6)]))),
    "Tensor.view": chain(unary(lambda x: x.view(-1), special=False),
                         fixed(("traced sizes", lambda x: x.view(x.size(0), 2, -1), [dt(torch.float16, 2, 4, 3)]),
                               ("from 0-d", lambda x: x.view(1, 1), [f32()])),
                         fixed(*_view_dtype_samples())),
    "torch.permute": fixed(*[("3-d " + str(d), lambda x: x.permute(2, 0, 1), [dt(d, 2, 3, 4)])
                             for d in ALL_DTYPES]),
    "torch.transpose": fixed(*[("2-d " + str(d), lambda x: x.transpose(0, 1), [dt(d, 2, 3)]) for d in ALL_DTYPES],
                             ("negative", lambda x: torch.transpose(x, -1, -3), [f32(2, 3, 4)])),
    "Tensor.contiguous": fixed(("transposed", lambda x: x.transpose(0, 1).contiguous(), [dt(torch.int16, 2, 3)])),
    "torch.unsqueeze": fixed(("0-d", lambda x: x.unsqueeze(0), [f32()]),
                             ("last", lambda x: torch.unsqueeze(x, -1), [dt(torch.bool, 2, 3)]),
                             ("middle", lambda x: x.unsqueeze(1), [dt(torch.uint8, 2, 3)])),
    "torch.squeeze": fixed(("all", lambda x: x.squeeze(), [f32(1, 3, 1)]),
                           ("dim", lambda x: torch.squeeze(x, -1), [dt(torch.int64, 2, 1)]),
                           ("to 0-d", lambda x: x.squeeze(), [f32(1, 1)]),
                           ("not 1", lambda x: x.squeeze(0), [f32(2, 3)])),
    "Tensor.unflatten": fixed(("basic", lambda x: x.unflatten(1, (2, 3)), [f32(4, 6)]),
                              ("-1", lambda x: x.unflatten(-1, (-1, 2)), [dt(torch.int32, 4, 6)])),
    "Tensor.expand": fixed(("basic", lambda x: x.expand(2, 3, 4), [f32(3, 1)]),
                           ("-1", lambda x: x.expand(-1, 4), [dt(torch.bool, 3, 1)]),
                           ("0-d", lambda x: x.expand(3), [f32()])),
    "torch.cat": fixed(
        ("same", lambda a, b: torch.cat([a, b], 1), [f32(2, 3), f32(2, 4)]),
        ("mixed f16 i32", lambda a, b: torch.cat([a, b]), [dt(torch.float16, 2), dt(torch.int32, 3)]),
        ("mixed bool u8", lambda a, b: torch.cat([a, b]), [dt(torch.bool, 2), dt(torch.uint8, 3)]),
        ("mixed f32 f64", lambda a, b: torch.cat([a, b]), [f32(2), dt(torch.float64, 3)]),
        ("mixed i8 u8", lambda a, b: torch.cat([a, b]), [dt(torch.int8, 2), dt(torch.uint8, 3)]),
        ("empty", lambda a, b: torch.cat([a, b], 0), [f32(0, 3), f32(2, 3)]),
        ("negative dim", lambda a, b, c: torch.cat((a, b, c), -1), [f32(2, 1), f32(2, 2), f32(2, 3)]),
        ("quantized", lambda a: torch.cat([a, a], 1), [qtensor((2, 3), 0.05, 3)], QUANT_EXACT)),
    "torch.stack": fixed(
        ("0", lambda a, b: torch.stack([a, b]), [f32(2, 3), f32(2, 3)]),
        ("last", lambda a, b: torch.stack([a, b], -1), [dt(torch.int64, 2, 3), dt(torch.int64, 2, 3)]),
        ("0-d", lambda a, b: torch.stack([a, b]), [f32(), f32()])),
    "torch.chunk": fixed(
        ("even", lambda x: x.chunk(2, 1)[1], [f32(2, 4)]),
        ("uneven", lambda x: torch.chunk(x, 3)[2], [dt(torch.int32, 7, 2)]),
        ("all", lambda x: torch.cat(x.chunk(2, -1), 0), [f32(3, 4)])),
    "operator.getitem": fixed(
        ("index", lambda x: x[1], [f32(3, 4)]),
        ("slice", lambda x: x[:, 1:3], [dt(torch.bool, 3, 4)]),
        ("step", lambda x: x[::2, -1], [f32(5, 4)]),
        ("none ellipsis", lambda x: x[None, ..., 0], [f32(2, 3, 4)]),
        ("negative", lambda x: x[-1], [dt(torch.int16, 3, 2)]),
        ("to 0-d", lambda x: x[1, 2], [f32(3, 4)]),
        # Advanced indexing with tensors.
        ("tensor", lambda x, i: x[i], [f32(4, 3), torch.tensor([3, 0, -1])]),
        ("tensor 2-d", lambda x, i: x[i], [dt(torch.int16, 4, 3), torch.tensor([[1, 2], [0, 0]])]),
        ("after slice", lambda x, i: x[:, i], [f32(2, 4, 3), torch.tensor([1, 3])]),
        ("int and tensor", lambda x, i: x[0, i], [f32(2, 4, 3), torch.tensor([1, 3])]),
        ("separated", lambda x, i, j: x[i, :, j], [f32(3, 2, 4), torch.tensor([0, 2]), torch.tensor([1, 3])]),
        ("separated by int", lambda x, i: x[:, i, :, 0], [f32(2, 3, 4, 5), torch.tensor([[2], [0]])]),
        ("broadcast", lambda x, i, j: x[i, j], [f32(3, 4), torch.tensor([[0], [2]]), torch.tensor([1, 3, 0])]),
        ("bool mask", lambda x, m: x[m], [f32(3, 4), dt(torch.bool, 3, 4)]),
        ("bool rows", lambda x, m: x[m], [f32(3, 4), torch.tensor([True, False, True])]),
        ("int32 index", lambda x, i: x[..., i], [f32(2, 5), torch.tensor([4, 1], dtype=torch.int32)]),
        ("list", lambda x: x[[0, 2]], [f32(3, 2)]),
        ("table", lambda t, i: t[i.view(-1)].view(2, 2, -1), [f32(5, 3), torch.tensor([[0, 4], [2, 2]])])),
    "torch.zeros": fixed(
        ("traced size", Graph(lambda x: torch.zeros(x.size(0), 3), """%a0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %n = call_method %a0["size"](0) : (tensor<2x3xf32>) -> i64
    %r = call_function "torch.zeros"(%n, 3) : (i64) -> tensor<2x3xf32>
    output %r : tensor<2x3xf32>"""), [f32(2, 3)]),
        ("tuple dtype", Graph(lambda x: torch.zeros((x.size(1), 2), dtype=torch.int32), """%a0: tensor<2x3xf32>) -> tensor<3x2xi32> {
    %n = call_method %a0["size"](1) : (tensor<2x3xf32>) -> i64
    %r = call_function "torch.zeros"((%n, 2), dtype=dtype(i32)) : (i64) -> tensor<3x2xi32>
    output %r : tensor<3x2xi32>"""), [f32(2, 3)])),
    "torch.ones": fixed(
        ("traced size", Graph(lambda x: torch.ones(x.size(0)), """%a0: tensor<4xf32>) -> tensor<4xf32> {
    %n = call_method %a0["size"](0) : (tensor<4xf32>) -> i64
    %r = call_function "torch.ones"(%n) : (i64) -> tensor<4xf32>
    output %r : tensor<4xf32>"""), [f32(4)]),
        ("bool", Graph(lambda x: torch.ones(x.shape, dtype=torch.bool), """%a0: tensor<2x1xf32>) -> tensor<2x1xi1> {
    %s = call_function "builtins.getattr"(%a0, "shape") : (tensor<2x1xf32>) -> tuple<i64, i64>
    %r = call_function "torch.ones"(%s, dtype=dtype(i1)) : (tuple<i64, i64>) -> tensor<2x1xi1>
    output %r : tensor<2x1xi1>"""), [f32(2, 1)])),
    "torch.empty": fixed(
        ("no elements", Graph(lambda x: torch.empty(x.size(0), 0), """%a0: tensor<3xf32>) -> tensor<3x0xf32> {
    %n = call_method %a0["size"](0) : (tensor<3xf32>) -> i64
    %r = call_function "torch.empty"(%n, 0) : (i64) -> tensor<3x0xf32>
    output %r : tensor<3x0xf32>"""), [f32(3)])),
    "torch.full": fixed(
        ("float", Graph(lambda x: torch.full((x.size(0), 2), 1.5), """%a0: tensor<3xf32>) -> tensor<3x2xf32> {
    %n = call_method %a0["size"](0) : (tensor<3xf32>) -> i64
    %r = call_function "torch.full"((%n, 2), 1.5) : (i64) -> tensor<3x2xf32>
    output %r : tensor<3x2xf32>"""), [f32(3)]),
        ("int", Graph(lambda x: torch.full([x.size(0)], 7), """%a0: tensor<2xf32>) -> tensor<2xi64> {
    %n = call_method %a0["size"](0) : (tensor<2xf32>) -> i64
    %r = call_function "torch.full"([%n], 7) : (i64) -> tensor<2xi64>
    output %r : tensor<2xi64>"""), [f32(2)]),
        ("bool", Graph(lambda x: torch.full((2, x.size(0)), True), """%a0: tensor<3xf32>) -> tensor<2x3xi1> {
    %n = call_method %a0["size"](0) : (tensor<3xf32>) -> i64
    %r = call_function "torch.full"((2, %n), True) : (i64) -> tensor<2x3xi1>
    output %r : tensor<2x3xi1>"""), [f32(3)]),
        ("traced fill", Graph(lambda x: torch.full((2,), x.size(0), dtype=torch.float64), """%a0: tensor<3xf32>) -> tensor<2xf64> {
    %n = call_method %a0["size"](0) : (tensor<3xf32>) -> i64
    %r = call_function "torch.full"((2,), %n, dtype=dtype(f64)) : (i64) -> tensor<2xf64>
    output %r : tensor<2xf64>"""), [f32(3)])),
    "torch.arange": fixed(
        ("end", Graph(lambda x: torch.arange(x.size(0)), """%a0: tensor<5xf32>) -> tensor<5xi64> {
    %n = call_method %a0["size"](0) : (tensor<5xf32>) -> i64
    %r = call_function "torch.arange"(%n) : (i64) -> tensor<5xi64>
    output %r : tensor<5xi64>"""), [f32(5)]),
        ("start end", Graph(lambda x: torch.arange(1, x.size(0)), """%a0: tensor<5xf32>) -> tensor<4xi64> {
    %n = call_method %a0["size"](0) : (tensor<5xf32>) -> i64
    %r = call_function "torch.arange"(1, %n) : (i64) -> tensor<4xi64>
    output %r : tensor<4xi64>"""), [f32(5)]),
        ("float step", Graph(lambda x: torch.arange(0, x.size(0), 0.5), """%a0: tensor<3xf32>) -> tensor<6xf32> {
    %n = call_method %a0["size"](0) : (tensor<3xf32>) -> i64
    %r = call_function "torch.arange"(0, %n, 0.5) : (i64) -> tensor<6xf32>
    output %r : tensor<6xf32>"""), [f32(3)]),
        ("negative step", Graph(lambda x: torch.arange(x.size(0), 0, -2), """%a0: tensor<7xf32>) -> tensor<4xi64> {
    %n = call_method %a0["size"](0) : (tensor<7xf32>) -> i64
    %r = call_function "torch.arange"(%n, 0, -2) : (i64) -> tensor<4xi64>
    output %r : tensor<4xi64>"""), [f32(7)]),
        ("dtype", Graph(lambda x: torch.arange(x.size(0), dtype=torch.float32), """%a0: tensor<4xf32>) -> tensor<4xf32> {
    %n = call_method %a0["size"](0) : (tensor<4xf32>) -> i64
    %r = call_function "torch.arange"(%n, dtype=dtype(f32)) : (i64) -> tensor<4xf32>
    output %r : tensor<4xf32>"""), [f32(4)]),
        # out=: the values in its dtype (1.1 is 1 in int64), its shape kept
        # when the sizes agree (torch-mlir's ArangeStartOut* tests).
        ("out=", lambda x: torch.arange(start=0, end=12, out=x.clone()), [dt(torch.int64, 12)]),
        ("out= 2-d", lambda x: torch.arange(start=1, end=13, out=x.clone()), [dt(torch.int64, 3, 4)]),
        ("out= int64 of floats", lambda x: torch.arange(start=1.1, end=13.1, out=x.clone()), [dt(torch.int64, 12)]),
        ("out= float64, resized", lambda x: torch.arange(0, 2, 0.25, out=x.clone()), [dt(torch.float64, 3)])),
    "torch.linspace": fixed(
        ("steps", Graph(lambda x: torch.linspace(0, 1, x.size(0)), """%a0: tensor<5xf32>) -> tensor<5xf32> {
    %n = call_method %a0["size"](0) : (tensor<5xf32>) -> i64
    %r = call_function "torch.linspace"(0, 1, %n) : (i64) -> tensor<5xf32>
    output %r : tensor<5xf32>"""), [f32(5)]),
        ("reverse", Graph(lambda x: torch.linspace(2.5, -1, x.size(0)), """%a0: tensor<8xf32>) -> tensor<8xf32> {
    %n = call_method %a0["size"](0) : (tensor<8xf32>) -> i64
    %r = call_function "torch.linspace"(2.5, -1, %n) : (i64) -> tensor<8xf32>
    output %r : tensor<8xf32>"""), [f32(8)]),
        ("one", Graph(lambda x: torch.linspace(3, 4, x.size(0)), """%a0: tensor<1xf32>) -> tensor<1xf32> {
    %n = call_method %a0["size"](0) : (tensor<1xf32>) -> i64
    %r = call_function "torch.linspace"(3, 4, %n) : (i64) -> tensor<1xf32>
    output %r : tensor<1xf32>"""), [f32(1)])),
    "torch.eye": fixed(
        ("square", Graph(lambda x: torch.eye(x.size(0)), """%a0: tensor<3xf32>) -> tensor<3x3xf32> {
    %n = call_method %a0["size"](0) : (tensor<3xf32>) -> i64
    %r = call_function "torch.eye"(%n) : (i64) -> tensor<3x3xf32>
    output %r : tensor<3x3xf32>"""), [f32(3)]),
        ("rect", Graph(lambda x: torch.eye(2, x.size(0), dtype=torch.int64), """%a0: tensor<4xf32>) -> tensor<2x4xi64> {
    %n = call_method %a0["size"](0) : (tensor<4xf32>) -> i64
    %r = call_function "torch.eye"(2, %n, dtype=dtype(i64)) : (i64) -> tensor<2x4xi64>
    output %r : tensor<2x4xi64>"""), [f32(4)])),
    "Tensor.new_empty": fixed(
        ("shape", lambda x: x.new_empty(x.shape[0], 0), [dt(torch.int32, 3)])),
    "operator.setitem": fixed(
        ("int", lambda x: _set(x, 1, 7.5), [f32(3, 4)]),
        ("slice", lambda x, v: _set(x, (slice(None), slice(1, 3)), v), [f32(3, 4), f32(3, 2)]),
        ("step broadcast", lambda x, v: _set(x, slice(None, None, 2), v), [dt(torch.int32, 5, 3), dt(torch.int32, 3)]),
        ("float into int", lambda x: _set(x, (0, 1), 2.7), [dt(torch.int64, 2, 3)]),
        ("bool", lambda x: _set(x, 0, True), [dt(torch.bool, 2, 3)]),
        ("ellipsis", lambda x, v: _set(x, (Ellipsis, 0), v), [f32(2, 3, 4), dt(torch.float64, 2, 3)]),
        ("tensor index", lambda x, i, v: _set(x, i, v), [f32(4, 3), torch.tensor([3, 0]), f32(2, 3)]),
        ("mask", lambda x, m: _set(x, m, 0.0), [f32(3, 4), dt(torch.bool, 3, 4)]),
        ("0-d", lambda x, v: _set(x, (), v), [f32(), f32()]),
        ("after use", lambda x: _set_after_use(x), [f32(2, 3)]),
        ("window of a number", lambda x: _set(x, (slice(1, 3), slice(None, None, 2)), -1.0), [f32(4, 5)]),
        ("uint8 window", lambda x: _set(x, (Ellipsis, slice(-2, None)), 300), [dt(torch.uint8, 2, 4)]),
        ("int tensor into float", lambda x, v: _set(x, (slice(None), 1), v), [f32(3, 4), dt(torch.int64, 3)]),
        ("negative tensor index, number", lambda x, i: _set(x, i, 2.5), [f32(4, 3), torch.tensor([-1, 1])]),
        ("two tensor indices", lambda x, i, j, v: _set(x, (i, j), v),
         [dt(torch.int32, 3, 4, 2), torch.tensor([[0], [2]]), torch.tensor([3, -4]), dt(torch.int32, 2)]),
        ("leading mask", lambda x, m: _set(x, m, -3), [dt(torch.int64, 3, 2, 2), dt(torch.bool, 3, 2)]),
        ("mask, 0-d tensor", lambda x, m, v: _set(x, m, v), [f32(2, 5), dt(torch.bool, 2, 5), dt(torch.float64)]),
        ("mask, rows", lambda x, m, v: _set(x, m, v),
         [dt(torch.int32, 4, 2), torch.tensor([False, True, True, False]), dt(torch.int64, 2, 2)])),
    "torch.masked_scatter": fixed(
        *[(f"{d}", lambda x, m, s: torch.masked_scatter(x, m, s),
           [dt(d, 3, 4), torch.arange(12).reshape(3, 4) % 3 == 1, dt(d, 2, 5)]) for d in ALL_DTYPES],
        ("broadcast input", lambda x, m, s: x.masked_scatter(m, s),
         [f32(4), torch.tensor([[True, False, True, False], [False, False, True, True]]), f32(6)]),
        ("broadcast mask", lambda x, m, s: torch.masked_scatter(x, m, s),
         [f32(3, 4), torch.tensor([False, True, True, False]), f32(8)]),
        ("uint8 mask", lambda x, m, s: torch.masked_scatter(x, m, s),
         [f32(2, 3), torch.tensor([[1, 0, 2], [0, 0, 1]], dtype=torch.uint8), f32(3)]),
        ("none selected", lambda x, m, s: torch.masked_scatter(x, m, s),
         [f32(2, 3), torch.zeros(2, 3, dtype=torch.bool), f32(1)]),
        ("source too short", lambda x, m, s: torch.masked_scatter(x, m, s),
         [f32(2, 3), torch.ones(2, 3, dtype=torch.bool), f32(5)]),
        ("source of another dtype", lambda x, m, s: torch.masked_scatter(x, m, s),
         [f32(2, 3), torch.ones(2, 3, dtype=torch.bool), dt(torch.float64, 6)])),
    "torch.index_put": fixed(
        ("put", lambda x, i, v: x.index_put((i,), v), [f32(4, 3), torch.tensor([1, 3]), f32(2, 3)]),
        ("accumulate repeated", lambda x, i, v: torch.index_put(x, (i,), v, accumulate=True),
         [dt(torch.int32, 5), torch.tensor([0, 2, 0, 4]), dt(torch.int32, 4)]),
        ("two dims", lambda x, i, j, v: x.index_put((i, j), v), [f32(3, 4), torch.tensor([0, 2]), torch.tensor([3, 1]), f32()]),
        ("two dims accumulate, broadcast", lambda x, i, j, v: torch.index_put(x, (i, j), v, accumulate=True),
         [f32(3, 4, 2), torch.tensor([[0], [2], [0]]), torch.tensor([-1, 1]), f32(2)]),
        ("in place", lambda x, i, v: x.clone().index_put_((i,), v), [f32(4, 2), torch.tensor([0]), f32(2)]),
        # None takes a whole dim: adjacent index tensors keep their place
        # in the values' shape, separated ones go first.
        ("None first", lambda x, i, v: torch.ops.aten.index_put(x, (None, i), v),
         [dt(torch.int64, 1, 4), torch.tensor([2, 0, 1]), dt(torch.int64, 1, 3)]),
        ("None first, accumulate", lambda x, i, v: torch.ops.aten.index_put(x, (None, i), v, True),
         [f32(2, 3), torch.tensor([2, 0, 2]), f32(2, 3)]),
        ("Nones, adjacent", lambda x, i, j, v: torch.ops.aten.index_put(x, (None, None, i, j), v, True),
         [f32(2, 3, 4, 5), torch.tensor([[1], [3]]), torch.tensor([4, 0, 2]), f32(1, 2, 3)]),
        ("None between", lambda x, i, j, v: torch.ops.aten.index_put(x, (i, None, j), v),
         [f32(3, 2, 4), torch.tensor([2, 0]), torch.tensor([1, 3]), f32(2, 2)]),
        ("None last", lambda x, i, v: torch.ops.aten.index_put(x, (i, None), v),
         [f32(3, 2), torch.tensor([1]), f32(2)]),
        # A bool mask takes the values' rows in order; their count must be
        # the mask's (or one row, broadcast).
        ("mask rows", lambda x, m, v: torch.ops.aten.index_put(x, (m,), v),
         [f32(5, 4), torch.tensor([True, False, True, True, False]), f32(3, 4)]),
        ("mask rows, accumulate", lambda x, m, v: torch.index_put(x, (m,), v, accumulate=True),
         [dt(torch.int64, 5, 4), torch.tensor([False, False, True, True, True]), dt(torch.int32, 3, 4)]),
        ("mask elements", lambda x, m, v: torch.ops.aten.index_put(x, (m,), v),
         [f32(2, 3, 4), torch.arange(24).reshape(2, 3, 4) % 7 == 3, f32(3)]),
        ("mask, one row broadcast", lambda x, m, v: torch.ops.aten.index_put(x, (m,), v),
         [f32(4, 3), torch.tensor([True, False, True, True]), f32(1, 3)]),
        ("mask, none selected", lambda x, m, v: torch.ops.aten.index_put(x, (m,), v),
         [f32(3, 2), torch.tensor([False, False, False]), f32(2)]),
        ("mask, too many rows", lambda x, m, v: torch.ops.aten.index_put(x, (m,), v),
         [f32(4, 3), torch.tensor([True, False, True, False]), f32(3, 3)]),
        ("mask, too few rows", lambda x, m, v: torch.ops.aten.index_put(x, (m,), v),
         [f32(4, 3), torch.tensor([True, True, True, False]), f32(2, 3)]),
        # An integer index beside a mask: pairs of (i, the mask's positions).
        ("int and mask", lambda x, i, m, v: torch.ops.aten.index_put(x, (i, m), v),
         [f32(5, 5), torch.tensor([0, 2, 4]), torch.tensor([True, False, True, True, False]), f32(3)]),
        ("mask and int, accumulate", lambda x, m, i, v: torch.ops.aten.index_put(x, (m, i), v, True),
         [f32(4, 3), torch.tensor([False, True, True, False]), torch.tensor([2, -1]), f32(2)]),
        ("int and mask, one value", lambda x, i, m, v: torch.ops.aten.index_put(x, (i, m), v),
         [dt(torch.int32, 3, 4), torch.tensor([1, 1]), torch.tensor([True, False, False, True]),
          dt(torch.int32)]),
        ("int and mask, count differs", lambda x, i, m, v: torch.ops.aten.index_put(x, (i, m), v),
         [f32(5, 5), torch.tensor([0, 2, 4]), torch.tensor([True, False, True, False, False]), f32(3)])),
    "Tensor.size": fixed(("as shape", lambda x: x.view(x.size(1), x.size(0)), [f32(2, 3)]),
                         ("all", lambda x: x.reshape(x.size()), [f32(2, 3)])),
    "Tensor.dim": fixed(("in arithmetic", lambda x: x * x.dim(), [f32(2, 3)])),
    # Python numbers: ATen's conversions and prim's min and max.
    "torch.ops.aten.ScalarImplicit.default": fixed(
        *[(f"{d}", lambda x: torch.ops.aten.ScalarImplicit(x), [dt(d)]) for d in ALL_DTYPES],
        ("1-d", lambda x: torch.ops.aten.ScalarImplicit(x), [f32(1)])),
    "torch.ops.aten.Float": fixed(
        *[(f"{d}", lambda x: torch.ops.aten.Float(x), [dt(d, 1, 1)]) for d in ALL_DTYPES],
        ("int64 above 2**53", lambda x: torch.ops.aten.Float(x), [torch.tensor(2**60 + 1)]),
        ("of ScalarImplicit", _number_graph(
            lambda x: torch.ops.aten.Float(torch.ops.aten.ScalarImplicit(x)),
            "tensor<i32>", [("torch.ops.aten.ScalarImplicit.default", "i64"),
                            ("torch.ops.aten.Float", "f64")]), [dt(torch.int32)]),
        ("two elements", lambda x: torch.ops.aten.Float(x), [f32(2)])),
    "torch.ops.aten.Int": fixed(
        *[(f"{d}", lambda x: torch.ops.aten.Int(x), [dt(d)]) for d in ALL_DTYPES],
        *[(f"{v}", lambda x: torch.ops.aten.Int(x), [torch.tensor(v, dtype=torch.float64)])
          for v in (-2.7, 2.7, -0.5, 1e18, -9.3e18, -2.0**63)],
        ("NaN", lambda x: torch.ops.aten.Int(x), [torch.tensor(math.nan)]),
        # torch's range check lets 2**63 through, to x86's INT64_MIN.
        ("2**63", lambda x: torch.ops.aten.Int(x), [torch.tensor(2.0**63, dtype=torch.float64)]),
        ("above 2**63", lambda x: torch.ops.aten.Int(x), [torch.tensor(2.0**64, dtype=torch.float64)]),
        # (The packet torch.ops.aten.Int(5) binds Int.bool: 1. Int.Scalar
        # converts.)
        *[(f"of a size {n}", _number_graph(lambda x: torch.ops.aten.Int.Scalar(x.size(1)),
                                           f"tensor<2x{n}xf32>",
                                           [("Tensor.size", "i64"), ("torch.ops.aten.Int.Scalar", "i64")]),
           [f32(2, n)]) for n in (0, 3)],
        ("of a quotient", _number_graph(lambda x: torch.ops.aten.Int.float(x.size(1) / -4),
                                        "tensor<2x9xf32>",
                                        [("Tensor.size", "i64"), ("operator.truediv", "f64", "-4"),
                                         ("torch.ops.aten.Int.float", "i64")]), [f32(2, 9)])),
    "torch.ops.aten.Bool": fixed(
        *[(f"{d}", lambda x: torch.ops.aten.Bool(x), [dt(d)]) for d in ALL_DTYPES],
        *[(f"{v}", lambda x: torch.ops.aten.Bool(x), [torch.tensor(v)])
          for v in (0.0, -0.0, math.nan, 0.25)],
        *[(f"of a size {n}", _number_graph(lambda x: torch.ops.aten.Bool(x.size(1)), f"tensor<2x{n}xf32>",
                                           [("Tensor.size", "i64"), ("torch.ops.aten.Bool", "i1")]),
           [f32(2, n)]) for n in (0, 3)],
        ("two elements", lambda x: torch.ops.aten.Bool(x), [f32(2)])),
    "torch.ops.prim.min": fixed(*_prim_extreme_samples(torch.ops.prim.min, "min")),
    "torch.ops.prim.max": fixed(*_prim_extreme_samples(torch.ops.prim.max, "max")),
    "math.ceil": fixed(*_rounding_samples(math.ceil, "ceil")),
    "math.floor": fixed(*_rounding_samples(math.floor, "floor")),
    "math.trunc": fixed(*_rounding_samples(math.trunc, "trunc")),
    "builtins.getattr": fixed(
        ("shape", Graph(lambda x: x.reshape(x.shape[1], -1), """%a0: tensor<2x3xf32>) -> tensor<3x2xf32> {
    %s = call_function "builtins.getattr"(%a0, "shape") : (tensor<2x3xf32>) -> tuple<i64, i64>
    %n = call_function "operator.getitem"(%s, 1) : (tuple<i64, i64>) -> i64
    %r = call_method %a0["reshape"](%n, -1) : (tensor<2x3xf32>, i64) -> tensor<3x2xf32>
    output %r : tensor<3x2xf32>"""), [f32(2, 3)]),
        ("T", lambda x: x.T, [f32(2, 3, 4)]),
        ("mT", lambda x: x.mT + 1, [dt(torch.int32, 2, 3, 4)]),
        ("mT 0-d", lambda x: x.mT * 2, [f32()]),
        ("mH 0-d", lambda x: x.mH + 1, [dt(torch.int64, )]),
        ("mT vector", lambda x: x.mT, [f32(3)]),
        ("H", lambda x: x.H, [f32(2, 3)]),
        ("data", lambda x: x.data * 2, [f32(3)])),
    "torch._assert": fixed(("true", lambda x: (torch._assert(x.shape[0] == 2, "no"), x + 1)[1], [f32(2, 3)])),
}
