//===- KernelsElementwise.cpp - activations and broadcasting arithmetic ---===//
//
// Unary kernels compute in the input's storage type (float for f32/f16/bf16,
// double for f64) and round f16/bf16 results to their type; binary kernels
// broadcast and promote like PyTorch, with Python numbers taking part only
// through their category.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// Applies `fn` to every element of a floating-point tensor (ints are
/// converted to the default float type first, as torch's float ops do).
template <typename Fn>
FailureOr<RtValue> unaryFloat(const KernelArgs &args, Fn fn) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  Tensor x = isFloatingPoint(in->dtype()) ? *in : in->to(DType::F32);
  Tensor out(x.dtype(), x.shape());
  if (x.storage() == Storage::Double) {
    const double *p = x.data<double>();
    double *o = out.data<double>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i)
      o[i] = fn(p[i]);
  } else {
    const float *p = x.data<float>();
    float *o = out.data<float>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i)
      o[i] = static_cast<float>(fn(static_cast<double>(p[i])));
    out.roundToDType();
  }
  return RtValue(out);
}

/// Like unaryFloat, but keeps integer tensors integer (relu, abs, neg, ...).
template <typename Fn>
FailureOr<RtValue> unaryAny(const KernelArgs &args, Fn fn) {
  const RtValue &v = args.get("input");
  if (!v.isTensor()) {
    if (auto *i = std::get_if<int64_t>(&v.v))
      return RtValue::ofInt(static_cast<int64_t>(fn(static_cast<double>(*i))));
    if (std::optional<double> d = v.number())
      return RtValue::ofFloat(fn(*d));
    return args.emitError() << "argument 'input' must be a tensor or a number";
  }
  const Tensor &x = v.tensor();
  if (isFloatingPoint(x.dtype()))
    return unaryFloat(args, fn);
  Tensor out(x.dtype(), x.shape());
  for (int64_t i = 0, n = x.numel(); i < n; ++i)
    out.setDouble(i, fn(x.getDouble(i)));
  return RtValue(out);
}

