//===- Elementwise.cpp - activations and broadcasting arithmetic ----------===//
//
// Unary kernels compute in the input's storage type (float for f32/f16/bf16,
// double for f64) and round f16/bf16 results to their type; binary kernels
// broadcast and promote like PyTorch, with Python numbers taking part only
// through their category. Casts (Tensor.to, type_as, float, ...), dropout
// and stochastic depth (the identity in eval mode), glu, prelu and isclose
// are elementwise too.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <array>

#include <cmath>

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::kernels;

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

/// unaryFloat of `fn(k, x)`, `k` the float argument `name`.
template <typename Fn>
FailureOr<RtValue> unaryFloatOf(const KernelArgs &args, StringRef name, Fn fn) {
  FailureOr<double> param = args.getFloat(name);
  if (failed(param))
    return failure();
  double k = *param;
  return unaryFloat(args, [k, fn](double x) { return fn(k, x); });
}

/// Like unaryFloat, but keeps integer tensors integer (relu, abs, neg, ...):
/// `fn` is generic, called with int64_t for integers (exactly: an int64
/// beyond 2^53 does not pass through double) and double for floats.
template <typename Fn>
FailureOr<RtValue> unaryAny(const KernelArgs &args, Fn fn) {
  const RtValue &v = args.get("input");
  if (!v.isTensor()) {
    if (auto *i = std::get_if<int64_t>(&v.v))
      return RtValue::ofInt(static_cast<int64_t>(fn(*i)));
    if (std::optional<double> d = v.number())
      return RtValue::ofFloat(fn(*d));
    return args.emitError() << "argument 'input' must be a tensor or a number";
  }
  const Tensor &x = v.tensor();
  if (isFloatingPoint(x.dtype()))
    return unaryFloat(args, [&](double d) { return fn(d); });
  // (mapStorage wraps to the integer dtype.)
  return RtValue(mapStorage<std::is_integral>(x, [&](const auto *p, auto *o) {
    using T = std::remove_pointer_t<decltype(o)>;
    for (int64_t i = 0, n = x.numel(); i < n; ++i)
      o[i] = static_cast<T>(fn(static_cast<int64_t>(p[i])));
  }));
}

/// -x, wrapping for integers (torch: -INT64_MIN is INT64_MIN).
template <typename T> T negated(T x) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(x));
  else
    return -x;
}

/// Applies `fn` in the input's own dtype: called with the storage type
/// (float, double, int64_t; bools as int64_t 0/1), results rounded or
/// wrapped to the dtype (integer-preserving ops: sign, floor, bitwise_not).
template <typename Fn>
FailureOr<RtValue> unaryTyped(const KernelArgs &args, Fn fn) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  Tensor out(in->dtype(), in->shape());
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = std::conditional_t<std::is_same_v<T, uint8_t>, int64_t, T>;
    const T *p = in->template data<T>();
    T *o = out.template data<T>();
    for (int64_t i = 0, n = in->numel(); i < n; ++i)
      o[i] = static_cast<T>(fn(static_cast<C>(p[i])));
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}

/// A bool tensor of `fn(x)` over the input's elements (isnan, logical_not).
template <typename Fn>
FailureOr<RtValue> unaryPredicate(const KernelArgs &args, Fn fn) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  Tensor out(DType::Bool, in->shape());
  uint8_t *o = out.data<uint8_t>();
  dispatchStorage(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = std::conditional_t<std::is_same_v<T, uint8_t>, int64_t, T>;
    const T *p = in->template data<T>();
    for (int64_t i = 0, n = in->numel(); i < n; ++i)
      o[i] = bool(fn(static_cast<C>(p[i])));
    return 0;
  });
  return RtValue(out);
}

/// The operand as a tensor of `dtype` broadcast to `shape`: a number
/// converted to the dtype (integers wrap, as torch converts them).
Tensor materialized(const Operand &o, DType dtype, ArrayRef<int64_t> shape) {
  if (o.isTensor)
    return broadcastTo(o.tensor.to(dtype), shape);
  Tensor t(dtype, {});
  if (storageOf(dtype) == Storage::Int)
    t.data<int64_t>()[0] = static_cast<int64_t>(o.number);
  else // float storage, or bool's one byte
    t.setDouble(0, o.number);
  t.roundToDType();
  return broadcastTo(t, shape);
}

/// `fn(input, other)` in their floating result dtype (integers give the
/// default float), the result converted to the compute type.
template <typename Fn>
FailureOr<RtValue> floatBinary(const KernelArgs &args, Fn fn) {
  return binary(
      args, "input", "other",
      [fn](auto x, auto y) { return static_cast<decltype(x)>(fn(x, y)); },
      ResultKind::Float);
}

double sigmoidOf(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// `v` rounded to float16 or bfloat16 (`dtype`); other dtypes as they are.
static float roundTo(float v, DType dtype) {
  if (dtype != DType::F16 && dtype != DType::BF16)
    return v;
  llvm::APFloat f(v);
  bool lost;
  f.convert(dtype == DType::F16 ? llvm::APFloat::IEEEhalf()
                                : llvm::APFloat::BFloat(),
            llvm::APFloat::rmNearestTiesToEven, &lost);
  f.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToFloat();
}

/// PyTorch's floor division: Python's `//` for integers; for floats,
/// div_floor_floating (the quotient of the exact remainder, rounded). In
/// float16 and bfloat16, torch computes each step in that type, so every
/// intermediate is rounded to `dtype` too.
/// `a / -1` of an integer is `-a`, wrapping as torch's int8 `-128 // -1`
/// gives -128 and as compiled code computes it: the hardware's division
/// traps on the most negative value (SIGFPE) instead.
template <typename T> T negateWrapping(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}

template <typename T> T floorDiv(T a, T b, DType dtype = DType::F64) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>)
      if (b == -1)
        return negateWrapping(a);
    T q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
      --q;
    return q;
  } else {
    auto r = [&](T v) -> T {
      if constexpr (std::is_same_v<T, float>)
        return roundTo(v, dtype);
      else
        return v;
    };
    if (b == 0)
      return a / b;
    T mod = r(std::fmod(a, b));
    T div = r(r(a - mod) / b);
    if (mod != 0 && ((b < 0) != (mod < 0)))
      div = r(div - 1);
    if (div == 0)
      return std::copysign(T(0), a / b);
    T floordiv = std::floor(div);
    if (r(div - floordiv) > T(0.5))
      floordiv = r(floordiv + 1);
    return floordiv;
  }
}

/// The dtype a binary kernel computes in (torch.result_type).
static DType computeDTypeOf(const KernelArgs &args, StringRef lhs,
                            StringRef rhs) {
  FailureOr<Operand> a = operand(args, lhs), b = operand(args, rhs);
  if (failed(a) || failed(b) || (!a->isTensor && !b->isTensor))
    return DType::F64;
  return resultType({promotionOf(*a), promotionOf(*b)});
}

/// Python's `%`: the remainder takes the divisor's sign.
template <typename T> T remainderOf(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>)
      if (b == -1) // (INT64_MIN % -1 traps like the division)
        return 0;
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
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>)
      if (b == -1)
        return 0;
    return a % b;
  }
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

FailureOr<RtValue> relu(const KernelArgs &args) {
  return unaryAny(args, [](auto x) {
    using T = decltype(x);
    return x > 0 ? x : (x != x ? x : T(0));
  });
}

FailureOr<RtValue> relu6(const KernelArgs &args) {
  return unaryAny(args, [](auto x) {
    using T = decltype(x);
    return x != x ? x : std::min(std::max(x, T(0)), T(6));
  });
}

