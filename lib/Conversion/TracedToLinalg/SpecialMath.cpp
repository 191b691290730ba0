//===- SpecialMath.cpp - torch.special's functions as linalg.generic ------===//
//
// The special functions (lgamma, digamma, polygamma, mvlgamma, the Bessel
// functions, ndtr/ndtri/log_ndtr, erfcx, erfinv, zeta, airy_ai, the orthogonal
// polynomials, entr, xlog1py; frexp's two elements; igamma and igammac,
// whose bodies call the scalar special-function runtime) as one
// `linalg.generic` each, whose body is the algorithm of
// TracedIR/Support/SpecialFunctions.h built over an IR backend: the same
// code the interpreter runs over C++ numbers. Branches are selects, zeta's
// direct sum an `scf.while`. Part of the Elementwise family.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "TracedIR/Support/SpecialFunctions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::lowering;
namespace sf = mlir::traced::special;

namespace {
struct IrMath;

/// A float value of the backend's compute type.
struct FV {
  Value v;
  const IrMath *m;
};
/// An i1.
struct BV {
  Value v;
  const IrMath *m;
};

/// The IR backend of SpecialFunctions.h: arith and math ops of `type` (f32
/// or f64) at `loc`.
struct IrMath {
  using V = FV;
  using B = BV;
  OpBuilder &b;
  Location loc;
  Type type;

  bool isDouble() const { return type.isF64(); }
  FV c(double v) const { return {scalarConstant(b, loc, type, v), this}; }
  FV wrap(Value v) const { return {v, this}; }
  /// The f64 backend, for what torch computes in double.
  IrMath wide() const { return IrMath{b, loc, b.getF64Type()}; }
  FV toWide(FV x) const {
    return wrap(castScalar(b, loc, x.v, b.getF64Type()));
  }
  FV fromWide(FV x) const { return wrap(castScalar(b, loc, x.v, type)); }
  FV select(BV p, FV x, FV y) const {
    return wrap(arith::SelectOp::create(b, loc, p.v, x.v, y.v));
  }
#define TRACED_MATH_UNARY(NAME, OP)                                            \
  FV NAME(FV x) const { return wrap(math::OP::create(b, loc, x.v)); }
  TRACED_MATH_UNARY(exp, ExpOp)
  TRACED_MATH_UNARY(log, LogOp)
  TRACED_MATH_UNARY(log1p, Log1pOp)
  TRACED_MATH_UNARY(sqrt, SqrtOp)
  TRACED_MATH_UNARY(abs, AbsFOp)
  TRACED_MATH_UNARY(floor, FloorOp)
  TRACED_MATH_UNARY(trunc, TruncOp)
  TRACED_MATH_UNARY(sin, SinOp)
  TRACED_MATH_UNARY(tan, TanOp)
  TRACED_MATH_UNARY(cos, CosOp)
  TRACED_MATH_UNARY(acos, AcosOp)
  TRACED_MATH_UNARY(erfc, ErfcOp)
#undef TRACED_MATH_UNARY
  FV pow(FV x, FV y) const { return wrap(math::PowFOp::create(b, loc, x.v, y.v)); }
  /// `OP` as libm computes it: an f32 one through f64, rounded once (the
  /// f32 math ops are polynomial approximations a few bits off).
  template <typename OP> FV libm(FV x) const {
    if (isDouble())
      return wrap(OP::create(b, loc, x.v));
    IrMath w = wide();
    return fromWide(w.wrap(OP::create(b, loc, toWide(x).v)));
  }
  FV libmErf(FV x) const { return libm<math::ErfOp>(x); }
  FV libmExp(FV x) const { return libm<math::ExpOp>(x); }
  FV libmLog(FV x) const { return libm<math::LogOp>(x); }

