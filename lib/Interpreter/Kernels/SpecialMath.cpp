//===- SpecialMath.cpp - torch.special's functions, interpreted ----------===//
//
// The kernels of the special functions (lgamma, digamma, polygamma,
// mvlgamma, the Bessel functions, ndtr/ndtri/log_ndtr, erfcx, zeta,
// airy_ai, the orthogonal polynomials, entr, xlog1py): the algorithms of
// TracedIR/Support/SpecialFunctions.h over C++ numbers, which the CPU
// lowering builds as IR too; igamma and igammac, which call the scalar
// special-function runtime as compiled code does (docs/special-runtime.md);
// and gcd, lcm, nextafter and frexp. Part of
// the Elementwise family (populateElementwiseKernels registers them).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TracedIR/Runtime/SpecialRuntime.h"
#include "TracedIR/Support/SpecialFunctions.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::kernels;
namespace sf = mlir::traced::special;

namespace {
/// Where torch computes a function: in the input's own precision (float
/// for float32, float16 and bfloat16), or in double and rounded once.
enum class Precision { Input, Double };

/// `fn(backend, x)` over a floating tensor (integers and bools become
/// float32 first), in precision `p`; float16/bfloat16 results rounded.
template <typename Fn>
FailureOr<RtValue> special(const KernelArgs &args, Precision p, Fn fn) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  Tensor x = isFloatingPoint(in->dtype()) ? *in : in->to(DType::F32);
  Tensor out(x.dtype(), x.shape());
  int64_t n = x.numel();
  if (x.storage() == Storage::Double) {
    const double *px = x.data<double>();
    double *o = out.data<double>();
    for (int64_t i = 0; i < n; ++i)
      o[i] = fn(sf::Scalar<double>(), sf::Num<double>(px[i])).v;
    return RtValue(out);
  }
  const float *px = x.data<float>();
  float *o = out.data<float>();
  for (int64_t i = 0; i < n; ++i)
    o[i] = p == Precision::Double
               ? static_cast<float>(
                     fn(sf::Scalar<double>(),
                        sf::Num<double>(static_cast<double>(px[i])))
                         .v)
               : fn(sf::Scalar<float>(), sf::Num<float>(px[i])).v;
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> lgamma(const KernelArgs &args) {
  return special(args, Precision::Double,
                 [](auto m, auto x) { return sf::lgamma(m, x); });
}

FailureOr<RtValue> erfinv(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::erfinv(m, x); });
}

FailureOr<RtValue> digamma(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::digamma(m, x); });
}

FailureOr<RtValue> polygamma(const KernelArgs &args) {
  FailureOr<int64_t> n = args.getInt("n");
  if (failed(n))
    return failure();
  if (*n < 0)
    return args.emitError()
           << "polygamma(n, x) does not support negative n (got " << *n << ")";
  int64_t order = *n;
  if (order == 0)
    return digamma(args);
  if (order == 1)
    return special(args, Precision::Input,
                   [](auto m, auto x) { return sf::trigamma(m, x); });
  return special(args, Precision::Double, [order](auto m, auto x) {
    return sf::polygammaHigh(m, order, x);
  });
}

/// mvlgamma(x, p) = sum_j lgamma(x - j/2) + p (p - 1) / 4 log(pi), torch's
/// order of the sum (j from p - 1 down to 0); every element must exceed
/// (p - 1) / 2.
FailureOr<RtValue> mvlgamma(const KernelArgs &args) {
  FailureOr<int64_t> p = args.getInt("p");
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(p) || failed(in))
    return failure();
  if (*p < 1)
    return args.emitError() << "mvlgamma: p has to be greater than or equal "
                               "to 1 (got "
                            << *p << ")";
  Tensor x = isFloatingPoint(in->dtype()) ? *in : in->to(DType::F32);
  double bound = 0.5 * static_cast<double>(*p - 1);
  for (int64_t i = 0, n = x.numel(); i < n; ++i)
    if (!(in->getDouble(i) > bound))
      return args.emitError()
             << "mvlgamma: all elements must be greater than (p-1)/2 = "
             << bound;
  int64_t order = *p;
  return special(args, Precision::Input, [order](auto m, auto v) {
    // (torch adds arange(-p/2 + 0.5, 0.5, 0.5) in the input's dtype, takes
    // the lgammas in that dtype and sums them.)
    auto sum = m.c(0);
    for (int64_t j = 0; j < order; ++j) {
      auto shifted = v + (-0.5 * static_cast<double>(order) +
                          0.5 * static_cast<double>(j + 1));
      sum = sum + m.fromWide(sf::lgamma(m.wide(), m.toWide(shifted)));
    }
    return sum + static_cast<double>(order * (order - 1)) / 4 *
                     std::log(sf::kPi);
  });
}