FailureOr<RtValue> hardtanh(const KernelArgs &args) {
  FailureOr<double> lo = args.getFloat("min_val"),
                    hi = args.getFloat("max_val");
  if (failed(lo) || failed(hi))
    return failure();
  double a = *lo, b = *hi;
  return unaryAny(args, [a, b](auto x) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) // (bounds as torch converts them)
      return static_cast<T>(std::min<double>(std::max<double>(x, a), b));
    else
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
  return unaryFloatOf(args, "negative_slope",
                      [](double k, double x) { return x >= 0 ? x : k * x; });
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
    // (clamp_min/clamp_max bind one bound; see their signatures.)
    if (!args.has(names[i]) || args.isNone(names[i]))
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
  Tensor in = materialized(*x, dtype, shape);
  Tensor lo = bounds[0] ? materialized(*bounds[0], dtype, shape) : Tensor();
  Tensor hi = bounds[1] ? materialized(*bounds[1], dtype, shape) : Tensor();
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
  return unaryAny(args, [](auto x) {
    if constexpr (std::is_integral_v<decltype(x)>)
      return x < 0 ? negated(x) : x;
    else
      return std::fabs(x);
  });
}

FailureOr<RtValue> erf(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return std::erf(x); });
}

FailureOr<RtValue> neg(const KernelArgs &args) {
  return unaryAny(args, [](auto x) { return negated(x); });
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
  // In bool, torch takes alpha as a bool too (`a + alpha * b` is `a | b`
  // for any nonzero alpha, as compiled code computes it); bool is stored
  // as uint8_t here, where -1 would wrap. (Not on the alpha = 1 path,
  // where nothing wraps.)
  FailureOr<Operand> a = operand(args, "input"), b = operand(args, "other");
  if (succeeded(a) && succeeded(b) &&
      resultType({promotionOf(*a), promotionOf(*b)}) == DType::Bool)
    k = k != 0;
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
  DType dtype = computeDTypeOf(args, "input", "other");
  if (*m == "trunc")
    // (In float16 and bfloat16 the quotient is rounded before truncating.)
    return binary(args, "input", "other", [dtype](auto x, auto y) {
      using T = decltype(x);
      if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_signed_v<T>)
          if (y == -1)
            return negateWrapping(x);
        return x / y;
      } else if constexpr (std::is_same_v<T, float>)
        return std::trunc(roundTo(x / y, dtype));
      else
        return std::trunc(x / y);
    });
  return binary(args, "input", "other",
                [dtype](auto x, auto y) { return floorDiv(x, y, dtype); });
}

FailureOr<RtValue> rtruediv(const KernelArgs &args) {
  return binary(
      args, "input", "other", [](auto x, auto y) { return y / x; },
      ResultKind::Float);
}

/// `lhs // rhs` (floor_divide and __rfloordiv__).
static FailureOr<RtValue> floorDivided(const KernelArgs &args, StringRef lhs,
                                       StringRef rhs) {
  if (failed(checkIntegerDivisor(args, lhs, rhs)))
    return failure();
  DType dtype = computeDTypeOf(args, lhs, rhs);
  return binary(args, lhs, rhs,
                [dtype](auto x, auto y) { return floorDiv(x, y, dtype); });
}

/// `lhs % rhs` (remainder and __rmod__).
static FailureOr<RtValue> remaindered(const KernelArgs &args, StringRef lhs,
                                      StringRef rhs) {
  if (failed(checkIntegerDivisor(args, lhs, rhs)))
    return failure();
  return binary(args, lhs, rhs,
                [](auto x, auto y) { return remainderOf(x, y); });
}

FailureOr<RtValue> floorDivide(const KernelArgs &args) {
  return floorDivided(args, "input", "other");
}

FailureOr<RtValue> remainder(const KernelArgs &args) {
  return remaindered(args, "input", "other");
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
  // torch's tensor ** number: 0.5 and -0.5 are sqrt and rsqrt (so
  // (-inf) ** 0.5 is NaN and (-0.0) ** 0.5 is -0.0, where C's pow gives inf
  // and 0), -1 the reciprocal, 2, 3 and -2 products.
  bool byNumber = a->isTensor && !b->isTensor;
  return binary(args, base, exponent, [byNumber](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(intPow(x, y));
    } else {
      if (byNumber) {
        if (y == T(0.5))
          return static_cast<T>(std::sqrt(x));
        if (y == T(-0.5))
          return static_cast<T>(T(1) / std::sqrt(x));
        if (y == T(-1))
          return static_cast<T>(T(1) / x);
        if (y == T(2))
          return static_cast<T>(x * x);
        if (y == T(3))
          return static_cast<T>(x * x * x);
        if (y == T(-2))
          return static_cast<T>(T(1) / (x * x));
      }
      return static_cast<T>(std::pow(x, y));
    }
  });
}

FailureOr<RtValue> pow(const KernelArgs &args) {
  return powOf(args, "input", "exponent");
}

FailureOr<RtValue> rpow(const KernelArgs &args) {
  return powOf(args, "other", "input");
}

FailureOr<RtValue> rfloordiv(const KernelArgs &args) {
  return floorDivided(args, "other", "input");
}

FailureOr<RtValue> rremainder(const KernelArgs &args) {
  return remaindered(args, "other", "input");
}

//===----------------------------------------------------------------------===//
// Comparison, logical and bitwise ops
//===----------------------------------------------------------------------===//

#define TRACED_COMPARISON(name, op)                                            \
  FailureOr<RtValue> name(const KernelArgs &args) {                            \
    return binary(                                                             \
        args, "input", "other", [](auto x, auto y) { return x op y; },         \
        ResultKind::Bool);                                                     \
  }
TRACED_COMPARISON(eq, ==)
TRACED_COMPARISON(ne, !=)
TRACED_COMPARISON(lt, <)
TRACED_COMPARISON(le, <=)
TRACED_COMPARISON(gt, >)
TRACED_COMPARISON(ge, >=)
#undef TRACED_COMPARISON

FailureOr<RtValue> logicalAnd(const KernelArgs &args) {
  return binary(
      args, "input", "other",
      [](auto x, auto y) { return x != 0 && y != 0; }, ResultKind::Bool);
}

FailureOr<RtValue> logicalOr(const KernelArgs &args) {
  return binary(
      args, "input", "other",
      [](auto x, auto y) { return x != 0 || y != 0; }, ResultKind::Bool);
}

FailureOr<RtValue> logicalXor(const KernelArgs &args) {
  return binary(
      args, "input", "other",
      [](auto x, auto y) { return (x != 0) != (y != 0); }, ResultKind::Bool);
}

FailureOr<RtValue> logicalNot(const KernelArgs &args) {
  return unaryPredicate(args, [](auto x) { return x == 0; });
}

/// Bitwise ops and shifts take bool and integer operands only.
template <typename Fn>
static FailureOr<RtValue> bitwise(const KernelArgs &args, Fn fn) {
  FailureOr<Operand> a = operand(args, "input"), b = operand(args, "other");
  if (failed(a) || failed(b))
    return failure();
  for (const Operand *o : {&*a, &*b})
    if ((o->isTensor && !isIntegral(o->tensor.dtype())) ||
        (!o->isTensor && o->isFloatNumber))
      return args.emitError() << "bitwise ops take bool and integer "
                                 "operands, not floating point";
  return binary(args, "input", "other", [fn](auto x, auto y) {
    if constexpr (std::is_integral_v<decltype(x)>)
      return fn(x, y);
    else
      return x; // unreachable: floats are rejected above
  });
}

FailureOr<RtValue> bitwiseAnd(const KernelArgs &args) {
  return bitwise(args, [](int64_t x, int64_t y) { return x & y; });
}

FailureOr<RtValue> bitwiseOr(const KernelArgs &args) {
  return bitwise(args, [](int64_t x, int64_t y) { return x | y; });
}

FailureOr<RtValue> bitwiseXor(const KernelArgs &args) {
  return bitwise(args, [](int64_t x, int64_t y) { return x ^ y; });
}