  /// `step` applied to `state` while `cond(state)` holds, as an scf.while.
  template <size_t N, typename Cond, typename Step>
  std::array<FV, N> whileLoop(std::array<FV, N> state, Cond cond,
                              Step step) const {
    SmallVector<Value> inits;
    for (const FV &s : state)
      inits.push_back(s.v);
    SmallVector<Type> types(N, type);
    SmallVector<Location> locs(N, loc);
    auto loop = scf::WhileOp::create(b, loc, types, inits);
    auto argsOf = [&](Block *block) {
      std::array<FV, N> st = state;
      for (size_t i = 0; i < N; ++i)
        st[i] = wrap(block->getArgument(i));
      return st;
    };
    {
      OpBuilder::InsertionGuard guard(b);
      Block *before = b.createBlock(&loop.getBefore(), {}, types, locs);
      BV go = cond(argsOf(before));
      scf::ConditionOp::create(b, loc, go.v, before->getArguments());
      Block *after = b.createBlock(&loop.getAfter(), {}, types, locs);
      std::array<FV, N> next = step(argsOf(after));
      SmallVector<Value> yielded;
      for (const FV &s : next)
        yielded.push_back(s.v);
      scf::YieldOp::create(b, loc, yielded);
    }
    std::array<FV, N> out = state;
    for (size_t i = 0; i < N; ++i)
      out[i] = wrap(loop.getResult(i));
    return out;
  }
};

/// A constant of `like`'s type (an f64 value of wide() may meet the f32
/// backend's operators).
FV lift(const FV &like, double v) {
  return like.m->wrap(
      scalarConstant(like.m->b, like.m->loc, like.v.getType(), v));
}

#define TRACED_FV_ARITH(OP, ARITH)                                             \
  FV operator OP(FV x, FV y) {                                                 \
    return x.m->wrap(arith::ARITH::create(x.m->b, x.m->loc, x.v, y.v));        \
  }                                                                            \
  [[maybe_unused]] FV operator OP(FV x, double y) { return x OP lift(x, y); } \
  [[maybe_unused]] FV operator OP(double x, FV y) { return lift(y, x) OP y; }
TRACED_FV_ARITH(+, AddFOp)
TRACED_FV_ARITH(-, SubFOp)
TRACED_FV_ARITH(*, MulFOp)
TRACED_FV_ARITH(/, DivFOp)
#undef TRACED_FV_ARITH
FV operator-(FV x) {
  return x.m->wrap(arith::NegFOp::create(x.m->b, x.m->loc, x.v));
}

// Comparisons as C++ compares doubles: false on NaN, but != true.
#define TRACED_FV_CMP(OP, PRED)                                                \
  [[maybe_unused]] BV operator OP(FV x, FV y) {                                \
    return {arith::CmpFOp::create(x.m->b, x.m->loc, arith::CmpFPredicate::PRED, \
                                  x.v, y.v),                                   \
            x.m};                                                              \
  }                                                                            \
  [[maybe_unused]] BV operator OP(FV x, double y) { return x OP lift(x, y); } \
  [[maybe_unused]] BV operator OP(double x, FV y) { return lift(y, x) OP y; }
TRACED_FV_CMP(<, OLT)
TRACED_FV_CMP(<=, OLE)
TRACED_FV_CMP(>, OGT)
TRACED_FV_CMP(>=, OGE)
TRACED_FV_CMP(==, OEQ)
TRACED_FV_CMP(!=, UNE)
#undef TRACED_FV_CMP

BV operator&&(BV x, BV y) {
  return {arith::AndIOp::create(x.m->b, x.m->loc, x.v, y.v), x.m};
}
BV operator||(BV x, BV y) {
  return {arith::OrIOp::create(x.m->b, x.m->loc, x.v, y.v), x.m};
}
BV operator!(BV x) {
  Value one = arith::ConstantOp::create(x.m->b, x.m->loc,
                                        x.m->b.getBoolAttr(true));
  return {arith::XOrIOp::create(x.m->b, x.m->loc, x.v, one), x.m};
}

/// Where a function computes: the result's compute type (f32 for f32, f16
/// and bf16, as torch's float kernels), or f64 rounded once.
enum class Precision { Input, Double };

using SpecialFn = function_ref<FV(const IrMath &, ArrayRef<FV>)>;

/// `fn` over the tensors or numbers `names`, broadcast, in precision `p`.
FailureOr<SmallVector<Value>> lowerSpecial(LoweringCall &c,
                                           ArrayRef<StringRef> names,
                                           Precision p, SpecialFn fn) {
  RankedTensorType type = c.logicalResultType(0, /*dynamic=*/true);
  if (!type || !isa<FloatType>(type.getElementType()))
    return c.fail("the result is not a floating-point tensor");
  SmallVector<Value> inputs;
  SmallVector<std::optional<double>> numbers;
  for (StringRef name : names) {
    if (Value t = c.tensor(name)) {
      inputs.push_back(t);
      numbers.push_back(std::nullopt);
    } else if (std::optional<double> v = c.getFloat(name)) {
      numbers.push_back(*v);
    } else {
      return c.fail("'" + name + "' is neither a tensor nor a number");
    }
  }
  if (inputs.empty())
    return c.fail("no operand is a tensor");
  Type compute = computeType(type.getElementType());
  Value r = buildElementwise(
      c.rewriter, c.loc, type, inputs,
      [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Type inner = p == Precision::Double ? b.getF64Type() : compute;
        IrMath m{b, loc, inner};
        SmallVector<FV> args;
        unsigned next = 0;
        for (const std::optional<double> &n : numbers)
          args.push_back(n ? m.c(*n)
                           : m.wrap(castScalar(b, loc, a[next++], inner)));
        return castScalar(b, loc, fn(m, args).v, compute);
      },
      c.logicalElementTypes(inputs));
  return SmallVector<Value>{r};
}

/// igamma / igammac (`routine`): each element a call of the scalar
/// special-function runtime's `traced_<routine>_f32` / `_f64` from the
/// linalg.generic body (docs/special-runtime.md), the same function the
/// interpreter's kernel calls; float16/bfloat16 compute in f32, as torch's
/// calc_igamma<float>.
FailureOr<SmallVector<Value>> lowerRuntimeBinary(LoweringCall &c,
                                                 StringRef routine) {
  auto module = c.op->getParentOfType<mlir::ModuleOp>();
  return lowerSpecial(
      c, {"input", "other"}, Precision::Input,
      [&](const IrMath &m, ArrayRef<FV> a) {
        std::string name =
            ("traced_" + routine + (m.isDouble() ? "_f64" : "_f32")).str();
        auto fnType = m.b.getFunctionType({m.type, m.type}, {m.type});
        if (!module.lookupSymbol<func::FuncOp>(name)) {
          OpBuilder::InsertionGuard guard(m.b);
          m.b.setInsertionPointToStart(module.getBody());
          func::FuncOp::create(m.b, m.loc, name, fnType).setPrivate();
        }
        return m.wrap(func::CallOp::create(m.b, m.loc, name,
                                           TypeRange{m.type},
                                           ValueRange{a[0].v, a[1].v})
                          .getResult(0));
      });
}

FailureOr<SmallVector<Value>> lowerPolygamma(LoweringCall &c) {
  std::optional<int64_t> n = c.getInt("n");
  if (!n)
    return c.fail("'n' must be a constant int");
  if (*n < 0)
    return c.fail("polygamma(n, x) does not support negative n");
  int64_t order = *n;
  if (order <= 1)
    return lowerSpecial(c, {"input"}, Precision::Input,
                        [order](const IrMath &m, ArrayRef<FV> x) {
                          return order == 0 ? sf::digamma(m, x[0])
                                            : sf::trigamma(m, x[0]);
                        });
  return lowerSpecial(c, {"input"}, Precision::Double,
                      [order](const IrMath &m, ArrayRef<FV> x) {
                        return sf::polygammaHigh(m, order, x[0]);
                      });
}

/// mvlgamma: the lgammas of x - j/2 summed in torch's order, after a
/// run-time check that every element exceeds (p - 1) / 2.
FailureOr<SmallVector<Value>> lowerMvlgamma(LoweringCall &c) {
  std::optional<int64_t> p = c.getInt("p");
  if (!p)
    return c.fail("'p' must be a constant int");
  if (*p < 1)
    return c.fail("p has to be greater than or equal to 1");
  Value x = c.tensor("input");
  if (!x)
    return c.fail("the input is not a tensor");
  int64_t order = *p;
  double bound = 0.5 * static_cast<double>(order - 1);
  // (The smallest element against the bound, NaN failing, in f64.)
  OpBuilder &b = c.rewriter;
  auto xType = cast<RankedTensorType>(x.getType());
  SmallVector<Type> xTypes = c.logicalElementTypes(x);
  // (float16 and bfloat16 compare in f32: the bound is exact there.)
  Type elt = xTypes.empty() ? xType.getElementType() : xTypes[0];
  Type cmp = elt.isF16() || elt.isBF16() ? b.getF32Type() : b.getF64Type();
  Value ok = buildElementwise(
      b, c.loc, xType.clone(cmp), x,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value v = a[0];
        Value good = arith::CmpFOp::create(
            nb, l, arith::CmpFPredicate::OGT, v, scalarConstant(nb, l, cmp, bound));
        return arith::SelectOp::create(nb, l, good,
                                       scalarConstant(nb, l, cmp, 1.0),
                                       scalarConstant(nb, l, cmp, 0.0));
      },
      xTypes, cmp);
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < xType.getRank(); ++d)
    dims.push_back(d);
  Value all = buildReduce(b, c.loc, ok, dims, 1.0,
                          [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                            return arith::MinimumFOp::create(nb, l, a[0], a[1]);
                          });
  Value flag = tensor::ExtractOp::create(b, c.loc, all, ValueRange{});
  c.check(arith::CmpFOp::create(b, c.loc, arith::CmpFPredicate::OEQ, flag,
                                scalarConstant(b, c.loc, cmp, 1.0)),
          "All elements must be greater than (p-1)/2");
  return lowerSpecial(
      c, {"input"}, Precision::Input, [order](const IrMath &m, ArrayRef<FV> a) {
        FV sum = m.c(0);
        for (int64_t j = 0; j < order; ++j) {
          FV shifted = a[0] + (-0.5 * static_cast<double>(order) +
                               0.5 * static_cast<double>(j + 1));
          sum = sum + m.fromWide(sf::lgamma(m.wide(), m.toWide(shifted)));
        }
        return sum + static_cast<double>(order * (order - 1)) / 4 *
                         std::log(sf::kPi);
      });
}
/// frexp on the bits of x (f32 or f64): the exponent field less the bias
/// (subnormals scaled into the normal range first), the mantissa with the
/// exponent field of [0.5, 1); zeros, infinities and NaN give themselves
/// and exponent 0.
std::pair<Value, Value> frexpBits(OpBuilder &b, Location loc, Value x) {
  using P = arith::CmpFPredicate;
  bool f64 = x.getType().isF64();
  unsigned mantissaBits = f64 ? 52 : 23, width = f64 ? 64 : 32;
  int64_t fieldMask = f64 ? 0x7ff : 0xff, half = f64 ? 1022 : 126;
  int64_t subnormalScale = f64 ? 54 : 24;
  Type bits = b.getIntegerType(width);
  auto ic = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(bits, v))
        .getResult();
  };
  Value zero = scalarConstant(b, loc, x.getType(), 0.0);
  Value isSubnormal = arith::CmpFOp::create(
      b, loc, P::OLT, math::AbsFOp::create(b, loc, x),
      scalarConstant(b, loc, x.getType(),
                     f64 ? 2.2250738585072014e-308 : 1.17549435e-38f));
  Value scaled = arith::MulFOp::create(
      b, loc, x,
      scalarConstant(b, loc, x.getType(), std::ldexp(1.0, subnormalScale)));
  Value v = arith::SelectOp::create(b, loc, isSubnormal, scaled, x);
  Value vb = arith::BitcastOp::create(b, loc, bits, v);
  Value field = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, vb, ic(mantissaBits)),
      ic(fieldMask));
  Value exp = arith::SubIOp::create(b, loc, field, ic(half));
  exp = arith::SelectOp::create(
      b, loc, isSubnormal, arith::SubIOp::create(b, loc, exp, ic(subnormalScale)),
      exp);
  Value keep = ic(~(fieldMask << mantissaBits));
  Value mb = arith::OrIOp::create(b, loc, arith::AndIOp::create(b, loc, vb, keep),
                                  ic(half << mantissaBits));
  Value mantissa = arith::BitcastOp::create(b, loc, x.getType(), mb);
  // Zeros, infinities and NaN.
  Value special = arith::OrIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::OEQ, x, zero),
      arith::CmpFOp::create(
          b, loc, P::UEQ, math::AbsFOp::create(b, loc, x),
          scalarConstant(b, loc, x.getType(),
                         std::numeric_limits<double>::infinity())));
  mantissa = arith::SelectOp::create(b, loc, special, x, mantissa);
  exp = arith::SelectOp::create(b, loc, special, ic(0), exp);
  Value exp32 = f64 ? arith::TruncIOp::create(b, loc, b.getI32Type(), exp)
                          .getResult()
                    : exp;
  return {mantissa, exp32};
}
} // namespace