double sigmoidOf(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// A binary operand: a tensor, or a Python number.
struct Operand {
  Tensor tensor;
  double number = 0;
  bool isTensor = false;
  bool isFloatNumber = false;
  bool isBool = false;
};

FailureOr<Operand> operand(const KernelArgs &args, StringRef name) {
  const RtValue &v = args.get(name);
  Operand o;
  if (v.isTensor()) {
    o.tensor = v.tensor();
    o.isTensor = true;
    return o;
  }
  if (std::optional<double> d = v.number()) {
    o.number = *d;
    o.isFloatNumber = std::holds_alternative<double>(v.v);
    o.isBool = std::holds_alternative<bool>(v.v);
    return o;
  }
  return args.emitError() << "argument '" << name
                          << "' must be a tensor or a number, got "
                          << v.describe();
}

/// The operand's part in PyTorch's type promotion.
PromotionOperand promotionOf(const Operand &o) {
  if (o.isTensor)
    return {o.tensor.dtype(), o.tensor.rank() == 0
                                  ? PromotionPriority::ZeroDim
                                  : PromotionPriority::Tensor};
  return {o.isBool ? DType::Bool : o.isFloatNumber ? DType::F64 : DType::I64,
          PromotionPriority::Scalar};
}

/// How a binary op's result dtype follows from the promoted dtype.
enum class ResultKind { Promoted, Float };

/// Elementwise `fn(a, b)` with broadcasting, in the promoted dtype
/// (torch.result_type; `Float` turns bool and integers into the default
/// float, as true division does). `fn` is called with the storage type of
/// that dtype (float for f32/f16/bf16, double, int64_t, uint8_t for bool);
/// results are rounded or wrapped to the dtype. Python numbers enter in the
/// result's dtype, as PyTorch wraps them. Two numbers give a Python number.
template <typename Fn>
FailureOr<RtValue> binary(const KernelArgs &args, StringRef lhs, StringRef rhs,
                          Fn fn, ResultKind kind = ResultKind::Promoted) {
  FailureOr<Operand> a = operand(args, lhs), b = operand(args, rhs);
  if (failed(a) || failed(b))
    return failure();
  if (!a->isTensor && !b->isTensor) {
    bool isFloat = kind == ResultKind::Float || a->isFloatNumber ||
                   b->isFloatNumber;
    if (isFloat)
      return RtValue::ofFloat(fn(a->number, b->number));
    return RtValue::ofInt(fn(static_cast<int64_t>(a->number),
                             static_cast<int64_t>(b->number)));
  }
  DType dtype = resultType({promotionOf(*a), promotionOf(*b)});
  if (kind == ResultKind::Float)
    dtype = toFloatingDType(dtype);
  SmallVector<int64_t> shape;
  if (a->isTensor && b->isTensor) {
    FailureOr<SmallVector<int64_t>> s =
        broadcastShape(a->tensor.shape(), b->tensor.shape());
    if (failed(s))
      return args.emitError()
             << "the shapes of '" << lhs << "' and '" << rhs
             << "' cannot be broadcast together";
    shape = *s;
  } else {
    shape.assign((a->isTensor ? a : b)->tensor.shape().begin(),
                 (a->isTensor ? a : b)->tensor.shape().end());
  }
  Tensor out(dtype, shape);
  auto materialize = [&](const Operand &o) {
    return o.isTensor ? broadcastTo(o.tensor.to(dtype), shape) : Tensor();
  };
  Tensor ta = materialize(*a), tb = materialize(*b);
  int64_t n = out.numel();
  LogicalResult status = success();
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    // Integer results compute in int64_t, bools in uint8_t (0/1).
    T *o = out.template data<T>();
    const T *pa = a->isTensor ? ta.template data<T>() : nullptr;
    const T *pb = b->isTensor ? tb.template data<T>() : nullptr;
    auto scalar = [&](const Operand &x) -> T {
      if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(x.number);
      else
        return static_cast<T>(
            wrapToDType(static_cast<int64_t>(x.number), dtype));
    };
    T sa = scalar(*a), sb = scalar(*b);
    for (int64_t i = 0; i < n; ++i) {
      T x = pa ? pa[i] : sa, y = pb ? pb[i] : sb;
      if constexpr (std::is_same_v<T, uint8_t>) {
        o[i] = static_cast<T>(fn(static_cast<int64_t>(x),
                                 static_cast<int64_t>(y)) != 0);
      } else {
        o[i] = static_cast<T>(fn(x, y));
      }
    }
    return 0;
  });
  if (failed(status))
    return failure();
  out.roundToDType();
  return RtValue(out);
}

/// PyTorch's floor division: Python's `//` for integers; for floats,
/// div_floor_floating (the quotient of the exact remainder, rounded).
template <typename T> T floorDiv(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    T q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
      --q;
    return q;
  } else {
    if (b == 0)
      return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0)))
      div -= 1;
    if (div == 0)
      return std::copysign(T(0), a / b);
    T floordiv = std::floor(div);
    if (div - floordiv > T(0.5))
      floordiv += 1;
    return floordiv;
  }
}

/// Python's `%`: the remainder takes the divisor's sign.
template <typename T> T remainderOf(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  } else {
    T r = std::fmod(a, b);
    if (r != 0 && ((b < 0) != (r < 0)))
      r += b;
    return r;
  }
}

/// C's fmod: the remainder takes the dividend's sign.
template <typename T> T fmodOf(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return a % b;
  else
    return std::fmod(a, b);
}

/// Integer division and remainder by zero raise ZeroDivisionError in
/// PyTorch; checked before an integer `//`, `%`, fmod or rounding divide.
LogicalResult checkIntegerDivisor(const KernelArgs &args, StringRef lhs,
                                  StringRef rhs) {
  FailureOr<Operand> a = operand(args, lhs), b = operand(args, rhs);
  if (failed(a) || failed(b))
    return failure();
  if (!a->isTensor && !b->isTensor) {
    if (!a->isFloatNumber && !b->isFloatNumber && b->number == 0)
      return args.emitError() << "integer division or modulo by zero";
    return success();
  }
  DType dtype = resultType({promotionOf(*a), promotionOf(*b)});
  if (!isIntegral(dtype))
    return success();
  bool zero = false;
  if (b->isTensor) {
    for (int64_t i = 0, n = b->tensor.numel(); i < n && !zero; ++i)
      zero = b->tensor.getInt(i) == 0;
  } else {
    zero = wrapToDType(static_cast<int64_t>(b->number), dtype) == 0;
  }
  if (zero)
    return args.emitError() << "integer division by zero (argument '" << rhs
                            << "' holds a zero)";
  return success();
}