/// Shifts as torch 1.13 computes them on x86: in C++'s promoted type (int
/// for types narrower than 32 bits, then wrapped to the dtype), with the
/// amount taken modulo that type's width, as the hardware shift does. So
/// `int8(-100) << 33` is 56 and `x >> -1` is `x >> 31`.
template <bool Left>
static FailureOr<RtValue> shift(const KernelArgs &args) {
  FailureOr<Operand> a = operand(args, "input"), b = operand(args, "other");
  if (failed(a) || failed(b))
    return failure();
  bool wide = (a->isTensor || b->isTensor) &&
              resultType({promotionOf(*a), promotionOf(*b)}) == DType::I64;
  if (!a->isTensor && !b->isTensor)
    wide = true; // two Python ints shift as int64 (unreachable in graphs)
  return bitwise(args, [wide](int64_t x, int64_t y) -> int64_t {
    if (wide) {
      unsigned n = static_cast<uint64_t>(y) & 63;
      if (Left)
        return static_cast<int64_t>(static_cast<uint64_t>(x) << n);
      return x >> n;
    }
    unsigned n = static_cast<uint32_t>(y) & 31;
    int32_t v = static_cast<int32_t>(x);
    if (Left)
      return static_cast<int32_t>(static_cast<uint32_t>(v) << n);
    return v >> n;
  });
}

FailureOr<RtValue> leftShift(const KernelArgs &args) {
  return shift</*Left=*/true>(args);
}

FailureOr<RtValue> rightShift(const KernelArgs &args) {
  return shift</*Left=*/false>(args);
}

FailureOr<RtValue> bitwiseNot(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (!isIntegral(in->dtype()))
    return args.emitError() << "bitwise_not takes a bool or integer tensor, "
                               "not "
                            << dtypeName(in->dtype());
  bool isBool = in->dtype() == DType::Bool;
  return unaryTyped(args, [isBool](auto x) {
    if constexpr (std::is_integral_v<decltype(x)>)
      return isBool ? decltype(x)(x == 0) : ~x;
    else
      return x;
  });
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

// maximum, minimum, fmax and fmin keep the input on a tie, so -0.0 and
// 0.0 give the input's zero. (torch's choice there varies with the dtype,
// the size and its vector path; the input is what its float32 and float64
// fmin/fmax always give, and its scalar path's minimum/maximum.) The
// compiled code selects the same way (TracedToLinalg/Elementwise.cpp).
/// The larger (`Larger`) or smaller of input and other, a NaN operand
/// taken (`NanWins`: maximum, minimum) or passed over (fmax, fmin).
template <bool Larger, bool NanWins>
FailureOr<RtValue> extremum(const KernelArgs &args) {
  return binary(args, "input", "other", [](auto x, auto y) {
    if (x != x)
      return NanWins ? x : y;
    if (y != y)
      return NanWins ? y : x;
    return (Larger ? y > x : y < x) ? y : x;
  });
}

FailureOr<RtValue> maximum(const KernelArgs &args) {
  return extremum</*Larger=*/true, /*NanWins=*/true>(args);
}

FailureOr<RtValue> minimum(const KernelArgs &args) {
  return extremum</*Larger=*/false, /*NanWins=*/true>(args);
}

FailureOr<RtValue> fmax(const KernelArgs &args) {
  return extremum</*Larger=*/true, /*NanWins=*/false>(args);
}

FailureOr<RtValue> fmin(const KernelArgs &args) {
  return extremum</*Larger=*/false, /*NanWins=*/false>(args);
}

/// `condition ? a : b` elementwise with broadcasting. torch.where takes
/// the promoted dtype and the broadcast shape; masked_fill (`keepShapeOf`:
/// the input) keeps the input's dtype and shape.
static FailureOr<RtValue> select(const KernelArgs &args, StringRef condName,
                                 StringRef aName, StringRef bName,
                                 const Tensor *keepShapeOf = nullptr) {
  FailureOr<Tensor> cond = args.tensor(condName);
  FailureOr<Operand> a = operand(args, aName), b = operand(args, bName);
  if (failed(cond) || failed(a) || failed(b))
    return failure();
  if (cond->dtype() != DType::Bool)
    return args.emitError() << "argument '" << condName
                            << "' must be a bool tensor, got "
                            << dtypeName(cond->dtype());
  DType dtype = keepShapeOf ? keepShapeOf->dtype()
                            : resultType({promotionOf(*a), promotionOf(*b)});
  SmallVector<int64_t> shape(cond->shape());
  for (const Operand *o : {&*a, &*b}) {
    if (!o->isTensor)
      continue;
    FailureOr<SmallVector<int64_t>> s = broadcastShape(shape, o->tensor.shape());
    if (failed(s))
      return args.emitError() << "the shapes of '" << condName << "', '"
                              << aName << "' and '" << bName
                              << "' cannot be broadcast together";
    shape = *s;
  }
  if (keepShapeOf && ArrayRef<int64_t>(shape) != keepShapeOf->shape())
    return args.emitError() << "the shape of '" << condName
                            << "' does not broadcast to the input's";
  Tensor c = broadcastTo(*cond, shape), ta = materialized(*a, dtype, shape),
         tb = materialized(*b, dtype, shape);
  Tensor out(dtype, shape);
  const uint8_t *pc = c.data<uint8_t>();
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    const T *pa = ta.template data<T>(), *pb = tb.template data<T>();
    T *o = out.template data<T>();
    for (int64_t i = 0, n = out.numel(); i < n; ++i)
      o[i] = pc[i] ? pa[i] : pb[i];
    return 0;
  });
  return RtValue(out);
}

FailureOr<RtValue> where(const KernelArgs &args) {
  return select(args, "condition", "input", "other");
}

FailureOr<RtValue> maskedFill(const KernelArgs &args) {
  FailureOr<Tensor> input = args.tensor("input");
  if (failed(input))
    return failure();
  const RtValue &value = args.get("value");
  if (value.isTensor() && value.tensor().rank() != 0)
    return args.emitError() << "masked_fill only supports a 0-dimensional "
                               "value tensor, got "
                            << value.describe();
  return select(args, "mask", "value", "input", &*input);
}

//===----------------------------------------------------------------------===//
// Unary math
//===----------------------------------------------------------------------===//

FailureOr<RtValue> isnan(const KernelArgs &args) {
  return unaryPredicate(args, [](auto x) { return x != x; });
}

/// A bool tensor of `fn(x)` over a float input's elements; integers and
/// bools give `forIntegers` (none is infinite, every one is finite).
template <typename Fn>
static FailureOr<RtValue> floatPredicate(const KernelArgs &args,
                                         bool forIntegers, Fn fn) {
  return unaryPredicate(args, [&](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>)
      return bool(fn(x));
    else
      return forIntegers;
  });
}

FailureOr<RtValue> isinf(const KernelArgs &args) {
  return floatPredicate(args, false, [](auto x) { return std::isinf(x); });
}

FailureOr<RtValue> isfinite(const KernelArgs &args) {
  return floatPredicate(args, true, [](auto x) { return std::isfinite(x); });
}

#define TRACED_FLOAT_UNARY(name, expr)                                         \
  FailureOr<RtValue> name(const KernelArgs &args) {                            \
    return unaryFloat(args, [](double x) { return expr; });                    \
  }