FailureOr<Value> lowering::lowerFrexpElement(LoweringCall &c, int64_t index,
                                             RankedTensorType type) {
  Value x = c.tensor("input");
  if (!x || !type || (index != 0 && index != 1))
    return c.fail("expected a tensor input and element 0 or 1");
  auto xType = cast<RankedTensorType>(x.getType());
  if (!isa<FloatType>(xType.getElementType()))
    return c.fail("frexp takes floating-point tensors");
  Value r = buildElementwise(
      c.rewriter, c.loc, type, x,
      [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        // (f16 and bf16 arrive as f32, exactly.)
        std::pair<Value, Value> parts = frexpBits(b, loc, a[0]);
        return index == 0 ? parts.first : parts.second;
      },
      c.logicalElementTypes(x),
      index == 0 ? Type() : computeType(xType.getElementType()));
  return r;
}

void lowering::populateSpecialLowerings(LoweringTable &t) {
#define UNARY(NAME, PRECISION, CALL)                                           \
  t[NAME] = [](LoweringCall &c) {                                              \
    return lowerSpecial(c, {"input"}, Precision::PRECISION,                    \
                        [](const IrMath &m, ArrayRef<FV> x) { return CALL; }); \
  };
  UNARY("torch.lgamma", Double, sf::lgamma(m, x[0]))
  UNARY("torch.erfinv", Input, sf::erfinv(m, x[0]))
  UNARY("torch.digamma", Input, sf::digamma(m, x[0]))
  UNARY("torch.i0", Input, sf::besselI(m, x[0], 0, false))
  UNARY("torch.special.i0e", Input, sf::besselI(m, x[0], 0, true))
  UNARY("torch.special.i1", Input, sf::besselI(m, x[0], 1, false))
  UNARY("torch.special.i1e", Input, sf::besselI(m, x[0], 1, true))
  UNARY("torch.special.ndtr", Double, sf::ndtr(m, x[0]))
  UNARY("torch.special.ndtri", Input, sf::ndtri(m, x[0]))
  UNARY("torch.special.log_ndtr", Double, sf::logNdtr(m, x[0]))
  UNARY("torch.special.erfcx", Input, sf::erfcx(m, x[0]))
  UNARY("torch.special.entr", Input, sf::entr(m, x[0]))
  UNARY("torch.special.modified_bessel_i0", Input,
        sf::besselI(m, x[0], 0, false, true))
  UNARY("torch.special.modified_bessel_i1", Input,
        sf::besselI(m, x[0], 1, false, true))
  UNARY("torch.special.spherical_bessel_j0", Input,
        sf::sphericalBesselJ0(m, x[0]))
  UNARY("torch.special.airy_ai", Input, sf::airyAi(m, x[0]))
  UNARY("torch.special.bessel_j0", Input, sf::besselJ0(m, x[0]))
  UNARY("torch.special.bessel_j1", Input, sf::besselJ1(m, x[0]))
  UNARY("torch.special.bessel_y0", Input, sf::besselY0(m, x[0]))
  UNARY("torch.special.bessel_y1", Input, sf::besselY1(m, x[0]))
  UNARY("torch.special.modified_bessel_k0", Input, sf::besselK(m, x[0], 0, false))
  UNARY("torch.special.modified_bessel_k1", Input, sf::besselK(m, x[0], 1, false))
  UNARY("torch.special.scaled_modified_bessel_k0", Input, sf::besselK(m, x[0], 0, true))
  UNARY("torch.special.scaled_modified_bessel_k1", Input, sf::besselK(m, x[0], 1, true))
#undef UNARY
#define POLYNOMIAL(NAME, KIND)                                                 \
  t[NAME] = [](LoweringCall &c) {                                              \
    return lowerSpecial(c, {"input", "n"}, Precision::Input,                   \
                        [](const IrMath &m, ArrayRef<FV> a) {                  \
                          return sf::orthogonalPolynomial(                     \
                              m, sf::Polynomial::KIND, a[0], a[1]);            \
                        });                                                    \
  };
  POLYNOMIAL("torch.special.chebyshev_polynomial_t", ChebyshevT)
  POLYNOMIAL("torch.special.chebyshev_polynomial_u", ChebyshevU)
  POLYNOMIAL("torch.special.chebyshev_polynomial_v", ChebyshevV)
  POLYNOMIAL("torch.special.chebyshev_polynomial_w", ChebyshevW)
  POLYNOMIAL("torch.special.shifted_chebyshev_polynomial_t", ShiftedT)
  POLYNOMIAL("torch.special.shifted_chebyshev_polynomial_u", ShiftedU)
  POLYNOMIAL("torch.special.shifted_chebyshev_polynomial_v", ShiftedV)
  POLYNOMIAL("torch.special.shifted_chebyshev_polynomial_w", ShiftedW)
  POLYNOMIAL("torch.special.hermite_polynomial_h", HermiteH)
  POLYNOMIAL("torch.special.hermite_polynomial_he", HermiteHe)
  POLYNOMIAL("torch.special.laguerre_polynomial_l", Laguerre)
  POLYNOMIAL("torch.special.legendre_polynomial_p", Legendre)
#undef POLYNOMIAL
  t["torch.polygamma"] = lowerPolygamma;
  // (Lowered where operator.getitem reads the mantissa or the exponent.)
  t["torch.frexp"] = [](LoweringCall &c) -> FailureOr<SmallVector<Value>> {
    return c.fail("only the mantissa or the exponent (result[0] or "
                  "result[1]) can be compiled");
  };
  t["Tensor.polygamma"] = lowerPolygamma;
  t["torch.mvlgamma"] = lowerMvlgamma;
  t["torch.special.xlog1py"] = [](LoweringCall &c) {
    return lowerSpecial(c, {"input", "other"}, Precision::Input,
                        [](const IrMath &m, ArrayRef<FV> a) {
                          return sf::xlog1py(m, a[0], a[1]);
                        });
  };
  t["torch.igamma"] = [](LoweringCall &c) {
    return lowerRuntimeBinary(c, "igamma");
  };
  t["torch.igammac"] = [](LoweringCall &c) {
    return lowerRuntimeBinary(c, "igammac");
  };
  t["torch.special.zeta"] = [](LoweringCall &c) {
    return lowerSpecial(c, {"input", "other"}, Precision::Double,
                        [](const IrMath &m, ArrayRef<FV> a) {
                          return sf::zetaGuarded(m, a[0], a[1]);
                        });
  };
}
