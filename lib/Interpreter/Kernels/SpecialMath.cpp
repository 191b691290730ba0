//===- SpecialMath.cpp - torch.special's functions, interpreted ----------===//
//
// The kernels of the special functions (lgamma, digamma, polygamma,
// mvlgamma, the modified Bessel functions, ndtr/ndtri/log_ndtr, erfcx,
// zeta): the algorithms of TracedIR/Support/SpecialFunctions.h over C++
// numbers, which the CPU lowering builds as IR too. Part of the Elementwise
// family (populateElementwiseKernels registers them).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "TracedIR/Support/SpecialFunctions.h"

#include <cmath>

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
} // namespace

void mlir::traced::kernels::populateSpecialKernels(KernelTable &table) {
  table["torch.lgamma"] = lgamma;
  table["torch.digamma"] = digamma;
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
}