TRACED_FLOAT_UNARY(reciprocal, 1.0 / x)
TRACED_FLOAT_UNARY(exp2, std::exp2(x))
TRACED_FLOAT_UNARY(expm1, std::expm1(x))
TRACED_FLOAT_UNARY(log2, std::log2(x))
TRACED_FLOAT_UNARY(log10, std::log10(x))
TRACED_FLOAT_UNARY(log1p, std::log1p(x))
TRACED_FLOAT_UNARY(erfc, std::erfc(x))
TRACED_FLOAT_UNARY(sin, std::sin(x))
TRACED_FLOAT_UNARY(cos, std::cos(x))
TRACED_FLOAT_UNARY(tan, std::tan(x))
TRACED_FLOAT_UNARY(asin, std::asin(x))
TRACED_FLOAT_UNARY(acos, std::acos(x))
TRACED_FLOAT_UNARY(atan, std::atan(x))
TRACED_FLOAT_UNARY(sinh, std::sinh(x))
TRACED_FLOAT_UNARY(cosh, std::cosh(x))
TRACED_FLOAT_UNARY(asinh, std::asinh(x))
TRACED_FLOAT_UNARY(acosh, std::acosh(x))
TRACED_FLOAT_UNARY(atanh, std::atanh(x))
TRACED_FLOAT_UNARY(logsigmoid, x < 0 ? x - std::log1p(std::exp(x))
                                     : -std::log1p(std::exp(-x)))
TRACED_FLOAT_UNARY(tanhshrink, x - std::tanh(x))
TRACED_FLOAT_UNARY(mish, x * std::tanh(x > 20 ? x : std::log1p(std::exp(x))))
TRACED_FLOAT_UNARY(selu, 1.0507009873554804934193349852946 *
                             (x > 0 ? x
                                    : 1.6732632423543772848170429916717 *
                                          std::expm1(x)))
#undef TRACED_FLOAT_UNARY

/// softsign = x / (|x| + 1), as torch's Python code computes it: for an
/// integer input |x| + 1 wraps in its dtype (uint8 255 gives 255 / 0 = inf,
/// int8 -128 gives -128 / -127), then the true division is in float32.
FailureOr<RtValue> softsign(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (isFloatingPoint(in->dtype()))
    return unaryFloat(args, [](double x) { return x / (1.0 + std::fabs(x)); });
  Tensor den(in->dtype(), in->shape());
  for (int64_t i = 0, n = in->numel(); i < n; ++i) {
    auto x = static_cast<uint64_t>(in->getInt(i));
    uint64_t magnitude = in->getInt(i) < 0 ? 0 - x : x;
    den.data<int64_t>()[i] = static_cast<int64_t>(magnitude + 1);
  }
  den.roundToDType();
  Tensor out(DType::F32, in->shape());
  for (int64_t i = 0, n = in->numel(); i < n; ++i)
    out.data<float>()[i] = static_cast<float>(in->getInt(i)) /
                           static_cast<float>(den.getInt(i));
  return RtValue(out);
}


FailureOr<RtValue> sign(const KernelArgs &args) {
  // sign(NaN) is 0, as in torch.
  return unaryTyped(args,
                    [](auto x) -> decltype(x) { return (x > 0) - (x < 0); });
}

/// floor, ceil, round (half to even) and trunc: integers stay as they are.
#define TRACED_ROUNDING(name, fn)                                              \
  FailureOr<RtValue> name(const KernelArgs &args) {                            \
    return unaryTyped(args, [](auto x) {                                       \
      if constexpr (std::is_floating_point_v<decltype(x)>)                     \
        return fn(x);                                                          \
      else                                                                     \
        return x;                                                              \
    });                                                                        \
  }
TRACED_ROUNDING(floor, std::floor)
TRACED_ROUNDING(ceil, std::ceil)
TRACED_ROUNDING(trunc, std::trunc)
#undef TRACED_ROUNDING

FailureOr<RtValue> round(const KernelArgs &args) {
  FailureOr<int64_t> decimals = args.getInt("decimals");
  if (failed(decimals))
    return failure();
  double scale = std::pow(10.0, static_cast<double>(*decimals));
  int64_t d = *decimals;
  return unaryTyped(args, [scale, d](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      if (d == 0)
        return static_cast<T>(std::nearbyint(x));
      // torch rounds x * 10^d (computed in the dtype) and divides back.
      T scaled = d > 0 ? x * static_cast<T>(scale) : x / static_cast<T>(1 / scale);
      T r = static_cast<T>(std::nearbyint(scaled));
      return d > 0 ? r / static_cast<T>(scale) : r * static_cast<T>(1 / scale);
    } else {
      return x;
    }
  });
}

FailureOr<RtValue> frac(const KernelArgs &args) {
  return unaryTyped(args, [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>)
      return x - std::trunc(x);
    else
      return x;
  });
}