FailureOr<RtValue> besselI0(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::besselI(m, x, 0, false); });
}
FailureOr<RtValue> besselI0e(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::besselI(m, x, 0, true); });
}
FailureOr<RtValue> besselI1(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::besselI(m, x, 1, false); });
}
FailureOr<RtValue> besselI1e(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::besselI(m, x, 1, true); });
}

FailureOr<RtValue> ndtr(const KernelArgs &args) {
  return special(args, Precision::Double,
                 [](auto m, auto x) { return sf::ndtr(m, x); });
}
FailureOr<RtValue> ndtri(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::ndtri(m, x); });
}
FailureOr<RtValue> logNdtr(const KernelArgs &args) {
  return special(args, Precision::Double,
                 [](auto m, auto x) { return sf::logNdtr(m, x); });
}
FailureOr<RtValue> erfcx(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::erfcx(m, x); });
}

/// zeta(x, q), broadcast and promoted; torch computes it in double for
/// float.
FailureOr<RtValue> zeta(const KernelArgs &args) {
  return binary(
      args, "input", "other",
      [](auto x, auto q) {
        using C = decltype(x);
        return static_cast<C>(
            sf::zetaGuarded(sf::Scalar<double>(),
                            sf::Num<double>(static_cast<double>(x)),
                            sf::Num<double>(static_cast<double>(q)))
                .v);
      },
      ResultKind::Float);
}
FailureOr<RtValue> entr(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::entr(m, x); });
}

/// igamma(a, x) (`Upper`: igammac), broadcast and promoted: the runtime's
/// float routine for float32, float16 and bfloat16 (rounded after), its
/// double one for float64, as torch's calc_igamma<float> / <double>. (The
/// op table refuses bool and integer operands, as torch does.)
template <bool Upper>
FailureOr<RtValue> incompleteGamma(const KernelArgs &args) {
  return binary(
      args, "input", "other",
      [](auto a, auto x) {
        using C = decltype(a);
        if constexpr (std::is_same_v<C, float>)
          return Upper ? traced_igammac_f32(a, x) : traced_igamma_f32(a, x);
        else
          return static_cast<C>(
              Upper ? traced_igammac_f64(static_cast<double>(a),
                                         static_cast<double>(x))
                    : traced_igamma_f64(static_cast<double>(a),
                                        static_cast<double>(x)));
      },
      ResultKind::Promoted);
}

/// xlog1py(x, y), broadcast and promoted, in the promoted float dtype.
FailureOr<RtValue> xlog1py(const KernelArgs &args) {
  return binary(
      args, "input", "other",
      [](auto x, auto y) {
        using C = decltype(x);
        if constexpr (std::is_floating_point_v<C>)
          return sf::xlog1py(sf::Scalar<C>(), sf::Num<C>(x), sf::Num<C>(y)).v;
        else
          return C(0); // (never: the dtype is floating)
      },
      ResultKind::Float);
}
/// |v| wrapped to `dtype` (|-128| is -128 in int8, as torch's std::abs
/// assigned back to the dtype), without overflowing int64.
int64_t wrappedAbs(int64_t v, DType dtype) {
  uint64_t u = static_cast<uint64_t>(v);
  return wrapToDType(static_cast<int64_t>(v < 0 ? 0 - u : u), dtype);
}

/// torch's calc_gcd in `dtype`: Euclid from the wrapped magnitudes with
/// C++'s truncating remainder (a result may be negative, as torch's is); a
/// remainder by -1 is 0.
int64_t gcdOf(int64_t a, int64_t b, DType dtype) {
  int64_t x = wrappedAbs(a, dtype), y = wrappedAbs(b, dtype);
  while (x != 0) {
    int64_t r = x == -1 ? 0 : y % x;
    y = x;
    x = r;
  }
  return y;
}

/// torch's lcm: |a / gcd * b|, 0 when the gcd is 0, in C++'s promoted
/// type (int for the narrower dtypes, int64 for int64), wrapping (a / -1
/// is -a).
int64_t lcmOf(int64_t a, int64_t b, DType dtype) {
  int64_t g = gcdOf(a, b, dtype);
  if (g == 0)
    return 0;
  uint64_t q = g == -1 ? 0 - static_cast<uint64_t>(a)
                       : static_cast<uint64_t>(a / g);
  uint64_t p = q * static_cast<uint64_t>(b);
  if (dtype != DType::I64) {
    auto r = static_cast<int32_t>(static_cast<uint32_t>(p));
    return r < 0 ? static_cast<int32_t>(0u - static_cast<uint32_t>(r)) : r;
  }
  auto r = static_cast<int64_t>(p);
  return r < 0 ? static_cast<int64_t>(0 - p) : r;
}