FailureOr<double> alphaOf(const KernelArgs &args) {
  if (!args.get("alpha").number())
    return args.emitError() << "alpha must be a number";
  return *args.get("alpha").number();
}
} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> relu(const KernelArgs &args) {
  return unaryAny(args,
                  [](double x) { return x > 0 ? x : (x != x ? x : 0.0); });
}

FailureOr<RtValue> relu6(const KernelArgs &args) {
  return unaryAny(args, [](double x) {
    return x != x ? x : std::min(std::max(x, 0.0), 6.0);
  });
}

FailureOr<RtValue> hardtanh(const KernelArgs &args) {
  FailureOr<double> lo = args.getFloat("min_val"),
                    hi = args.getFloat("max_val");
  if (failed(lo) || failed(hi))
    return failure();
  double a = *lo, b = *hi;
  return unaryAny(args, [a, b](double x) {
    return x != x ? x : std::min(std::max(x, a), b);
  });
}

FailureOr<RtValue> gelu(const KernelArgs &args) {
  FailureOr<std::string> approximate = args.getStr("approximate");
  if (failed(approximate))
    return failure();
  if (*approximate == "tanh")
    return unaryFloat(args, [](double x) {
      const double k = std::sqrt(2.0 / M_PI);
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    });
  if (*approximate != "none")
    return args.emitError()
           << "approximate must be \"none\" or \"tanh\", got \"" << *approximate
           << "\"";
  return unaryFloat(
      args, [](double x) { return 0.5 * x * (1.0 + std::erf(x / M_SQRT2)); });
}

FailureOr<RtValue> silu(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return x * sigmoidOf(x); });
}

FailureOr<RtValue> hardswish(const KernelArgs &args) {
  return unaryFloat(args, [](double x) {
    return x * std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
  });
}

FailureOr<RtValue> hardsigmoid(const KernelArgs &args) {
  return unaryFloat(args, [](double x) {
    return std::min(std::max(x + 3.0, 0.0), 6.0) / 6.0;
  });
}

FailureOr<RtValue> leakyRelu(const KernelArgs &args) {
  FailureOr<double> slope = args.getFloat("negative_slope");
  if (failed(slope))
    return failure();
  double k = *slope;
  return unaryFloat(args, [k](double x) { return x >= 0 ? x : k * x; });
}

FailureOr<RtValue> sigmoid(const KernelArgs &args) {
  return unaryFloat(args, sigmoidOf);
}

FailureOr<RtValue> tanh(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return std::tanh(x); });
}