FailureOr<RtValue> square(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  // torch.square is pow(x, 2): bools square to int64.
  Tensor x = in->dtype() == DType::Bool ? in->to(DType::I64) : *in;
  Tensor out(x.dtype(), x.shape());
  dispatchStorage(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *p = x.template data<T>();
    T *o = out.template data<T>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) {
      if constexpr (std::is_integral_v<T>)
        o[i] = static_cast<T>(static_cast<uint64_t>(p[i]) *
                              static_cast<uint64_t>(p[i]));
      else
        o[i] = p[i] * p[i];
    }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> atan2(const KernelArgs &args) {
  return floatBinary(args, [](auto x, auto y) { return std::atan2(x, y); });
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

FailureOr<RtValue> elu(const KernelArgs &args) {
  FailureOr<double> alpha = args.getFloat("alpha");
  if (failed(alpha))
    return failure();
  double a = *alpha;
  double scale = 1, inputScale = 1;
  if (args.has("scale")) {
    FailureOr<double> s = args.getFloat("scale"),
                      is = args.getFloat("input_scale");
    if (failed(s) || failed(is))
      return failure();
    scale = *s;
    inputScale = *is;
  }
  return unaryFloat(args, [a, scale, inputScale](double x) {
    return x > 0 ? scale * x : scale * a * std::expm1(x * inputScale);
  });
}

FailureOr<RtValue> celu(const KernelArgs &args) {
  return unaryFloatOf(args, "alpha", [](double a, double x) {
    if (x != x)
      return x;
    return std::max(0.0, x) + std::min(0.0, a * std::expm1(x / a));
  });
}

FailureOr<RtValue> softplus(const KernelArgs &args) {
  FailureOr<double> beta = args.getFloat("beta"),
                    threshold = args.getFloat("threshold");
  if (failed(beta) || failed(threshold))
    return failure();
  double b = *beta, t = *threshold;
  return unaryFloat(args, [b, t](double x) {
    return x * b > t ? x : std::log1p(std::exp(x * b)) / b;
  });
}

FailureOr<RtValue> hardshrink(const KernelArgs &args) {
  return unaryFloatOf(args, "lambd", [](double l, double x) {
    return (x >= -l && x <= l) ? 0.0 : x;
  });
}

FailureOr<RtValue> softshrink(const KernelArgs &args) {
  return unaryFloatOf(args, "lambd", [](double l, double x) {
    return x > l ? x - l : (x < -l ? x + l : 0.0);
  });
}

FailureOr<RtValue> threshold(const KernelArgs &args) {
  FailureOr<double> threshold = args.getFloat("threshold"),
                    value = args.getFloat("value");
  if (failed(threshold) || failed(value))
    return failure();
  // torch converts the threshold to the input's dtype before comparing
  // (an int32 input with threshold -0.25 compares with 0).
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  double t = *threshold, v = *value;
  if (isIntegral(in->dtype())) {
    int64_t ti = floatToInt(t, in->dtype()), vi = floatToInt(v, in->dtype());
    return unaryAny(args, [t, v, ti, vi](auto x) {
      if constexpr (std::is_integral_v<decltype(x)>)
        return x <= ti ? vi : x;
      else
        return x <= t ? v : x;
    });
  }
  return unaryAny(args, [t, v](auto x) {
    if constexpr (std::is_integral_v<decltype(x)>)
      return x <= static_cast<int64_t>(t) ? static_cast<int64_t>(v) : x;
    else
      return x <= t ? v : x;
  });
}

FailureOr<RtValue> rrelu(const KernelArgs &args) {
  FailureOr<double> lower = args.getFloat("lower"),
                    upper = args.getFloat("upper");
  FailureOr<bool> training = args.getBool("training");
  if (failed(lower) || failed(upper) || failed(training))
    return failure();
  if (*training)
    return args.emitError() << "rrelu in training mode is random; only "
                               "training=False is supported";
  double k = (*lower + *upper) / 2;
  return unaryFloat(args, [k](double x) { return x >= 0 ? x : k * x; });
}

//===----------------------------------------------------------------------===//
// Three-operand pointwise ops and more binary float math
//===----------------------------------------------------------------------===//

/// Elementwise `fn(a, b, c)` over the tensors or numbers `names`, with
/// broadcasting, in their promoted dtype (`Float`: integers give float32);
/// `fn` takes and returns the storage type's compute type (int64_t for
/// integers, double or float for floats).
template <typename Fn>
static FailureOr<RtValue> ternary(const KernelArgs &args,
                                  std::array<StringRef, 3> names, Fn fn,
                                  ResultKind kind = ResultKind::Promoted) {
  SmallVector<Operand> ops;
  SmallVector<PromotionOperand> promotion;
  SmallVector<int64_t> shape;
  bool anyTensor = false;
  for (StringRef name : names) {
    FailureOr<Operand> o = operand(args, name);
    if (failed(o))
      return failure();
    if (o->isTensor) {
      FailureOr<SmallVector<int64_t>> b =
          broadcastShape(shape, o->tensor.shape());
      if (failed(b))
        return args.emitError() << "the shapes of '" << names[0] << "', '"
                                << names[1] << "' and '" << names[2]
                                << "' cannot be broadcast together";
      shape = *b;
      anyTensor = true;
    }
    promotion.push_back(promotionOf(*o));
    ops.push_back(*o);
  }
  if (!anyTensor)
    return args.emitError() << "expects at least one tensor";
  DType dtype = resultType(promotion);
  if (kind == ResultKind::Float)
    dtype = toFloatingDType(dtype);
  SmallVector<Tensor> ts;
  for (const Operand &o : ops)
    ts.push_back(materialized(o, dtype, shape));
  Tensor out(dtype, shape);
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = std::conditional_t<std::is_same_v<T, uint8_t>, int64_t, T>;
    const T *a = ts[0].template data<T>(), *b = ts[1].template data<T>(),
            *c = ts[2].template data<T>();
    T *o = out.template data<T>();
    for (int64_t i = 0, n = out.numel(); i < n; ++i) {
      C r = static_cast<C>(fn(static_cast<C>(a[i]), static_cast<C>(b[i]),
                              static_cast<C>(c[i])));
      if constexpr (std::is_same_v<T, uint8_t>)
        o[i] = r != 0;
      else
        o[i] = static_cast<T>(r);
    }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> lerp(const KernelArgs &args) {
  // torch 1.13's CPU kernel: from `input` for w < 0.5 (not |w|: a weight of
  // -inf gives -inf, not NaN), else from `end`, so lerp(a, b, 1) is b
  // exactly; each one fused multiply-add, as its vectorized path computes.
  return ternary(args, {"input", "end", "weight"}, [](auto a, auto b, auto w) {
    using C = decltype(a);
    if constexpr (std::is_floating_point_v<C>) {
      C diff = b - a;
      return w < C(0.5) ? std::fma(w, diff, a) : std::fma(w - C(1), diff, b);
    } else {
      return a; // floats only (the rule rejects others)
    }
  });
}

/// addcmul and addcdiv: `fn(x, k, a, b)` over input, tensor1 and tensor2,
/// `k` the number `value` in the compute type.
template <typename Fn>
static FailureOr<RtValue> addScaled(const KernelArgs &args, Fn fn) {
  std::optional<double> value = args.get("value").number();
  if (!value)
    return args.emitError() << "'value' must be a number";
  double k = *value;
  return ternary(args, {"input", "tensor1", "tensor2"},
                 [k, fn](auto x, auto a, auto b) {
                   return fn(x, static_cast<decltype(x)>(k), a, b);
                 });
}

FailureOr<RtValue> addcmul(const KernelArgs &args) {
  return addScaled(args, [](auto x, auto k, auto a, auto b) {
    return static_cast<decltype(x)>(x + k * a * b);
  });
}

FailureOr<RtValue> addcdiv(const KernelArgs &args) {
  return addScaled(args, [](auto x, auto k, auto a, auto b) {
    using C = decltype(x);
    if constexpr (std::is_floating_point_v<C>)
      return static_cast<C>(x + k * (a / b));
    else
      return x; // floats only (the rule rejects others)
  });
}

FailureOr<RtValue> xlogy(const KernelArgs &args) {
  return binary(
      args, "input", "other",
      [](auto x, auto y) {
        using C = decltype(x);
        if (std::isnan(static_cast<double>(y)))
          return static_cast<C>(NAN);
        if (x == 0)
          return static_cast<C>(0);
        return static_cast<C>(x * std::log(y));
      },
      ResultKind::Float);
}

FailureOr<RtValue> hypot(const KernelArgs &args) {
  return floatBinary(args, [](auto x, auto y) { return std::hypot(x, y); });
}

/// log(exp(x) + exp(y)) (`Base2`: log2(2^x + 2^y)) from the larger operand;
/// equal infinities give themselves.
template <bool Base2>
static FailureOr<RtValue> logAddExp(const KernelArgs &args) {
  return floatBinary(args, [](auto x, auto y) {
    using C = decltype(x);
    if (std::isinf(static_cast<double>(x)) && x == y)
      return x;
    C m = std::max(x, y);
    if constexpr (Base2)
      return static_cast<C>(m + std::log1p(std::exp2(-std::abs(x - y))) /
                                    std::log(C(2)));
    else
      return static_cast<C>(m + std::log1p(std::exp(-std::abs(x - y))));
  });
}

FailureOr<RtValue> logaddexp(const KernelArgs &args) {
  return logAddExp</*Base2=*/false>(args);
}

FailureOr<RtValue> logaddexp2(const KernelArgs &args) {
  return logAddExp</*Base2=*/true>(args);
}

/// ldexp: input * pow(2.0, other), each step rounded to the dtype torch
/// computes it in (the power: other's floating dtype, else float32).
FailureOr<RtValue> ldexp(const KernelArgs &args) {
  FailureOr<Tensor> x = args.tensor("input"), e = args.tensor("other");
  if (failed(x) || failed(e))
    return failure();
  DType powerType = isFloatingPoint(e->dtype()) ? e->dtype() : kDefaultFloat;
  Tensor power(DType::F64, e->shape());
  for (int64_t i = 0, n = e->numel(); i < n; ++i)
    power.setDouble(i, std::pow(2.0, e->getDouble(i)));
  power = power.to(powerType);
  auto priority = [](const Tensor &t) {
    return t.rank() == 0 ? PromotionPriority::ZeroDim : PromotionPriority::Tensor;
  };
  DType dtype = resultType({{x->dtype(), priority(*x)}, {powerType, priority(power)}});
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(x->shape(), e->shape());
  if (failed(shape))
    return args.emitError() << "the shapes of 'input' and 'other' cannot be "
                               "broadcast together";
  Tensor a = broadcastTo(x->to(dtype), *shape), b = broadcastTo(power.to(dtype), *shape);
  Tensor out(dtype, *shape);
  for (int64_t i = 0, n = out.numel(); i < n; ++i)
    out.setDouble(i, a.getDouble(i) * b.getDouble(i));
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> copysign(const KernelArgs &args) {
  return floatBinary(args, [](auto x, auto y) { return std::copysign(x, y); });
}

FailureOr<RtValue> floatPower(const KernelArgs &args) {
  FailureOr<Operand> a = operand(args, "input"), b = operand(args, "exponent");
  if (failed(a) || failed(b))
    return failure();
  // Both sides in float64, whatever they are.
  auto asDouble = [&](const Operand &o) {
    if (o.isTensor)
      return o.tensor.to(DType::F64);
    Tensor t(DType::F64, {});
    t.data<double>()[0] = o.number;
    return t;
  };
  Tensor x = asDouble(*a), y = asDouble(*b);
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(x.shape(), y.shape());
  if (failed(shape))
    return args.emitError() << "the shapes of 'input' and 'exponent' cannot "
                               "be broadcast together";
  x = broadcastTo(x, *shape);
  y = broadcastTo(y, *shape);
  Tensor out(DType::F64, *shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.data<double>()[i] = std::pow(x.data<double>()[i], y.data<double>()[i]);
  return RtValue(out);
}

FailureOr<RtValue> rsubAlpha(const KernelArgs &args) {
  // torch.rsub: other - alpha * input.
  if (failed(checkNotBoolSub(args)))
    return failure();
  std::optional<double> alpha = args.get("alpha").number();
  if (!alpha)
    return args.emitError() << "'alpha' must be a number";
  double k = *alpha;
  return binary(args, "input", "other", [k](auto x, auto y) {
    using C = decltype(x);
    return static_cast<C>(y - static_cast<C>(k) * x);
  });
}

FailureOr<RtValue> nanToNum(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  if (!isFloatingPoint(in->dtype()))
    return RtValue(*in);
  auto read = [&](StringRef name) -> std::optional<double> {
    return args.isNone(name) ? std::nullopt : args.get(name).number();
  };
  std::optional<double> nan = read("nan"), pos = read("posinf"),
                        neg = read("neginf");
  double hi, lo;
  switch (in->dtype()) {
  case DType::F16:
    hi = 65504.0;
    break;
  case DType::BF16:
    hi = 3.3895313892515355e38;
    break;
  case DType::F32:
    hi = std::numeric_limits<float>::max();
    break;
  default:
    hi = std::numeric_limits<double>::max();
  }
  lo = -hi;
  double n = nan.value_or(0.0), p = pos.value_or(hi), m = neg.value_or(lo);
  return unaryFloat(args, [=](double x) {
    return std::isnan(x) ? n : x == INFINITY ? p : x == -INFINITY ? m : x;
  });
}

FailureOr<RtValue> logit(const KernelArgs &args) {
  std::optional<double> eps;
  if (!args.isNone("eps")) {
    FailureOr<double> e = args.getFloat("eps");
    if (failed(e))
      return failure();
    eps = *e;
  }
  return unaryFloat(args, [eps](double x) {
    if (eps)
      x = x < *eps ? *eps : (x > 1 - *eps ? 1 - *eps : x);
    return std::log(x / (1 - x));
  });
}

FailureOr<RtValue> sinc(const KernelArgs &args) {
  // torch computes pi * x in the op-math type, float for float32, float16
  // and bfloat16: float32 sinc(2) is sin(2 pi rounded to float) / that,
  // +2.8e-8, where double's pi gives -3.9e-17 (the sign flips log10).
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  Tensor x = isFloatingPoint(in->dtype()) ? *in : in->to(DType::F32);
  return RtValue(
      mapStorage<std::is_floating_point>(x, [&](const auto *p, auto *o) {
        using T = std::remove_pointer_t<decltype(o)>;
        for (int64_t i = 0, n = x.numel(); i < n; ++i) {
          T px = static_cast<T>(M_PI) * p[i];
          o[i] = p[i] == 0 ? T(1) : static_cast<T>(std::sin(px) / px);
        }
      }));
}

FailureOr<RtValue> deg2rad(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return x * (M_PI / 180.0); });
}

FailureOr<RtValue> rad2deg(const KernelArgs &args) {
  return unaryFloat(args, [](double x) { return x * (180.0 / M_PI); });
}

FailureOr<RtValue> heaviside(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("input"), b = args.tensor("values");
  if (failed(a) || failed(b))
    return failure();
  if (a->dtype() != b->dtype())
    return args.emitError() << "heaviside is not yet implemented for tensors "
                               "with different dtypes";
  return binary(args, "input", "values", [](auto x, auto v) {
    using C = decltype(x);
    return x == 0 ? v : static_cast<C>(x > 0 ? 1 : 0);
  });
}

FailureOr<RtValue> isposinf(const KernelArgs &args) {
  return unaryPredicate(args, [](double x) { return x == INFINITY; });
}

FailureOr<RtValue> isneginf(const KernelArgs &args) {
  return unaryPredicate(args, [](double x) { return x == -INFINITY; });
}

/// signbit: the sign bit of a float (-0.0 and a negative NaN too), x < 0
/// for signed integers, false for bool and uint8.
FailureOr<RtValue> signbit(const KernelArgs &args) {
  return unaryPredicate(args, [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>)
      return std::signbit(x);
    else
      return x < 0;
  });
}

/// isclose: |a - b| <= atol + rtol * |b|, equal values (infinities too)
/// close, NaN close to NaN only with equal_nan; integer and bool operands
/// in float32.
FailureOr<RtValue> isclose(const KernelArgs &args) {
  FailureOr<Tensor> a = args.tensor("input"), b = args.tensor("other");
  FailureOr<double> rtol = args.getFloat("rtol"), atol = args.getFloat("atol");
  FailureOr<bool> equalNan = args.getBool("equal_nan");
  if (failed(a) || failed(b) || failed(rtol) || failed(atol) ||
      failed(equalNan))
    return failure();
  if (a->dtype() != b->dtype())
    return args.emitError() << "expects operands of one dtype, got "
                            << dtypeName(a->dtype()) << " and "
                            << dtypeName(b->dtype());
  if (*rtol < 0 || *atol < 0)
    return args.emitError() << "rtol and atol must be non-negative";
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(a->shape(), b->shape());
  if (failed(shape))
    return args.emitError() << "the operands cannot be broadcast together";
  Tensor x = broadcastTo(*a, *shape), y = broadcastTo(*b, *shape);
  Tensor out(DType::Bool, *shape);
  // Integers and bools take the tolerance test in the default dtype,
  // float32, as torch 1.13 converts them (so 2^40 and 2^40 + 1 are close
  // with atol 0.5, and uint8 differences do not wrap).
  bool integral = isIntegral(a->dtype());
  for (int64_t i = 0; i < out.numel(); ++i) {
    bool close;
    if (integral) {
      close = x.getInt(i) == y.getInt(i);
      float p = static_cast<float>(x.getInt(i)), q = static_cast<float>(y.getInt(i));
      float allowed = static_cast<float>(*atol) +
                      std::fabs(static_cast<float>(*rtol) * q);
      close = close || std::fabs(p - q) <= allowed;
    } else {
      double p = x.getDouble(i), q = y.getDouble(i);
      close = p == q || (*equalNan && std::isnan(p) && std::isnan(q));
      if (!close && std::isfinite(p) && std::isfinite(q))
        close = std::abs(p - q) <= *atol + *rtol * std::abs(q);
    }
    out.data<uint8_t>()[i] = close;
  }
  return RtValue(out);
}

/// Random in training, the identity in eval mode: dropout and stochastic
/// depth. The interpreter runs eval-mode graphs.
static FailureOr<RtValue> evalIdentity(const KernelArgs &args, StringRef flag,
                                       StringRef what) {
  FailureOr<bool> training = args.getBool(flag);
  FailureOr<double> p = args.getFloat("p");
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(training) || failed(p) || failed(in))
    return failure();
  if (*training && *p > 0)
    return args.emitError() << what
                            << " in training mode is random; the "
                               "interpreter runs eval-mode graphs";
  return RtValue(*in);
}

FailureOr<RtValue> dropout(const KernelArgs &args) {
  // F.dropout(input, p, training) and torch.dropout(input, p, train).
  return evalIdentity(args, args.has("training") ? "training" : "train",
                      "dropout");
}

/// aten::native_dropout: (a copy of the input, an all-true keep mask) in
/// eval mode and with p = 0; random otherwise. The mask of an empty input
/// has the input's dtype (torch 1.13's empty_like; the rule says so too).
static FailureOr<RtValue> nativeDropout(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<double> p = args.getFloat("p");
  if (failed(in) || failed(p))
    return failure();
  bool training = true;
  if (!args.isNone("train")) {
    FailureOr<bool> train = args.getBool("train");
    if (failed(train))
      return failure();
    training = *train;
  }
  if (training && *p != 0)
    return args.emitError() << "native_dropout in training mode is random; "
                               "the interpreter runs eval-mode graphs";
  if (in->numel() == 0)
    return RtValue::ofList({RtValue(*in), RtValue(Tensor(in->dtype(), in->shape()))},
                           true);
  Tensor mask(DType::Bool, in->shape());
  std::fill_n(mask.data<uint8_t>(), mask.numel(), uint8_t(1));
  return RtValue::ofList({RtValue(*in), RtValue(mask)}, true);
}

FailureOr<RtValue> stochasticDepth(const KernelArgs &args) {
  return evalIdentity(args, "training", "stochastic depth");
}

FailureOr<RtValue> glu(const KernelArgs &args) {
  Tensor in;
  int64_t dim;
  if (failed(inputAndDim(args, "glu does not support 0-d tensors", in, dim)))
    return failure();
  int64_t size = in.dim(dim);
  if (size % 2)
    return args.emitError() << "halving dimension must be even, but dimension "
                            << dim << " is size " << size;
  int64_t outer, inner;
  std::tie(outer, inner) = outerInner(in.shape(), dim);
  SmallVector<int64_t> shape(in.shape());
  shape[dim] = size / 2;
  Tensor out(in.dtype(), shape);
  int64_t half = size / 2;
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t j = 0; j < half; ++j)
      for (int64_t c = 0; c < inner; ++c) {
        double x = in.getDouble((a * size + j) * inner + c);
        double g = in.getDouble((a * size + j + half) * inner + c);
        out.setDouble((a * half + j) * inner + c, x / (1.0 + std::exp(-g)));
      }
  out.roundToDType();
  return RtValue(out);
}

