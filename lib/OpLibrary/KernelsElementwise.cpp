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

enum class Category { Bool, Int, Float };

Category categoryOf(const Operand &o) {
  if (o.isTensor) {
    if (o.tensor.dtype() == DType::Bool)
      return Category::Bool;
    return isFloatingPoint(o.tensor.dtype()) ? Category::Float : Category::Int;
  }
  if (o.isBool)
    return Category::Bool;
  return o.isFloatNumber ? Category::Float : Category::Int;
}

/// PyTorch's result dtype for a binary op of a tensor and/or a number.
DType resultDType(const Operand &a, const Operand &b) {
  if (a.isTensor && b.isTensor)
    return promoteDTypes(a.tensor.dtype(), b.tensor.dtype());
  const Operand &t = a.isTensor ? a : b;
  const Operand &s = a.isTensor ? b : a;
  Category ct = categoryOf(t), cs = categoryOf(s);
  if (cs <= ct)
    return t.tensor.dtype();
  return cs == Category::Float ? DType::F32 : DType::I64;
}

/// Elementwise `fn(a, b)` with broadcasting; `floatResult` makes integer
/// results true-division floats. Scalars with scalars stay Python numbers.
template <typename Fn>
FailureOr<RtValue> binary(const KernelArgs &args, StringRef lhs, StringRef rhs,
                          Fn fn, bool floatResult = false) {
  FailureOr<Operand> a = operand(args, lhs), b = operand(args, rhs);
  if (failed(a) || failed(b))
    return failure();
  if (!a->isTensor && !b->isTensor) {
    double r = fn(a->number, b->number);
    bool isFloat = floatResult || a->isFloatNumber || b->isFloatNumber;
    if (isFloat)
      return RtValue::ofFloat(r);
    return RtValue::ofInt(static_cast<int64_t>(r));
  }
  DType dtype = resultDType(*a, *b);
  if (floatResult && !isFloatingPoint(dtype))
    dtype = DType::F32;
  SmallVector<int64_t> shape;
  if (a->isTensor && b->isTensor) {
    FailureOr<SmallVector<int64_t>> s =
        broadcastShape(a->tensor.shape(), b->tensor.shape());
    if (failed(s))
      return args.emitError() << "cannot broadcast tensors of shapes ["
                              << a->tensor.shape().size() << "-D] and ["
                              << b->tensor.shape().size() << "-D]";
    shape = *s;
  } else {
    shape.assign((a->isTensor ? a : b)->tensor.shape().begin(),
                 (a->isTensor ? a : b)->tensor.shape().end());
  }
  Tensor out(dtype, shape);
  auto materialize = [&](const Operand &o) {
    Tensor t = o.isTensor ? broadcastTo(o.tensor.to(dtype), shape) : Tensor();
    return t;
  };
  Tensor ta = materialize(*a), tb = materialize(*b);
  int64_t n = out.numel();
  dispatchStorage(dtype, [&](auto tag) {
    using T = decltype(tag);
    T *o = out.template data<T>();
    const T *pa = a->isTensor ? ta.template data<T>() : nullptr;
    const T *pb = b->isTensor ? tb.template data<T>() : nullptr;
    // Numbers enter in the result's type, as PyTorch wraps them.
    T sa = static_cast<T>(a->number), sb = static_cast<T>(b->number);
    for (int64_t i = 0; i < n; ++i) {
      double x = pa ? static_cast<double>(pa[i]) : static_cast<double>(sa);
      double y = pb ? static_cast<double>(pb[i]) : static_cast<double>(sb);
      if constexpr (std::is_same_v<T, float>)
        o[i] = static_cast<float>(
            fn(static_cast<float>(x), static_cast<float>(y)));
      else
        o[i] = static_cast<T>(fn(x, y));
    }
    return 0;
  });
  out.roundToDType();
  return RtValue(out);
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
  std::optional<double> lo = args.get("min").number(),
                        hi = args.get("max").number();
  if (!lo && !hi)
    return args.emitError() << "at least one of 'min' and 'max' must be given";
  return unaryAny(args, [lo, hi](double x) {
    if (x != x)
      return x;
    if (lo)
      x = std::max(x, *lo);
    if (hi)
      x = std::min(x, *hi);
    return x;
  });
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
  if (failed(alpha))
    return failure();
  double k = *alpha;
  if (k == 1)
    return binary(args, "input", "other", [](auto x, auto y) { return x - y; });
  return binary(args, "input", "other", [k](auto x, auto y) {
    return x - static_cast<decltype(x)>(k) * y;
  });
}

FailureOr<RtValue> rsub(const KernelArgs &args) {
  return binary(args, "input", "other", [](auto x, auto y) { return y - x; });
}

FailureOr<RtValue> mul(const KernelArgs &args) {
  return binary(args, "input", "other", [](auto x, auto y) { return x * y; });
}

FailureOr<RtValue> div(const KernelArgs &args) {
  const RtValue &mode = args.get("rounding_mode");
  if (mode.isNone())
    return binary(
        args, "input", "other", [](auto x, auto y) { return x / y; },
        /*floatResult=*/true);
  FailureOr<std::string> m = args.getStr("rounding_mode");
  if (failed(m))
    return failure();
  if (*m == "trunc")
    return binary(args, "input", "other", [](auto x, auto y) {
      return static_cast<decltype(x)>(std::trunc(static_cast<double>(x) / y));
    });
  if (*m == "floor")
    return binary(args, "input", "other", [](auto x, auto y) {
      return static_cast<decltype(x)>(std::floor(static_cast<double>(x) / y));
    });
  return args.emitError() << "rounding_mode must be None, \"trunc\" or "
                             "\"floor\", got \""
                          << *m << "\"";
}

FailureOr<RtValue> rtruediv(const KernelArgs &args) {
  return binary(
      args, "input", "other", [](auto x, auto y) { return y / x; },
      /*floatResult=*/true);
}

FailureOr<RtValue> floorDivide(const KernelArgs &args) {
  return binary(args, "input", "other", [](auto x, auto y) {
    return static_cast<decltype(x)>(std::floor(static_cast<double>(x) / y));
  });
}

FailureOr<RtValue> pow(const KernelArgs &args) {
  return binary(args, "input", "exponent", [](auto x, auto y) {
    return static_cast<decltype(x)>(
        std::pow(static_cast<double>(x), static_cast<double>(y)));
  });
}

} // namespace mlir::traced::kernels