/// The promoted dtype of the operands `input` and `other`.
FailureOr<DType> promotedDType(const KernelArgs &args) {
  FailureOr<Operand> a = operand(args, "input"), b = operand(args, "other");
  if (failed(a) || failed(b))
    return failure();
  return resultType({promotionOf(*a), promotionOf(*b)});
}

template <int64_t (*Fn)(int64_t, int64_t, DType)>
FailureOr<RtValue> integerPair(const KernelArgs &args) {
  FailureOr<DType> dtype = promotedDType(args);
  if (failed(dtype))
    return failure();
  DType d = *dtype;
  return binary(args, "input", "other", [d](auto a, auto b) {
    using C = decltype(a);
    if constexpr (std::is_integral_v<C>)
      return static_cast<C>(Fn(a, b, d));
    else
      return C(0); // (never: the op library refuses floats)
  });
}

/// frexp: x = mantissa * 2^exponent with |mantissa| in [0.5, 1); zeros,
/// infinities and NaN are themselves with exponent 0 (libm's, as torch).
FailureOr<RtValue> frexp(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (!isFloatingPoint(in->dtype()))
    return args.emitError() << "frexp takes floating-point tensors";
  Tensor mantissa(in->dtype(), in->shape());
  Tensor exponent(DType::I32, in->shape());
  auto *e = exponent.data<int64_t>(); // (integers are stored as int64)
  int64_t n = in->numel();
  if (in->storage() == Storage::Double) {
    const double *x = in->data<double>();
    double *m = mantissa.data<double>();
    for (int64_t i = 0; i < n; ++i) {
      int exp = 0;
      m[i] = std::isfinite(x[i]) ? std::frexp(x[i], &exp) : x[i];
      e[i] = exp;
    }
  } else {
    const float *x = in->data<float>();
    float *m = mantissa.data<float>();
    for (int64_t i = 0; i < n; ++i) {
      int exp = 0;
      m[i] = std::isfinite(x[i]) ? std::frexp(x[i], &exp) : x[i];
      e[i] = exp;
    }
  }
  return RtValue::ofList({RtValue(mantissa), RtValue(exponent)}, true);
}

/// The next representable value after x toward y in the dtype: float and
/// double through libm, bfloat16 (held in float) a step of 2^16 in the
/// float's bits.
FailureOr<RtValue> nextafter(const KernelArgs &args) {
  FailureOr<DType> dtype = promotedDType(args);
  if (failed(dtype))
    return failure();
  bool bf16 = *dtype == DType::BF16;
  return binary(args, "input", "other", [bf16](auto x, auto y) {
    using C = decltype(x);
    if constexpr (std::is_same_v<C, double>) {
      return std::nextafter(x, y);
    } else if constexpr (std::is_same_v<C, float>) {
      if (!bf16)
        return std::nextafter(x, y);
      if (std::isnan(x) || std::isnan(y))
        return std::numeric_limits<float>::quiet_NaN();
      if (x == y)
        return y;
      uint32_t bits;
      std::memcpy(&bits, &x, 4);
      if (x == 0)
        bits = (std::signbit(y) ? 0x80000000u : 0u) | 0x10000u;
      else if ((y > x) == (x > 0))
        bits += 0x10000u;
      else
        bits -= 0x10000u;
      float r;
      std::memcpy(&r, &bits, 4);
      return r;
    } else {
      return C(0); // (never: the op library refuses integers)
    }
  });
}
FailureOr<RtValue> modifiedBesselI0(const KernelArgs &args) {
  return special(args, Precision::Input, [](auto m, auto x) {
    return sf::besselI(m, x, 0, false, /*fullTables=*/true);
  });
}
FailureOr<RtValue> modifiedBesselI1(const KernelArgs &args) {
  return special(args, Precision::Input, [](auto m, auto x) {
    return sf::besselI(m, x, 1, false, /*fullTables=*/true);
  });
}
FailureOr<RtValue> sphericalBesselJ0(const KernelArgs &args) {
  return special(args, Precision::Input,
                 [](auto m, auto x) { return sf::sphericalBesselJ0(m, x); });
}

/// The Bessel functions of torch.special, in the input's precision.
#define TRACED_BESSEL_KERNEL(NAME, CALL)                                       \
  FailureOr<RtValue> NAME(const KernelArgs &args) {                            \
    return special(args, Precision::Input,                                     \
                   [](auto m, auto x) { return CALL; });                       \
  }