FailureOr<RtValue> prelu(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), w = args.tensor("weight");
  if (failed(in) || failed(w))
    return failure();
  int64_t channels = in->rank() >= 2 ? in->dim(1) : 1;
  if (w->numel() != 1 && w->numel() != channels)
    return args.emitError() << "mismatch of parameter numbers and input "
                               "channel size: weight has "
                            << w->numel() << ", input has " << channels;
  int64_t inner = 1;
  for (int64_t i = 2; i < in->rank(); ++i)
    inner *= in->dim(i);
  Tensor out(in->dtype(), in->shape());
  for (int64_t i = 0; i < in->numel(); ++i) {
    double x = in->getDouble(i);
    double k = w->getDouble(w->numel() == 1 ? 0 : (i / inner) % channels);
    out.setDouble(i, x > 0 ? x : k * x); // torch: 0 * k, so -0 or NaN too
  }
  out.roundToDType();
  return RtValue(out);
}

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

namespace {
/// The dtype `x.to(...)` converts to: a dtype among its arguments, or that
/// of a tensor argument (`x.to(y)`); devices are the CPU's and change
/// nothing. Nullopt: the input's own dtype.
FailureOr<std::optional<DType>> castTarget(const KernelArgs &args) {
  std::optional<DType> target;
  for (StringRef name : {"a", "b", "dtype"}) {
    if (!args.has(name))
      continue;
    const RtValue &v = args.get(name);
    if (v.isTensor()) {
      target = v.tensor().dtype();
    } else if (auto *attr = std::get_if<Attribute>(&v.v)) {
      if (auto d = dyn_cast<DTypeAttr>(*attr)) {
        target = dtypeFromType(d.getType());
        if (!target)
          return args.emitError() << "unsupported dtype " << d.getType();
      }
    }
  }
  return target;
}
} // namespace