FailureOr<RtValue> clamp(const KernelArgs &args) {
  FailureOr<Operand> x = operand(args, "input");
  if (failed(x) || !x->isTensor)
    return args.emitError() << "argument 'input' must be a tensor";
  SmallVector<PromotionOperand> promotion{promotionOf(*x)};
  SmallVector<int64_t> shape(x->tensor.shape());
  std::optional<Operand> bounds[2];
  const char *names[2] = {"min", "max"};
  for (int i = 0; i < 2; ++i) {
    if (args.isNone(names[i]))
      continue;
    FailureOr<Operand> b = operand(args, names[i]);
    if (failed(b))
      return failure();
    promotion.push_back(promotionOf(*b));
    if (b->isTensor) {
      FailureOr<SmallVector<int64_t>> s =
          broadcastShape(shape, b->tensor.shape());
      if (failed(s))
        return args.emitError() << "the shape of '" << names[i]
                                << "' cannot be broadcast to the input's";
      shape = *s;
    }
    bounds[i] = *b;
  }
  if (!bounds[0] && !bounds[1])
    return args.emitError() << "at least one of 'min' and 'max' must be given";
  // Bounds take the result dtype (integers wrap, as torch converts them).
  DType dtype = resultType(promotion);
  auto materialize = [&](const Operand &o) {
    if (o.isTensor)
      return broadcastTo(o.tensor.to(dtype), shape);
    Tensor t(dtype, {});
    if (isFloatingPoint(dtype))
      t.setDouble(0, o.number);
    else
      t.data<int64_t>()[0] = static_cast<int64_t>(o.number);
    t.roundToDType();
    return broadcastTo(t, shape);
  };
  Tensor in = materialize(*x);
  Tensor lo = bounds[0] ? materialize(*bounds[0]) : Tensor();
  Tensor hi = bounds[1] ? materialize(*bounds[1]) : Tensor();
  Tensor out(dtype, shape);
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *px = in.template data<T>();
    const T *pl = lo.defined() ? lo.template data<T>() : nullptr;
    const T *ph = hi.defined() ? hi.template data<T>() : nullptr;
    T *o = out.template data<T>();
    for (int64_t i = 0, n = out.numel(); i < n; ++i) {
      // min(max(x, lo), hi), NaN in any operand propagating.
      T v = px[i];
      if (pl) {
        T l = pl[i];
        v = (l != l) ? l : (v < l ? l : v);
      }
      if (ph) {
        T h = ph[i];
        v = (h != h) ? h : (v > h ? h : v);
      }
      o[i] = v;
    }
    return 0;
  });
  return RtValue(out);
}

FailureOr<RtValue> exp(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return std::exp(x); });
}

FailureOr<RtValue> log(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return std::log(x); });
}

FailureOr<RtValue> sqrt(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return std::sqrt(x); });
}

FailureOr<RtValue> rsqrt(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return 1.0 / std::sqrt(x); });
}

FailureOr<RtValue> abs(const KernelArgs &args) {
  return unaryAny(args, [](double x) { return std::fabs(x); });
}

FailureOr<RtValue> erf(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return std::erf(x); });
}

FailureOr<RtValue> neg(const KernelArgs &args) {
  return unaryAny(args, [](double x) { return -x; });
}

/// `-` of two bools is an error in PyTorch (use `^` or logical_xor).
static LogicalResult checkNotBoolSub(const KernelArgs &args) {
  auto isBool = [&](StringRef name) {
    const RtValue &v = args.get(name);
    if (v.isTensor())
      return v.tensor().dtype() == DType::Bool;
    return std::holds_alternative<bool>(v.v);
  };
  if (isBool("input") && isBool("other"))
    return args.emitError()
           << "subtraction of two bools is not supported (torch raises); "
              "use logical_xor";
  return success();
}

FailureOr<RtValue> add(const KernelArgs &args) {
  FailureOr<double> alpha = alphaOf(args);
  if (failed(alpha))
    return failure();
  double k = *alpha;
  if (k == 1)
    return binary(args, "input", "other", [](auto x, auto y) { return x + y; });
  return binary(args, "input", "other", [k](auto x, auto y) {
    return x + static_cast<decltype(x)>(k) * y;
  });
}

FailureOr<RtValue> sub(const KernelArgs &args) {
  FailureOr<double> alpha = alphaOf(args);
  if (failed(alpha) || failed(checkNotBoolSub(args)))
    return failure();
  double k = *alpha;
  if (k == 1)
    return binary(args, "input", "other", [](auto x, auto y) { return x - y; });
  return binary(args, "input", "other", [k](auto x, auto y) {
    return x - static_cast<decltype(x)>(k) * y;
  });
}

FailureOr<RtValue> rsub(const KernelArgs &args) {
  if (failed(checkNotBoolSub(args)))
    return failure();
  return binary(args, "input", "other", [](auto x, auto y) { return y - x; });
}

FailureOr<RtValue> mul(const KernelArgs &args) {
  return binary(args, "input", "other", [](auto x, auto y) {
    if constexpr (std::is_integral_v<decltype(x)>)
      // Wraps like the narrower integer types do, without signed overflow.
      return static_cast<decltype(x)>(static_cast<uint64_t>(x) *
                                      static_cast<uint64_t>(y));
    else
      return x * y;
  });
}