TRACED_BESSEL_KERNEL(bessel_j0, sf::besselJ0(m, x))
TRACED_BESSEL_KERNEL(bessel_j1, sf::besselJ1(m, x))
TRACED_BESSEL_KERNEL(bessel_y0, sf::besselY0(m, x))
TRACED_BESSEL_KERNEL(bessel_y1, sf::besselY1(m, x))
TRACED_BESSEL_KERNEL(modified_bessel_k0, sf::besselK(m, x, 0, false))
TRACED_BESSEL_KERNEL(modified_bessel_k1, sf::besselK(m, x, 1, false))
TRACED_BESSEL_KERNEL(scaled_modified_bessel_k0, sf::besselK(m, x, 0, true))
TRACED_BESSEL_KERNEL(scaled_modified_bessel_k1, sf::besselK(m, x, 1, true))
TRACED_BESSEL_KERNEL(airyAi, sf::airyAi(m, x))
#undef TRACED_BESSEL_KERNEL

/// An orthogonal polynomial of (input, n), broadcast and promoted.
template <sf::Polynomial Kind>
FailureOr<RtValue> polynomial(const KernelArgs &args) {
  return binary(
      args, "input", "n",
      [](auto x, auto n) {
        using C = decltype(x);
        if constexpr (std::is_floating_point_v<C>)
          return sf::orthogonalPolynomial(sf::Scalar<C>(), Kind, sf::Num<C>(x),
                                          sf::Num<C>(n))
              .v;
        else
          return C(0); // (never: the dtype is floating)
      },
      ResultKind::Float);
}
} // namespace

void mlir::traced::kernels::populateSpecialKernels(KernelTable &table) {
  table["torch.lgamma"] = lgamma;
  table["torch.digamma"] = digamma;
  table["torch.erfinv"] = erfinv;
  table["torch.polygamma"] = polygamma;
  table["Tensor.polygamma"] = polygamma;
  table["torch.mvlgamma"] = mvlgamma;
  table["torch.i0"] = besselI0;
  table["torch.special.i0e"] = besselI0e;
  table["torch.special.i1"] = besselI1;
  table["torch.special.i1e"] = besselI1e;
  table["torch.special.ndtr"] = ndtr;
  table["torch.special.ndtri"] = ndtri;
  table["torch.special.log_ndtr"] = logNdtr;
  table["torch.special.erfcx"] = erfcx;
  table["torch.special.zeta"] = zeta;
  table["torch.special.entr"] = entr;
  table["torch.special.xlog1py"] = xlog1py;
  table["torch.igamma"] = incompleteGamma<false>;
  table["torch.igammac"] = incompleteGamma<true>;
  table["torch.gcd"] = integerPair<gcdOf>;
  table["torch.lcm"] = integerPair<lcmOf>;
  table["torch.nextafter"] = nextafter;
  table["torch.frexp"] = frexp;
  table["torch.special.modified_bessel_i0"] = modifiedBesselI0;
  table["torch.special.modified_bessel_i1"] = modifiedBesselI1;
  table["torch.special.spherical_bessel_j0"] = sphericalBesselJ0;
  table["torch.special.airy_ai"] = airyAi;
  table["torch.special.bessel_j0"] = bessel_j0;
  table["torch.special.bessel_j1"] = bessel_j1;
  table["torch.special.bessel_y0"] = bessel_y0;
  table["torch.special.bessel_y1"] = bessel_y1;
  table["torch.special.modified_bessel_k0"] = modified_bessel_k0;
  table["torch.special.modified_bessel_k1"] = modified_bessel_k1;
  table["torch.special.scaled_modified_bessel_k0"] = scaled_modified_bessel_k0;
  table["torch.special.scaled_modified_bessel_k1"] = scaled_modified_bessel_k1;
  using P = sf::Polynomial;
  table["torch.special.chebyshev_polynomial_t"] = polynomial<P::ChebyshevT>;
  table["torch.special.chebyshev_polynomial_u"] = polynomial<P::ChebyshevU>;
  table["torch.special.chebyshev_polynomial_v"] = polynomial<P::ChebyshevV>;
  table["torch.special.chebyshev_polynomial_w"] = polynomial<P::ChebyshevW>;
  table["torch.special.shifted_chebyshev_polynomial_t"] =
      polynomial<P::ShiftedT>;
  table["torch.special.shifted_chebyshev_polynomial_u"] =
      polynomial<P::ShiftedU>;
  table["torch.special.shifted_chebyshev_polynomial_v"] =
      polynomial<P::ShiftedV>;
  table["torch.special.shifted_chebyshev_polynomial_w"] =
      polynomial<P::ShiftedW>;
  table["torch.special.hermite_polynomial_h"] = polynomial<P::HermiteH>;
  table["torch.special.hermite_polynomial_he"] = polynomial<P::HermiteHe>;
  table["torch.special.laguerre_polynomial_l"] = polynomial<P::Laguerre>;
  table["torch.special.legendre_polynomial_p"] = polynomial<P::Legendre>;
}