namespace mlir::traced::kernels {

FailureOr<RtValue> to(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<std::optional<DType>> target = castTarget(args);
  if (failed(in) || failed(target))
    return failure();
  return RtValue(*target ? in->to(**target) : *in);
}

FailureOr<RtValue> typeAs(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input"), other = args.tensor("other");
  if (failed(in) || failed(other))
    return failure();
  return RtValue(in->to(other->dtype()));
}

template <DType D> FailureOr<RtValue> castTo(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  return RtValue(in->to(D));
}
template FailureOr<RtValue> castTo<DType::F32>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::F64>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::F16>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::BF16>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::I64>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::I32>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::I16>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::I8>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::U8>(const KernelArgs &);
template FailureOr<RtValue> castTo<DType::Bool>(const KernelArgs &);

} // namespace mlir::traced::kernels

//===----------------------------------------------------------------------===//
// The family's entries
//===----------------------------------------------------------------------===//

namespace mlir::traced::kernels {
/// Fake quantization, step for step as torch 1.13's CPU kernel: with
/// float `sc` = scale and `inv` = 1 / sc in float, q = int64(zero_point +
/// nearbyint(x * inv)) (x * inv in float for float32 and float16, double
/// for float64), out = (clamp(q, quant_min, quant_max) - zero_point) * sc,
/// mask = quant_min <= q <= quant_max. A q that is not a finite int64
/// (x NaN or infinite, scale 0) converts as x86's cvttsd2si does, to
/// INT64_MIN.
template <bool withMask>
static FailureOr<RtValue> fakeQuantize(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  FailureOr<double> scale = args.getFloat("scale");
  FailureOr<int64_t> zp = args.getInt("zero_point"), lo = args.getInt("quant_min"),
                     hi = args.getInt("quant_max");
  if (failed(in) || failed(scale) || failed(zp) || failed(lo) || failed(hi))
    return failure();
  DType dt = in->dtype();
  if (dt != DType::F32 && dt != DType::F64 && dt != DType::F16)
    return args.emitError() << "has no CPU kernel for fake quantization in "
                            << dtypeName(dt);
  if (*lo > *hi || *zp < *lo || *zp > *hi)
    return args.emitError() << "expects quant_min <= zero_point <= quant_max";
  float sc = static_cast<float>(*scale), inv = 1.0f / sc;
  auto toInt64 = [](double v) {
    return std::isfinite(v) && v >= -9.223372036854775808e18 &&
                   v < 9.223372036854775808e18
               ? static_cast<int64_t>(v)
               : std::numeric_limits<int64_t>::min();
  };
  Tensor out(dt, in->shape()), mask(DType::Bool, in->shape());
  for (int64_t i = 0; i < in->numel(); ++i) {
    double x = in->getDouble(i);
    double scaled = dt == DType::F64 ? x * static_cast<double>(inv)
                                     : static_cast<double>(static_cast<float>(x) * inv);
    double sum = dt == DType::F64
                     ? static_cast<double>(*zp) + std::nearbyint(scaled)
                     : static_cast<double>(static_cast<float>(*zp) +
                                           std::nearbyint(static_cast<float>(scaled)));
    int64_t q = toInt64(sum);
    double clamped = std::fmin(std::fmax(static_cast<double>(q), static_cast<double>(*lo)),
                               static_cast<double>(*hi));
    out.setDouble(i, (clamped - static_cast<double>(*zp)) * static_cast<double>(sc));
    mask.data<uint8_t>()[i] = *lo <= q && q <= *hi;
  }
  out.roundToDType();
  if (withMask)
    return RtValue::ofList({RtValue(out), RtValue(mask)}, /*isTuple=*/true);
  return RtValue(out);
}
} // namespace mlir::traced::kernels