FailureOr<RtValue> div(const KernelArgs &args) {
  const RtValue &mode = args.get("rounding_mode");
  if (mode.isNone())
    return binary(
        args, "input", "other", [](auto x, auto y) { return x / y; },
        ResultKind::Float);
  FailureOr<std::string> m = args.getStr("rounding_mode");
  if (failed(m))
    return failure();
  if (*m != "trunc" && *m != "floor")
    return args.emitError() << "rounding_mode must be None, \"trunc\" or "
                               "\"floor\", got \""
                            << *m << "\"";
  if (failed(checkIntegerDivisor(args, "input", "other")))
    return failure();
  if (*m == "trunc")
    return binary(args, "input", "other", [](auto x, auto y) {
      if constexpr (std::is_integral_v<decltype(x)>)
        return x / y;
      else
        return std::trunc(x / y);
    });
  return binary(args, "input", "other",
                [](auto x, auto y) { return floorDiv(x, y); });
}

FailureOr<RtValue> rtruediv(const KernelArgs &args) {
  return binary(
      args, "input", "other", [](auto x, auto y) { return y / x; },
      ResultKind::Float);
}

FailureOr<RtValue> floorDivide(const KernelArgs &args) {
  if (failed(checkIntegerDivisor(args, "input", "other")))
    return failure();
  return binary(args, "input", "other",
                [](auto x, auto y) { return floorDiv(x, y); });
}

FailureOr<RtValue> remainder(const KernelArgs &args) {
  if (failed(checkIntegerDivisor(args, "input", "other")))
    return failure();
  return binary(args, "input", "other",
                [](auto x, auto y) { return remainderOf(x, y); });
}

FailureOr<RtValue> fmod(const KernelArgs &args) {
  if (failed(checkIntegerDivisor(args, "input", "other")))
    return failure();
  return binary(args, "input", "other",
                [](auto x, auto y) { return fmodOf(x, y); });
}

/// Integer powers by repeated squaring (wrapping), as PyTorch's integer
/// pow does; a negative exponent is an error there.
static int64_t intPow(int64_t base, int64_t exp) {
  if (exp < 0)
    return base == 1 ? 1 : base == -1 ? (exp % 2 ? -1 : 1) : 0;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (exp > 0) {
    if (exp & 1)
      result *= b;
    b *= b;
    exp >>= 1;
  }
  return static_cast<int64_t>(result);
}

/// `base ** exponent`: an integer result with a negative Python-number
/// exponent is an error in torch; negative tensor exponents give 0 (or +-1
/// for a base of +-1), as torch's integer pow does.
static FailureOr<RtValue> powOf(const KernelArgs &args, StringRef base,
                                StringRef exponent) {
  FailureOr<Operand> a = operand(args, base), b = operand(args, exponent);
  if (failed(a) || failed(b))
    return failure();
  if (a->isTensor && !b->isTensor && b->number < 0 &&
      isIntegral(resultType({promotionOf(*a), promotionOf(*b)}),
                 /*includeBool=*/false))
    return args.emitError()
           << "integers to negative integer powers are not allowed";
  return binary(args, base, exponent, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>)
      return static_cast<T>(intPow(x, y));
    else
      return static_cast<T>(std::pow(x, y));
  });
}

FailureOr<RtValue> pow(const KernelArgs &args) {
  return powOf(args, "input", "exponent");
}

FailureOr<RtValue> rpow(const KernelArgs &args) {
  return powOf(args, "other", "input");
}

FailureOr<RtValue> rfloordiv(const KernelArgs &args) {
  if (failed(checkIntegerDivisor(args, "other", "input")))
    return failure();
  return binary(args, "other", "input",
                [](auto x, auto y) { return floorDiv(x, y); });
}

FailureOr<RtValue> rremainder(const KernelArgs &args) {
  if (failed(checkIntegerDivisor(args, "other", "input")))
    return failure();
  return binary(args, "other", "input",
                [](auto x, auto y) { return remainderOf(x, y); });
}

} // namespace mlir::traced::kernels