/// A real tensor's angle: pi where it is negative, 0 elsewhere, NaN kept.
static FailureOr<RtValue> angle(const KernelArgs &args) {
  return unaryFloat(args, [](double x) {
    return std::isnan(x) ? x : x < 0 ? M_PI : 0.0;
  });
}

static FailureOr<RtValue> positive(const KernelArgs &args) {
  FailureOr<Tensor> in = args.tensor("input");
  if (failed(in))
    return failure();
  return RtValue(copyOf(*in));
}

void mlir::traced::kernels::populateElementwiseKernels(KernelTable &table) {
  table["torch.angle"] = angle;
  table["torch.positive"] = positive;
  populateSpecialKernels(table);
  table["torch.fake_quantize_per_tensor_affine"] = fakeQuantize<false>;
  table["torch.ops.aten.fake_quantize_per_tensor_affine_cachemask.default"] =
      fakeQuantize<true>;
  table["torch.nn.functional.relu"] = relu;
  table["torch.nn.functional.relu6"] = relu6;
  table["torch.nn.functional.hardtanh"] = hardtanh;
  table["torch.nn.functional.gelu"] = gelu;
  table["torch.nn.functional.silu"] = silu;
  table["torch.nn.functional.hardswish"] = hardswish;
  table["torch.nn.functional.hardsigmoid"] = hardsigmoid;
  table["torch.nn.functional.leaky_relu"] = leakyRelu;
  table["torch.sigmoid"] = sigmoid;
  table["torch.tanh"] = tanh;
  table["torch.clamp"] = clamp;
  table["torch.nn.functional.elu"] = elu;
  table["torch.nn.functional.selu"] = selu;
  table["torch.nn.functional.celu"] = celu;
  table["torch.nn.functional.softplus"] = softplus;
  table["torch.nn.functional.softsign"] = softsign;
  table["torch.nn.functional.mish"] = mish;
  table["torch.nn.functional.hardshrink"] = hardshrink;
  table["torch.nn.functional.softshrink"] = softshrink;
  table["torch.nn.functional.tanhshrink"] = tanhshrink;
  table["torch.nn.functional.threshold"] = threshold;
  table["torch.nn.functional.rrelu"] = rrelu;
  table["torch.nn.functional.logsigmoid"] = logsigmoid;
  table["torch.exp"] = exp;
  table["torch.log"] = log;
  table["torch.sqrt"] = sqrt;
  table["torch.rsqrt"] = rsqrt;
  table["torch.abs"] = abs;
  table["torch.erf"] = erf;
  table["torch.neg"] = neg;
  table["torch.reciprocal"] = reciprocal;
  table["torch.exp2"] = exp2;
  table["torch.expm1"] = expm1;
  table["torch.log2"] = log2;
  table["torch.log10"] = log10;
  table["torch.log1p"] = log1p;
  table["torch.erfc"] = erfc;
  table["torch.sin"] = sin;
  table["torch.cos"] = cos;
  table["torch.tan"] = tan;
  table["torch.asin"] = asin;
  table["torch.acos"] = acos;
  table["torch.atan"] = atan;
  table["torch.sinh"] = sinh;
  table["torch.cosh"] = cosh;
  table["torch.asinh"] = asinh;
  table["torch.acosh"] = acosh;
  table["torch.atanh"] = atanh;
  table["torch.lerp"] = lerp;
  table["torch.addcmul"] = addcmul;
  table["torch.addcdiv"] = addcdiv;
  table["torch.xlogy"] = xlogy;
  table["torch.hypot"] = hypot;
  table["torch.logaddexp"] = logaddexp;
  table["torch.logaddexp2"] = logaddexp2;
  table["torch.copysign"] = copysign;
  table["torch.float_power"] = floatPower;
  table["torch.rsub"] = rsubAlpha;
  table["torch.nan_to_num"] = nanToNum;
  table["torch.logit"] = logit;
  table["torch.sinc"] = sinc;
  table["torch.deg2rad"] = deg2rad;
  table["torch.rad2deg"] = rad2deg;
  table["torch.heaviside"] = heaviside;
  table["torch.isposinf"] = isposinf;
  table["torch.isneginf"] = isneginf;
  table["torch.signbit"] = signbit;
  table["torch.ldexp"] = ldexp;
  table["torch.clamp_min"] = clamp;
  table["torch.clamp_max"] = clamp;
  table["torch.atan2"] = atan2;
  table["torch.sign"] = sign;
  table["torch.floor"] = floor;
  table["torch.ceil"] = ceil;
  table["torch.trunc"] = trunc;
  table["torch.round"] = round;
  table["torch.frac"] = frac;
  table["torch.square"] = square;
  table["torch.isnan"] = isnan;
  table["torch.isinf"] = isinf;
  table["torch.isfinite"] = isfinite;
  table["torch.eq"] = eq;
  table["torch.ne"] = ne;
  table["torch.lt"] = lt;
  table["torch.le"] = le;
  table["torch.gt"] = gt;
  table["torch.ge"] = ge;
  table["torch.logical_and"] = logicalAnd;
  table["torch.logical_or"] = logicalOr;
  table["torch.logical_xor"] = logicalXor;
  table["torch.logical_not"] = logicalNot;
  table["torch.bitwise_and"] = bitwiseAnd;
  table["torch.bitwise_or"] = bitwiseOr;
  table["torch.bitwise_xor"] = bitwiseXor;
  table["torch.bitwise_left_shift"] = leftShift;
  table["torch.bitwise_right_shift"] = rightShift;
  table["torch.bitwise_not"] = bitwiseNot;
  table["torch.maximum"] = maximum;
  table["torch.minimum"] = minimum;
  table["torch.fmax"] = fmax;
  table["torch.fmin"] = fmin;
  table["torch.where"] = where;
  table["Tensor.where"] = where;
  table["Tensor.masked_fill"] = maskedFill;
  table["torch.add"] = add;
  table["torch.sub"] = sub;
  table["Tensor.__rsub__"] = rsub;
  table["torch.mul"] = mul;
  table["torch.div"] = div;
  table["Tensor.__rtruediv__"] = rtruediv;
  table["torch.floor_divide"] = floorDivide;
  table["torch.pow"] = pow;
  table["Tensor.__rfloordiv__"] = rfloordiv;
  table["Tensor.__rpow__"] = rpow;
  table["Tensor.__rmod__"] = rremainder;
  table["torch.remainder"] = remainder;
  table["torch.fmod"] = fmod;
  table["torch.isclose"] = isclose;
  table["torch.nn.functional.glu"] = glu;
  table["torch.nn.functional.prelu"] = prelu;
  table["torch.nn.functional.dropout"] = dropout;
  table["torchvision.ops.stochastic_depth.stochastic_depth"] = stochasticDepth;
  table["torch.dropout"] = dropout;
  table["torch.ops.aten.native_dropout.default"] = nativeDropout;
  table["torch.nn.functional.dropout1d"] = dropout;
  table["torch.nn.functional.dropout2d"] = dropout;
  table["torch.nn.functional.dropout3d"] = dropout;
  table["torch.nn.functional.alpha_dropout"] = dropout;
  table["torch.nn.functional.feature_alpha_dropout"] = dropout;
  table["Tensor.to"] = to;
  table["Tensor.type_as"] = typeAs;
  table["Tensor.float"] = castTo<DType::F32>;
  table["Tensor.double"] = castTo<DType::F64>;
  table["Tensor.half"] = castTo<DType::F16>;
  table["Tensor.bfloat16"] = castTo<DType::BF16>;
  table["Tensor.long"] = castTo<DType::I64>;
  table["Tensor.int"] = castTo<DType::I32>;
  table["Tensor.short"] = castTo<DType::I16>;
  table["Tensor.char"] = castTo<DType::I8>;
  table["Tensor.byte"] = castTo<DType::U8>;
  table["Tensor.bool"] = castTo<DType::Bool>;
}
