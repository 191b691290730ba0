//===- ResultRules.cpp - shape and dtype rules of the op library ----------===//
//
// The rules follow PyTorch's semantics: broadcasting, type promotion between
// tensors and Python numbers, and the output-size formulas of conv and pool.
// A rule that meets an unknown (a dynamic size, a traced int) answers
// "unknown" rather than guessing; the verifier then leaves the types alone.
//
//===----------------------------------------------------------------------===//

#include "ResultRules.h"
#include "mlir/Dialect/Traits.h"
#include "TracedIR/OpLibrary/Runtime.h"

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace mlir::traced;

static constexpr int64_t kDynamic = ShapedType::kDynamic;

namespace {
/// Small helpers shared by the rules.
struct RuleHelper {
  const BoundCall &call;
  SmallVectorImpl<Type> &results;

  /// A ranked tensor argument; null (and the result "unknown") otherwise.
  RankedTensorType tensor(StringRef name) { return call.getTensor(name); }

  LogicalResult unknown() {
    results.clear();
    return success();
  }
  LogicalResult result(ArrayRef<int64_t> shape, Type elementType) {
    results.push_back(RankedTensorType::get(shape, elementType));
    return success();
  }
  LogicalResult result(Type type) {
    results.push_back(type);
    return success();
  }

  /// Normalizes a possibly negative dimension of a rank-`rank` tensor.
  FailureOr<int64_t> dim(int64_t d, int64_t rank, StringRef what = "dim") {
    int64_t n = d < 0 ? d + rank : d;
    if (n < 0 || n >= rank) {
      call.emitError() << what << " " << d
                       << " is out of range for a tensor of rank "
                       << (rank == 0 ? 1 : rank);
      return failure();
    }
    return n;
  }
};

} // namespace

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return s;
}

/// Whether two sizes are both known and differ (a traced size matches
/// anything until run time).
static bool dimsDiffer(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

static int64_t mulDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) ? kDynamic
                                                              : a * b;
}

/// An operand's part in type promotion: a tensor type by its rank, or a
/// Python number (i64, f64, i1) by its type; nullopt for other types
/// (quantized, complex, opaque).
static std::optional<PromotionOperand> promotionOperand(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t)) {
    std::optional<DType> d = dtypeFromType(tensor.getElementType());
    if (!d)
      return std::nullopt;
    return PromotionOperand{*d, tensor.getRank() == 0
                                    ? PromotionPriority::ZeroDim
                                    : PromotionPriority::Tensor};
  }
  if (t.isInteger(1))
    return PromotionOperand{DType::Bool, PromotionPriority::Scalar};
  if (t.isInteger(64))
    return PromotionOperand{DType::I64, PromotionPriority::Scalar};
  if (t.isF64())
    return PromotionOperand{DType::F64, PromotionPriority::Scalar};
  return std::nullopt;
}

/// torch.result_type of operands given by their Python types (tensors and
/// numbers); null when an operand has no dtype we know, unless all such
/// operands share one element type (kept as it is).
static Type resultElementType(ArrayRef<Type> types, MLIRContext *ctx) {
  SmallVector<PromotionOperand> operands;
  Type unknown;
  for (Type t : types) {
    std::optional<PromotionOperand> o = promotionOperand(t);
    if (o) {
      operands.push_back(*o);
      continue;
    }
    Type elt = isa<ShapedType>(t) ? cast<ShapedType>(t).getElementType() : t;
    if (unknown && unknown != elt)
      return Type();
    unknown = elt;
  }
  if (unknown)
    return operands.empty() ? unknown : Type();
  return typeFromDType(ctx, resultType(operands));
}

/// The Python type of a number of dtype `d`: i1, i64 or f64.
static Type pythonNumberType(DType d, MLIRContext *ctx) {
  Builder b(ctx);
  if (d == DType::Bool)
    return b.getI1Type();
  return isFloatingPoint(d) ? Type(b.getF64Type()) : Type(b.getI64Type());
}

static FailureOr<SmallVector<int64_t>> broadcastShapes(const BoundCall &call,
                                                       ArrayRef<int64_t> a,
                                                       ArrayRef<int64_t> b) {
  FailureOr<SmallVector<int64_t>> out = broadcastShape(a, b);
  if (failed(out))
    call.emitError() << "shapes " << shapeStr(a) << " and " << shapeStr(b)
                     << " cannot be broadcast together";
  return out;
}

static LogicalResult binary(const BoundCall &call,
                            SmallVectorImpl<Type> &results, bool trueDivide,
                            StringRef otherName = "other") {
  RuleHelper h{call, results};
  Type a = call.getType("input"), b = call.getType(otherName);
  auto ta = dyn_cast<TensorType>(a), tb = dyn_cast<TensorType>(b);
  if ((ta && !ta.hasRank()) || (tb && !tb.hasRank()))
    return h.unknown();
  MLIRContext *ctx = call.getContext();
  if (!ta && !tb) {
    // Python numbers give a Python number.
    std::optional<PromotionOperand> pa = promotionOperand(a),
                                    pb = promotionOperand(b);
    if (!pa || !pb)
      return h.unknown();
    DType d = promoteDTypes(pa->dtype, pb->dtype);
    return h.result(pythonNumberType(trueDivide ? DType::F64 : d, ctx));
  }
  Type elt = resultElementType({a, b}, ctx);
  if (!elt)
    return h.unknown();
  if (trueDivide)
    if (std::optional<DType> d = dtypeFromType(elt))
      elt = typeFromDType(ctx, toFloatingDType(*d));
  ArrayRef<int64_t> sa = ta ? ta.getShape() : ArrayRef<int64_t>();
  ArrayRef<int64_t> sb = tb ? tb.getShape() : ArrayRef<int64_t>();
  FailureOr<SmallVector<int64_t>> shape = broadcastShapes(call, sa, sb);
  if (failed(shape))
    return failure();
  return h.result(*shape, elt);
}

/// An elementwise op over the tensors and numbers `names`: their
/// broadcast shape and promoted dtype (`toFloat`: integers and bool give
/// float32, as float-only math does).
static LogicalResult pointwise(const BoundCall &call,
                               SmallVectorImpl<Type> &results,
                               ArrayRef<StringRef> names, bool toFloat) {
  RuleHelper h{call, results};
  MLIRContext *ctx = call.getContext();
  SmallVector<Type> types;
  SmallVector<int64_t> shape;
  bool anyTensor = false;
  for (StringRef name : names) {
    Type t = call.getType(name);
    if (!t || isa<traced::NoneType>(t))
      continue;
    if (auto tt = dyn_cast<TensorType>(t)) {
      if (!tt.hasRank())
        return h.unknown();
      FailureOr<SmallVector<int64_t>> s =
          broadcastShapes(call, shape, tt.getShape());
      if (failed(s))
        return failure();
      shape = *s;
      anyTensor = true;
    }
    types.push_back(t);
  }
  if (!anyTensor)
    return h.unknown();
  Type elt = resultElementType(types, ctx);
  if (!elt)
    return h.unknown();
  if (toFloat)
    if (std::optional<DType> d = dtypeFromType(elt))
      elt = typeFromDType(ctx, toFloatingDType(*d));
  return h.result(shape, elt);
}

//===----------------------------------------------------------------------===//
// Convolution parameters (shared by the rule, the kernel and the lowering)
//===----------------------------------------------------------------------===//

static std::string listStr(ArrayRef<int64_t> v) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(v, os);
  os << "]";
  return s;
}

ConvDecode mlir::traced::decodeConv(const Signature &sig,
                                    const ArgReader &r,
                                    ArrayRef<int64_t> input,
                                    ArrayRef<int64_t> weight,
                                    std::optional<ArrayRef<int64_t>> bias,
                                    ConvParams &p, std::string &error) {
  llvm::raw_string_ostream err(error);
  auto invalid = [&]() -> llvm::raw_string_ostream & { return err; };
  auto isStatic = [](int64_t d) { return !ShapedType::isDynamic(d); };
  // The functionals fix the number of spatial dims (`int[2] stride`);
  // torch.convolution takes it from the weight.
  std::optional<unsigned> strideIdx = sig.lookup("stride");
  unsigned fixed = strideIdx ? sig.params[*strideIdx].type.listSize : 0;
  int64_t k = fixed ? fixed : static_cast<int64_t>(weight.size()) - 2;
  if (k < 1 || k > 3) {
    invalid() << "expects a weight of rank 3, 4 or 5, got rank "
              << weight.size();
    return ConvDecode::Invalid;
  }
  if (static_cast<int64_t>(weight.size()) != k + 2) {
    invalid() << "expects a weight of rank " << k + 2 << ", got rank "
              << weight.size();
    return ConvDecode::Invalid;
  }
  p.spatial = k;
  // torch.convolution takes batched inputs only; the functionals also take
  // unbatched ones.
  p.batched = static_cast<int64_t>(input.size()) == k + 2;
  if (!p.batched && (!fixed || static_cast<int64_t>(input.size()) != k + 1)) {
    invalid() << "expects an input of rank "
              << (fixed ? std::to_string(k + 1) + " or " : "") << k + 2
              << " for a weight of rank " << k + 2 << ", got rank "
              << input.size();
    return ConvDecode::Invalid;
  }
  if (sig.lookup("transposed")) {
    std::optional<bool> t = r.boolean("transposed");
    if (!t)
      return ConvDecode::Unknown;
    p.transposed = *t;
  } else {
    p.transposed = sig.lookup("output_padding").has_value();
  }
  std::optional<int64_t> groups = r.integer("groups");
  if (!groups)
    return ConvDecode::Unknown;
  p.groups = *groups;
  if (p.groups < 1) {
    invalid() << "groups must be positive, got " << p.groups;
    return ConvDecode::Invalid;
  }
  // An int list of one value per spatial dim (one value is repeated).
  auto readList = [&](StringRef name, SmallVector<int64_t> &out) {
    std::optional<SmallVector<int64_t>> v = r.ints(name);
    if (!v) {
      if (!r.known(name))
        return ConvDecode::Unknown;
      invalid() << "argument '" << name << "' expects int[" << k << "]";
      return ConvDecode::Invalid;
    }
    if (v->size() == 1)
      v->assign(k, v->front());
    if (static_cast<int64_t>(v->size()) != k) {
      invalid() << "'" << name << "' needs " << k << " values, got "
                << v->size();
      return ConvDecode::Invalid;
    }
    out = std::move(*v);
    return ConvDecode::Ok;
  };
  for (auto [name, out] :
       {std::pair<StringRef, SmallVector<int64_t> *>{"stride", &p.stride},
        {"dilation", &p.dilation}})
    if (ConvDecode d = readList(name, *out); d != ConvDecode::Ok)
      return d;
  for (int64_t s : p.stride)
    if (s < 1) {
      invalid() << "'stride' must be positive, got " << listStr(p.stride);
      return ConvDecode::Invalid;
    }
  for (int64_t d : p.dilation)
    if (d < 1) {
      invalid() << "'dilation' must be positive, got " << listStr(p.dilation);
      return ConvDecode::Invalid;
    }
  // padding: ints, or (convolutions) "valid" or "same".
  if (std::optional<std::string> mode = r.str("padding")) {
    if (p.transposed) {
      invalid() << "argument 'padding' expects int[" << k
                << "] for a transposed convolution, got '" << *mode << "'";
      return ConvDecode::Invalid;
    }
    p.padBefore.assign(k, 0);
    p.padAfter.assign(k, 0);
    if (*mode == "same") {
      if (llvm::any_of(p.stride, [](int64_t s) { return s != 1; })) {
        invalid() << "padding='same' is not supported for strided "
                     "convolutions";
        return ConvDecode::Invalid;
      }
      // As ATen's _convolution_mode: the odd one of an odd total goes after.
      for (int64_t i = 0; i < k; ++i) {
        if (!isStatic(weight[2 + i]))
          return ConvDecode::Unknown;
        int64_t total = p.dilation[i] * (weight[2 + i] - 1);
        p.padBefore[i] = total / 2;
        p.padAfter[i] = total - total / 2;
      }
    } else if (*mode != "valid") {
      invalid() << "'padding' must be ints, \"same\" or \"valid\", got \""
                << *mode << "\"";
      return ConvDecode::Invalid;
    }
  } else {
    if (ConvDecode d = readList("padding", p.padBefore); d != ConvDecode::Ok)
      return d;
    p.padAfter = p.padBefore;
  }
  for (int64_t v : p.padBefore)
    if (v < 0) {
      invalid() << "'padding' must be non-negative, got "
                << listStr(p.padBefore);
      return ConvDecode::Invalid;
    }
  p.outputPadding.assign(k, 0);
  // torch.convolution ignores output_padding unless transposed.
  if (p.transposed && sig.lookup("output_padding")) {
    if (ConvDecode d = readList("output_padding", p.outputPadding);
        d != ConvDecode::Ok)
      return d;
    for (int64_t i = 0; i < k; ++i) {
      int64_t op = p.outputPadding[i];
      if (op < 0) {
        invalid() << "'output_padding' must be non-negative, got "
                  << listStr(p.outputPadding);
        return ConvDecode::Invalid;
      }
      if (op >= p.stride[i] && op >= p.dilation[i]) {
        invalid() << "output padding must be smaller than either stride or "
                     "dilation, but got output_padding="
                  << listStr(p.outputPadding) << " stride=" << listStr(p.stride)
                  << " dilation=" << listStr(p.dilation);
        return ConvDecode::Invalid;
      }
    }
  }
  ArrayRef<int64_t> spatialIn = input.take_back(k);
  p.padMode = ConvParams::PadMode::Zeros;
  if (sig.lookup("padding_mode")) {
    std::optional<std::string> mode = r.str("padding_mode");
    if (!mode) {
      if (!r.known("padding_mode"))
        return ConvDecode::Unknown;
      invalid() << "argument 'padding_mode' expects a str";
      return ConvDecode::Invalid;
    }
    std::optional<ConvParams::PadMode> m =
        llvm::StringSwitch<std::optional<ConvParams::PadMode>>(*mode)
            .Case("zeros", ConvParams::PadMode::Zeros)
            .Case("reflect", ConvParams::PadMode::Reflect)
            .Case("replicate", ConvParams::PadMode::Replicate)
            .Case("circular", ConvParams::PadMode::Circular)
            .Default(std::nullopt);
    if (!m) {
      invalid() << "padding_mode must be 'zeros', 'reflect', 'replicate' or "
                   "'circular', got '"
                << *mode << "'";
      return ConvDecode::Invalid;
    }
    p.padMode = *m;
    // F.pad's limits: a reflection cannot reach past the other edge, a
    // wrap past the input once.
    for (int64_t i = 0; i < k; ++i) {
      int64_t size = spatialIn[i];
      int64_t most = std::max(p.padBefore[i], p.padAfter[i]);
      if (!isStatic(size) || most == 0)
        continue;
      if ((p.padMode == ConvParams::PadMode::Reflect && most >= size) ||
          (p.padMode == ConvParams::PadMode::Circular && most > size) ||
          (p.padMode == ConvParams::PadMode::Replicate && size == 0)) {
        invalid() << "padding " << most << " is too large for padding_mode='"
                  << *mode << "' of an input of size " << size;
        return ConvDecode::Invalid;
      }
    }
  }
  // nn.ConvTranspose*d's forward(output_size): the output padding that gives
  // that size (torch's _output_padding).
  if (p.transposed && sig.lookup("output_size") && !r.isNone("output_size")) {
    std::optional<SmallVector<int64_t>> size = r.ints("output_size");
    if (!size) {
      if (!r.known("output_size"))
        return ConvDecode::Unknown;
      invalid() << "argument 'output_size' expects int[]";
      return ConvDecode::Invalid;
    }
    SmallVector<int64_t> want(*size);
    if (static_cast<int64_t>(want.size()) == k + 2)
      want.erase(want.begin(), want.begin() + 2);
    if (static_cast<int64_t>(want.size()) != k) {
      invalid() << "output_size must have " << k << " or " << k + 2
                << " elements (got " << size->size() << ")";
      return ConvDecode::Invalid;
    }
    SmallVector<int64_t> minSizes, maxSizes;
    for (int64_t i = 0; i < k; ++i) {
      if (!isStatic(spatialIn[i]) || !isStatic(weight[2 + i]))
        return ConvDecode::Unknown;
      int64_t lo = (spatialIn[i] - 1) * p.stride[i] - 2 * p.padBefore[i] +
                   p.dilation[i] * (weight[2 + i] - 1) + 1;
      minSizes.push_back(lo);
      maxSizes.push_back(lo + p.stride[i] - 1);
    }
    for (int64_t i = 0; i < k; ++i)
      if (want[i] < minSizes[i] || want[i] > maxSizes[i]) {
        invalid() << "requested an output size of " << listStr(want)
                  << ", but valid sizes range from " << listStr(minSizes)
                  << " to " << listStr(maxSizes) << " (for an input of "
                  << listStr(spatialIn) << ")";
        return ConvDecode::Invalid;
      }
    for (int64_t i = 0; i < k; ++i)
      p.outputPadding[i] = want[i] - minSizes[i];
  }
  // Channels.
  unsigned ch = p.batched ? 1 : 0;
  int64_t c = input[ch], outC;
  if (!p.transposed) {
    if (isStatic(c) && isStatic(weight[1]) && c != weight[1] * p.groups) {
      invalid() << "input has " << c << " channels, but weight "
                << shapeStr(weight) << " with groups=" << p.groups
                << " expects " << weight[1] * p.groups;
      return ConvDecode::Invalid;
    }
    if (isStatic(weight[0]) && weight[0] % p.groups != 0) {
      invalid() << "weight's " << weight[0]
                << " output channels are not divisible by groups=" << p.groups;
      return ConvDecode::Invalid;
    }
    outC = weight[0];
  } else {
    if (isStatic(c) && isStatic(weight[0]) && c != weight[0]) {
      invalid() << "input has " << c << " channels, but the transposed "
                << "convolution's weight " << shapeStr(weight) << " expects "
                << weight[0];
      return ConvDecode::Invalid;
    }
    if (isStatic(weight[0]) && weight[0] % p.groups != 0) {
      invalid() << "weight's " << weight[0]
                << " input channels are not divisible by groups=" << p.groups;
      return ConvDecode::Invalid;
    }
    outC = mulDims(weight[1], p.groups);
  }
  if (bias && (bias->size() != 1 || (isStatic(outC) && isStatic((*bias)[0]) &&
                                     (*bias)[0] != outC))) {
    invalid() << "bias must have shape [" << (isStatic(outC) ? outC : -1)
              << "], got " << shapeStr(*bias);
    return ConvDecode::Invalid;
  }
  p.resultShape.clear();
  if (p.batched)
    p.resultShape.push_back(input[0]);
  p.resultShape.push_back(outC);
  for (int64_t i = 0; i < k; ++i) {
    int64_t size = spatialIn[i], kernel = weight[2 + i];
    if (!isStatic(size) || !isStatic(kernel)) {
      p.resultShape.push_back(kDynamic);
      continue;
    }
    int64_t span = p.dilation[i] * (kernel - 1) + 1;
    if (!p.transposed) {
      int64_t padded = size + p.padBefore[i] + p.padAfter[i];
      if (padded < span) {
        invalid() << "kernel size " << kernel << " (dilation " << p.dilation[i]
                  << ") is larger than the padded input size " << padded;
        return ConvDecode::Invalid;
      }
      p.resultShape.push_back((padded - span) / p.stride[i] + 1);
    } else {
      // A padding beyond the kernel's span crops the full output ("negative
      // padding"), as torch does.
      int64_t out = (size - 1) * p.stride[i] - 2 * p.padBefore[i] + span +
                    p.outputPadding[i];
      if (out <= 0) {
        invalid() << "the output size " << out << " of spatial dim " << i
                  << " is too small (input " << shapeStr(spatialIn)
                  << ", padding " << listStr(p.padBefore) << ")";
        return ConvDecode::Invalid;
      }
      p.resultShape.push_back(out);
    }
  }
  return ConvDecode::Ok;
}

/// `fn` of an ArgReader over a bound call's constant arguments (for
/// decodeConv and decodePool).
template <typename Fn>
static ConvDecode withArgReader(const BoundCall &call, Fn fn) {
  auto value = [&](StringRef name) -> Attribute {
    if (!call.getSignature().lookup(name))
      return nullptr;
    return call.get(name).value;
  };
  auto ints = [&](StringRef name) { return getPyInts(value(name)); };
  auto integer = [&](StringRef name) { return call.getInt(name); };
  auto boolean = [&](StringRef name) { return call.getBool(name); };
  auto str = [&](StringRef name) -> std::optional<std::string> {
    if (auto s = dyn_cast_or_null<StringAttr>(value(name)))
      return s.str();
    return std::nullopt;
  };
  auto isNone = [&](StringRef name) { return call.isNone(name); };
  auto known = [&](StringRef name) { return bool(value(name)); };
  ArgReader reader{ints, integer, boolean, str, isNone, known};
  return fn(reader);
}

/// decodeConv over a bound call's constant arguments.
static ConvDecode decodeConvCall(const BoundCall &call, RankedTensorType input,
                                 RankedTensorType weight, ConvParams &p,
                                 std::string &error) {
  std::optional<ArrayRef<int64_t>> bias;
  RankedTensorType biasType = call.getTensor("bias");
  if (biasType)
    bias = biasType.getShape();
  return withArgReader(call, [&](const ArgReader &reader) {
    return decodeConv(call.getSignature(), reader, input.getShape(),
                      weight.getShape(), bias, p, error);
  });
}

namespace mlir::traced::rules {

LogicalResult lerp(const BoundCall &call, SmallVectorImpl<Type> &results) {
  if (failed(pointwise(call, results, {"input", "end", "weight"}, false)))
    return failure();
  auto in = dyn_cast_or_null<RankedTensorType>(call.getType("input"));
  auto end = dyn_cast_or_null<RankedTensorType>(call.getType("end"));
  if (in && end && in.getElementType() != end.getElementType())
    return call.emitError() << "expected dtype " << in.getElementType()
                            << " for `end` but got dtype "
                            << end.getElementType();
  if (in && !isa<FloatType>(in.getElementType()))
    return call.emitError() << "lerp takes floating-point tensors, got "
                            << in.getElementType();
  return success();
}

/// addcmul and addcdiv compute in the promoted dtype of their three
/// operands, for which torch 1.13's CPU kernels lack float16 (and, for
/// addcmul, bool): the dtype table, which reads `input` alone, cannot say
/// this (`addcmul(bool, bool, half)` computes in float16).
static LogicalResult addcPointwise(const BoundCall &call,
                                   SmallVectorImpl<Type> &results,
                                   bool allowBool) {
  if (failed(pointwise(call, results, {"input", "tensor1", "tensor2"}, false)))
    return failure();
  if (results.size() == 1)
    if (auto t = dyn_cast_or_null<RankedTensorType>(results[0])) {
      Type e = t.getElementType();
      if ((!allowBool && e.isInteger(1)) || e.isF16())
        return call.emitError() << "computes in " << e
                                << ", which is not supported: torch 1.13 has "
                                   "no CPU kernel for it";
    }
  return success();
}

LogicalResult addcmul(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return addcPointwise(call, results, /*allowBool=*/false);
}

LogicalResult addcdiv(const BoundCall &call, SmallVectorImpl<Type> &results) {
  for (StringRef name : {"tensor1", "tensor2"})
    if (auto t = dyn_cast_or_null<RankedTensorType>(call.getType(name)))
      if (!isa<FloatType>(t.getElementType()))
        return call.emitError()
               << "addcdiv does not support integer division: use "
                  "floating-point tensor1 and tensor2";
  return addcPointwise(call, results, /*allowBool=*/true);
}

/// Float-only binary math (xlogy, hypot, logaddexp, copysign, float_power
/// is float64): the promoted dtype, integers to float32.
LogicalResult floatPointwise(const BoundCall &call,
                             SmallVectorImpl<Type> &results) {
  return pointwise(call, results, {"input", "other"}, true);
}

/// torch.ldexp: `input * pow(2.0, other)`, typed as those two calls are
/// (the power has other's dtype when it is floating, else float32; its
/// rank takes part in the product's promotion).
LogicalResult ldexp(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType x = h.tensor("input"), e = h.tensor("other");
  if (!x || !e)
    return h.unknown();
  MLIRContext *ctx = call.getContext();
  Type power = isa<FloatType>(e.getElementType())
                   ? e.getElementType()
                   : typeFromDType(ctx, kDefaultFloat);
  Type elt =
      resultElementType({x, RankedTensorType::get(e.getShape(), power)}, ctx);
  if (!elt)
    return h.unknown();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, x.getShape(), e.getShape());
  if (failed(shape))
    return failure();
  return h.result(*shape, elt);
}

LogicalResult floatPower(const BoundCall &call,
                         SmallVectorImpl<Type> &results) {
  if (failed(pointwise(call, results, {"input", "exponent"}, true)))
    return failure();
  if (!results.empty())
    if (auto t = dyn_cast<RankedTensorType>(results[0]))
      results[0] = RankedTensorType::get(
          t.getShape(), Float64Type::get(call.getContext()));
  return success();
}

LogicalResult heaviside(const BoundCall &call,
                        SmallVectorImpl<Type> &results) {
  return pointwise(call, results, {"input", "values"}, false);
}

LogicalResult rsub(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return pointwise(call, results, {"input", "other"}, false);
}

/// x.view_as(other), reshape_as, expand_as: other's shape, x's dtype (the
/// kernels check the element count, or that x broadcasts).
LogicalResult shapeAs(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input"), other = h.tensor("other");
  if (!in || !other)
    return h.unknown();
  return h.result(other.getShape(), in.getElementType());
}

LogicalResult numel(const BoundCall &call, SmallVectorImpl<Type> &results) {
  results.push_back(IntegerType::get(call.getContext(), 64));
  return success();
}

/// A loss's reduction: `reduction`, or the legacy size_average/reduce
/// flags when one is given; nullopt when not constant.
static std::optional<std::string> lossReduction(const BoundCall &call) {
  auto flag = [&](StringRef name) -> std::optional<bool> {
    if (!call.getSignature().lookup(name) || call.isNone(name))
      return std::nullopt;
    return call.getBool(name);
  };
  std::optional<bool> sizeAverage = flag("size_average"), reduce = flag("reduce");
  if (sizeAverage || reduce)
    return std::string(reduce == false         ? "none"
                       : sizeAverage == false ? "sum"
                                              : "mean");
  Attribute r = call.get("reduction").value;
  if (auto s = dyn_cast_or_null<StringAttr>(r))
    return s.getValue().str();
  // ATen's Reduction enum (aten::mse_loss(..., int reduction=1)).
  if (auto i = dyn_cast_or_null<IntegerAttr>(r); i && !isa<BoolAttr>(r))
    if (i.getInt() >= 0 && i.getInt() <= 2)
      return std::string(i.getInt() == 0 ? "none"
                         : i.getInt() == 1 ? "mean"
                                           : "sum");
  return std::nullopt;
}

/// mse/l1/smooth_l1/huber/bce/kl_div: the promoted floating dtype; the
/// broadcast shape for reduction='none', else a 0-d result.
LogicalResult pointwiseLoss(const BoundCall &call,
                            SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input"), target = h.tensor("target");
  std::optional<std::string> reduction = lossReduction(call);
  if (!in || !target || !reduction)
    return h.unknown();
  std::optional<DType> inDType = dtypeFromType(in.getElementType()),
                      targetDType = dtypeFromType(target.getElementType());
  if (!inDType || !targetDType)
    return h.unknown();
  std::string error;
  auto operand = [](RankedTensorType t, DType d) {
    return PromotionOperand{d, t.getRank() ? PromotionPriority::Tensor
                                           : PromotionPriority::ZeroDim};
  };
  std::optional<DType> dtype =
      lossResultDType(lossTyping(call.getTarget()), operand(in, *inDType),
                      operand(target, *targetDType), error);
  if (!dtype)
    return call.emitError() << error;
  if (lossTyping(call.getTarget()) == LossTyping::ResultType) {
    std::optional<bool> logInput = call.getBool("log_input");
    if (!logInput)
      return h.unknown();
    dtype = poissonNllDTypes(operand(in, *inDType), operand(target, *targetDType), *logInput)
                .result;
  }
  // bce_with_logits computes pos_weight - 1, which torch refuses for bool.
  if (call.getSignature().lookup("pos_weight"))
    if (RankedTensorType pw = call.getTensor("pos_weight");
        pw && pw.getElementType().isInteger(1))
      return call.emitError() << "Subtraction, the `-` operator, with a bool "
                                 "tensor is not supported (pos_weight)";
  // kl_div with log_target computes exp(target) in the target's dtype,
  // which torch 1.13 has no float16 kernel for.
  if (call.getSignature().lookup("log_target") &&
      call.getBool("log_target").value_or(false) &&
      target.getElementType().isF16())
    return call.emitError() << "exp of a float16 target (log_target=True): "
                               "torch 1.13 has no CPU kernel for it";
  // The binary cross entropies take no broadcasting (torch raises
  // ValueError for a target of another size).
  LossTyping typing = lossTyping(call.getTarget());
  if ((typing == LossTyping::SameDType || typing == LossTyping::AsTarget) &&
      in.getShape() != target.getShape())
    return call.emitError() << "expects a target of the input's size, got "
                            << in << " and " << target;
  Type elt = typeFromDType(call.getContext(), *dtype);
  if (*reduction != "none" && *reduction != "mean" && *reduction != "sum" &&
      !(*reduction == "batchmean" && call.getSignature().lookup("log_target")))
    return call.emitError() << "'" << *reduction
                            << "' is not a valid value for reduction";
  if (*reduction != "none")
    return h.result({}, elt);
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, in.getShape(), target.getShape());
  if (failed(shape))
    return failure();
  return h.result(*shape, elt);
}

/// nll_loss and cross_entropy: the input's dtype; for reduction='none'
/// the target's shape (class indices) or the input's without the class
/// dim (probabilities), else 0-d.
LogicalResult classLoss(const BoundCall &call,
                        SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input"), target = h.tensor("target");
  std::optional<std::string> reduction = lossReduction(call);
  if (!in || !target || !reduction)
    return h.unknown();
  if (!isa<FloatType>(in.getElementType()) || in.getRank() < 1)
    return call.emitError() << "expects a floating-point input with a class "
                               "dimension, got "
                            << in;
  if (*reduction != "none" && *reduction != "mean" && *reduction != "sum")
    return call.emitError() << "'" << *reduction
                            << "' is not a valid value for reduction";
  if (*reduction != "none")
    return h.result({}, in.getElementType());
  if (isa<FloatType>(target.getElementType())) {
    SmallVector<int64_t> shape(in.getShape());
    shape.erase(shape.begin() + (in.getRank() == 1 ? 0 : 1));
    return h.result(shape, in.getElementType());
  }
  return h.result(target.getShape(), in.getElementType());
}

LogicalResult unbind(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dim");
  if (!in || !d)
    return h.unknown();
  if (in.getRank() == 0)
    return call.emitError() << "unbind() cannot be applied to a 0-d tensor";
  FailureOr<int64_t> n = h.dim(*d, in.getRank());
  if (failed(n))
    return failure();
  if (in.isDynamicDim(*n))
    return h.unknown();
  SmallVector<int64_t> shape(in.getShape());
  shape.erase(shape.begin() + *n);
  SmallVector<Type> pieces(in.getDimSize(*n),
                           RankedTensorType::get(shape, in.getElementType()));
  return h.result(TupleType::get(call.getContext(), pieces));
}

/// The shape of a diagonal of dims d1, d2 at `offset`.
static FailureOr<SmallVector<int64_t>>
diagonalShape(const BoundCall &call, RankedTensorType in, int64_t offset,
              int64_t d1, int64_t d2) {
  int64_t rank = in.getRank();
  int64_t a = d1 < 0 ? d1 + rank : d1, b = d2 < 0 ? d2 + rank : d2;
  if (a < 0 || a >= rank || b < 0 || b >= rank) {
    call.emitError() << "diagonal dimensions out of range for a tensor of "
                        "rank "
                     << rank;
    return failure();
  }
  if (a == b) {
    call.emitError() << "diagonal dimensions cannot be identical " << d1
                     << ", " << d2;
    return failure();
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != a && d != b)
      shape.push_back(in.getDimSize(d));
  int64_t sa = in.getDimSize(a), sb = in.getDimSize(b);
  int64_t len = ShapedType::kDynamic;
  if (!ShapedType::isDynamic(sa) && !ShapedType::isDynamic(sb))
    len = std::max<int64_t>(
        offset >= 0 ? std::min(sa, sb - offset) : std::min(sa + offset, sb), 0);
  shape.push_back(len);
  return shape;
}

LogicalResult diagonal(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> off = call.getInt("offset"), d1 = call.getInt("dim1"),
                         d2 = call.getInt("dim2");
  if (!in || !off || !d1 || !d2)
    return h.unknown();
  if (in.getRank() < 2)
    return call.emitError() << "diagonal() expects a tensor of rank >= 2";
  FailureOr<SmallVector<int64_t>> shape =
      diagonalShape(call, in, *off, *d1, *d2);
  if (failed(shape))
    return failure();
  return h.result(*shape, in.getElementType());
}

LogicalResult diag(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> k = call.getInt("diagonal");
  if (!in || !k)
    return h.unknown();
  if (in.getRank() == 2) {
    FailureOr<SmallVector<int64_t>> shape = diagonalShape(call, in, *k, 0, 1);
    if (failed(shape))
      return failure();
    return h.result(*shape, in.getElementType());
  }
  if (in.getRank() != 1)
    return call.emitError() << "diag() expects a 1-D or 2-D tensor";
  int64_t n = in.isDynamicDim(0) ? ShapedType::kDynamic
                                 : in.getDimSize(0) + std::abs(*k);
  return h.result({n, n}, in.getElementType());
}

LogicalResult trace(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input");
  if (!in)
    return h.unknown();
  if (in.getRank() != 2)
    return call.emitError() << "trace() expects a matrix";
  Type elt = in.getElementType();
  if (!isa<FloatType>(elt))
    elt = IntegerType::get(call.getContext(), 64);
  return h.result({}, elt);
}

/// pixel_shuffle / pixel_unshuffle / channel_shuffle.
LogicalResult pixelShuffle(const BoundCall &call,
                           SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input");
  bool up = call.getSignature().lookup("upscale_factor").has_value();
  std::optional<int64_t> r =
      call.getInt(up ? "upscale_factor" : "downscale_factor");
  if (!in || !r || !in.hasStaticShape())
    return h.unknown();
  int64_t rank = in.getRank();
  if (rank < 3)
    return call.emitError() << "expects an input of rank >= 3, got " << in;
  if (*r <= 0)
    return call.emitError() << "the factor must be positive";
  SmallVector<int64_t> shape(in.getShape());
  int64_t &c = shape[rank - 3], &hh = shape[rank - 2], &w = shape[rank - 1];
  if (up) {
    if (c % (*r * *r) != 0)
      return call.emitError() << "the channels (" << c
                              << ") must be divisible by the square of the "
                                 "upscale factor";
    c /= *r * *r;
    hh *= *r;
    w *= *r;
  } else {
    if (hh % *r != 0 || w % *r != 0)
      return call.emitError() << "the height and width must be divisible by "
                                 "the downscale factor";
    c *= *r * *r;
    hh /= *r;
    w /= *r;
  }
  return h.result(shape, in.getElementType());
}

LogicalResult channelShuffle(const BoundCall &call,
                             SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input");
  std::optional<int64_t> g = call.getInt("groups");
  if (!in || !g)
    return h.unknown();
  if (in.getRank() < 3)
    return call.emitError() << "channel_shuffle expects an input of rank >= 3";
  if (*g <= 0 ||
      (!in.isDynamicDim(1) && in.getDimSize(1) % *g != 0))
    return call.emitError() << "the channels must be divisible by groups";
  return h.result(in);
}

LogicalResult repeatInterleave(const BoundCall &call,
                               SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input");
  if (!in)
    return h.unknown();
  std::optional<int64_t> count = call.getInt("repeats");
  SmallVector<int64_t> shape;
  int64_t dim = 0;
  if (call.isNone("dim")) {
    shape = {in.hasStaticShape() ? in.getNumElements() : ShapedType::kDynamic};
  } else {
    std::optional<int64_t> d = call.getInt("dim");
    if (!d)
      return h.unknown();
    FailureOr<int64_t> n = h.dim(*d, std::max<int64_t>(in.getRank(), 1));
    if (failed(n))
      return failure();
    dim = *n;
    shape.assign(in.getShape().begin(), in.getShape().end());
    if (shape.empty())
      shape = {1};
  }
  if (count && !ShapedType::isDynamic(shape[dim]))
    shape[dim] *= *count;
  else
    shape[dim] = ShapedType::kDynamic; // counts in a tensor
  return h.result(shape, in.getElementType());
}

/// aten::repeat_interleave.Tensor: each index i of the 1-D int32/int64
/// `repeats` repeated repeats[i] times, in its dtype; output_size's
/// elements where given, else as many as the counts add up to (the
/// traced call's).
LogicalResult repeatInterleaveCounts(const BoundCall &call,
                                     SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType repeats = h.tensor("repeats");
  if (!repeats)
    return h.unknown();
  Type element = repeats.getElementType();
  if (!element.isSignlessInteger(32) && !element.isSignlessInteger(64)) {
    std::optional<DType> dtype = dtypeFromType(element);
    return call.emitError() << "\"repeat_interleave_cpu\" not implemented for '"
                            << (dtype ? torchTypeName(*dtype) : "?") << "'";
  }
  if (repeats.getRank() != 1)
    return call.emitError()
           << "repeat_interleave only accept 1D vector as repeat";
  int64_t size = repeats.getDimSize(0) == 0 ? 0 : ShapedType::kDynamic;
  if (!call.isNone("output_size")) {
    std::optional<int64_t> given = call.getInt("output_size");
    if (!given)
      return h.unknown();
    size = *given;
  }
  return h.result({size}, element);
}

LogicalResult takeAlongDim(const BoundCall &call,
                           SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType in = h.tensor("input"), idx = h.tensor("indices");
  if (!in || !idx)
    return h.unknown();
  if (isa<FloatType>(idx.getElementType()) ||
      idx.getElementType().isInteger(1))
    return call.emitError() << "take_along_dim expects integer indices";
  if (call.isNone("dim")) {
    int64_t n = idx.hasStaticShape() ? idx.getNumElements()
                                     : ShapedType::kDynamic;
    return h.result({n}, in.getElementType());
  }
  std::optional<int64_t> d = call.getInt("dim");
  if (!d)
    return h.unknown();
  if (in.getRank() != idx.getRank())
    return call.emitError() << "input and indices should have the same "
                               "number of dimensions";
  FailureOr<int64_t> n = h.dim(*d, in.getRank());
  if (failed(n))
    return failure();
  SmallVector<int64_t> a(in.getShape()), b(idx.getShape());
  a[*n] = 1;
  b[*n] = 1;
  FailureOr<SmallVector<int64_t>> shape = broadcastShapes(call, a, b);
  if (failed(shape))
    return failure();
  (*shape)[*n] = idx.getDimSize(*n);
  return h.result(*shape, in.getElementType());
}

LogicalResult meshgrid(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  const BoundCall::Arg &arg = call.get("tensors");
  if (arg.elements.empty())
    return h.unknown();
  SmallVector<int64_t> shape;
  SmallVector<Type> elts;
  for (Type t : arg.elements) {
    auto r = dyn_cast_or_null<RankedTensorType>(t);
    if (!r)
      return h.unknown();
    if (r.getRank() > 1)
      return call.emitError() << "meshgrid expects 0-D or 1-D tensors";
    shape.push_back(r.getRank() == 0 ? 1 : r.getDimSize(0));
    elts.push_back(r.getElementType());
  }
  auto indexing = dyn_cast_or_null<StringAttr>(call.get("indexing").value);
  if (indexing && indexing.getValue() != "ij" && indexing.getValue() != "xy")
    return call.emitError() << "indexing must be 'ij' or 'xy'";
  if (indexing && indexing.getValue() == "xy" && shape.size() >= 2)
    std::swap(shape[0], shape[1]);
  SmallVector<Type> out;
  for (Type e : elts)
    out.push_back(RankedTensorType::get(shape, e));
  return h.result(TupleType::get(call.getContext(), out));
}

/// hstack, vstack (row_stack), dstack, column_stack: each tensor made at
/// least 1-, 2-, 3- or column-2-D, then concatenated.
LogicalResult stackLike(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  StringRef t = call.getTarget();
  int kind = t.ends_with("hstack")   ? 0
             : t.ends_with("dstack") ? 2
             : t.ends_with("column_stack") ? 3
                                           : 1;
  const BoundCall::Arg &arg = call.get("tensors");
  if (arg.elements.empty())
    return arg.value ? call.emitError() << "expects a non-empty list of tensors"
                     : h.unknown();
  SmallVector<SmallVector<int64_t>> shapes;
  SmallVector<Type> types;
  for (Type ty : arg.elements) {
    auto r = dyn_cast_or_null<RankedTensorType>(ty);
    if (!r)
      return h.unknown();
    SmallVector<int64_t> sh(r.getShape());
    if (kind == 0 && sh.empty())
      sh = {1};
    else if (kind == 1 && sh.size() < 2)
      sh.insert(sh.begin(), 2 - sh.size(), 1);
    else if (kind == 2) {
      if (sh.empty())
        sh = {1, 1, 1};
      else if (sh.size() == 1)
        sh = {1, sh[0], 1};
      else if (sh.size() == 2)
        sh.push_back(1);
    } else if (kind == 3) {
      if (sh.empty())
        sh = {1, 1};
      else if (sh.size() == 1)
        sh = {sh[0], 1};
    }
    shapes.push_back(sh);
    types.push_back(r);
  }
  int64_t dim = kind == 0 ? (shapes[0].size() == 1 ? 0 : 1)
                : kind == 2 ? 2
                : kind == 3 ? 1
                            : 0;
  SmallVector<int64_t> out = shapes[0];
  for (size_t i = 1; i < shapes.size(); ++i) {
    if (shapes[i].size() != out.size())
      return call.emitError() << "tensors must have the same number of "
                                 "dimensions";
    for (size_t d = 0; d < out.size(); ++d) {
      if (static_cast<int64_t>(d) == dim) {
        out[d] = ShapedType::isDynamic(out[d]) ||
                         ShapedType::isDynamic(shapes[i][d])
                     ? ShapedType::kDynamic
                     : out[d] + shapes[i][d];
      } else if (out[d] != shapes[i][d]) {
        return call.emitError() << "sizes of tensors must match except in "
                                   "dimension "
                                << dim;
      }
    }
  }
  Type elt = resultElementType(types, call.getContext());
  if (!elt)
    return h.unknown();
  return h.result(out, elt);
}

static FailureOr<std::optional<SmallVector<int64_t>>>
reducedShape(const BoundCall &call, RankedTensorType input, StringRef dimName,
             bool keepdim, bool allIfEmpty);

/// The dtype of a norm: dtype= or the input's, floating point only.
static Type normElementType(const BoundCall &call, RankedTensorType input) {
  Type elt = input.getElementType();
  if (auto d = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = d.getType();
  if (!isa<FloatType>(input.getElementType()) || !isa<FloatType>(elt)) {
    call.emitError() << "expected a floating point tensor as input, got "
                     << input.getElementType();
    return {};
  }
  return elt;
}

/// vector_norm, torch.norm and linalg.norm over `dim` (matrix norms over
/// two dims reduce the same dims).
LogicalResult norm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<bool> keepdim = call.getBool("keepdim");
  if (!input || !keepdim)
    return h.unknown();
  Type elt = normElementType(call, input);
  if (!elt)
    return failure();
  // linalg.norm of a 2-D input without dim reduces both dims, as None does.
  auto shape = reducedShape(call, input, "dim", *keepdim, false);
  if (failed(shape))
    return failure();
  if (!*shape)
    return h.unknown();
  return h.result(**shape, elt);
}

/// cosine_similarity (drops `dim`) and pairwise_distance (drops the last
/// dim, or keeps it as 1): the broadcast inputs' promoted float dtype.
LogicalResult pairDistance(const BoundCall &call,
                           SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType a = h.tensor("x1"), b = h.tensor("x2");
  if (!a || !b)
    return h.unknown();
  Type elt = resultElementType({a, b}, call.getContext());
  if (!elt)
    return h.unknown();
  if (!isa<FloatType>(elt))
    return call.emitError() << "expects floating-point inputs, got " << a
                            << " and " << b;
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, a.getShape(), b.getShape());
  if (failed(shape))
    return failure();
  int64_t rank = shape->size();
  if (call.getSignature().lookup("dim")) {
    std::optional<int64_t> d = call.getInt("dim");
    if (!d)
      return h.unknown();
    FailureOr<int64_t> n = h.dim(*d, std::max<int64_t>(rank, 1));
    if (failed(n))
      return failure();
    if (rank)
      shape->erase(shape->begin() + *n);
    return h.result(*shape, elt);
  }
  std::optional<bool> keepdim = call.getBool("keepdim");
  if (!keepdim)
    return h.unknown();
  if (rank) {
    if (*keepdim)
      shape->back() = 1;
    else
      shape->pop_back();
  }
  return h.result(*shape, elt);
}

LogicalResult sameAsInput(const BoundCall &call,
                          SmallVectorImpl<Type> &results) {
  results.push_back(call.getType("input"));
  return success();
}

/// F.prelu: the input's type; torch 1.13's kernel takes a weight of the
/// input's dtype only ("Found dtype Half but expected Double"), but for a
/// bfloat16 input, which takes any.
LogicalResult prelu(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RankedTensorType input = call.getTensor("input"),
                   weight = call.getTensor("weight");
  if (input && weight && !input.getElementType().isBF16() &&
      input.getElementType() != weight.getElementType())
    return call.emitError() << "expects a weight of the input's dtype "
                            << input.getElementType() << ", got " << weight;
  return sameAsInput(call, results);
}

/// torch.renorm: the input's type; torch refuses fewer than 2 dims.
LogicalResult renorm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RankedTensorType input = call.getTensor("input");
  if (input && input.getRank() < 2)
    return call.emitError() << "renorm: input needs at least 2 dimensions, got "
                            << input.getRank() << " dimensions";
  return sameAsInput(call, results);
}

/// aten::native_dropout: (output, mask), the mask bool. torch 1.13's
/// quirk: an empty input's mask has the input's dtype. Training (train true
/// or None) scales by a float, which an integer or bool input cannot hold.
LogicalResult nativeDropout(const BoundCall &call,
                            SmallVectorImpl<Type> &results) {
  RankedTensorType input = call.getTensor("input");
  if (!input)
    return success();
  std::optional<bool> train = call.getBool("train");
  bool training = call.isNone("train") || (train && *train);
  if (training && !isa<FloatType>(input.getElementType())) {
    std::optional<DType> d = dtypeFromType(input.getElementType());
    return call.emitError() << "training scales by a float: result type "
                               "Float can't be cast to the input's dtype "
                            << (d ? dtypeName(*d) : StringRef("?"));
  }
  Type mask = input.getElementType();
  if (!input.hasStaticShape() || input.getNumElements() != 0)
    mask = IntegerType::get(call.getContext(), 1);
  results.push_back(TupleType::get(
      call.getContext(),
      {input, RankedTensorType::get(input.getShape(), mask)}));
  return success();
}

/// celu: the input's type; torch raises on alpha = 0 (it divides by it).
LogicalResult celu(const BoundCall &call, SmallVectorImpl<Type> &results) {
  if (std::optional<double> alpha = call.getFloat("alpha"); alpha && *alpha == 0)
    return call.emitError() << "alpha cannot be 0 for CELU";
  return sameAsInput(call, results);
}

/// index_put: the input's type; torch requires values of the input's dtype.
LogicalResult indexPut(const BoundCall &call, SmallVectorImpl<Type> &results) {
  auto in = dyn_cast_or_null<RankedTensorType>(call.getType("input"));
  auto values = dyn_cast_or_null<RankedTensorType>(call.getType("values"));
  if (in && values && in.getElementType() != values.getElementType())
    return call.emitError()
           << "index_put requires values of the input's dtype: got "
           << values.getElementType() << " values for a "
           << in.getElementType() << " input";
  results.push_back(call.getType("input"));
  return success();
}

LogicalResult softmax(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  Type elt = input.getElementType();
  if (auto dtype = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = dtype.getType();
  // ATen's _softmax/_log_softmax(x, dim, half_to_float).
  if (call.getSignature().lookup("half_to_float") &&
      call.getBool("half_to_float").value_or(true))
    return call.emitError() << "softmax with half to float conversion is not "
                               "supported on CPU";
  // torch 1.13's CPU softmax takes float32, float64 and bfloat16, after
  // the conversion to `dtype`.
  // (An empty input never reaches the kernel, so torch accepts it.)
  bool empty = input.hasStaticShape() && input.getNumElements() == 0;
  if (std::optional<DType> d = dtypeFromType(elt))
    if (!empty && *d != DType::F32 && *d != DType::F64 && *d != DType::BF16)
      return call.emitError()
             << "computes in " << dtypeName(*d)
             << ", which is not supported: torch 1.13 has no CPU kernel for "
                "it (pass a floating 'dtype=')";
  return h.result(input.getShape(), elt);
}

LogicalResult to(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  Type elt = input.getElementType();
  for (StringRef name : {"a", "b", "dtype"}) {
    Type t = call.getType(name);
    if (auto tensor = dyn_cast_or_null<RankedTensorType>(t))
      elt = tensor.getElementType();
    else if (isa_and_nonnull<TensorType>(t))
      return h.unknown();
    else if (auto d = dyn_cast_or_null<DTypeAttr>(call.get(name).value))
      elt = d.getType();
  }
  return h.result(input.getShape(), elt);
}

LogicalResult typeAs(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), other = h.tensor("other");
  if (!input || !other)
    return h.unknown();
  return h.result(input.getShape(), other.getElementType());
}

template <DType D>
LogicalResult castTo(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  return h.result(input.getShape(), typeFromDType(call.getContext(), D));
}
template LogicalResult castTo<DType::F32>(const BoundCall &, SmallVectorImpl<Type> &);
template LogicalResult castTo<DType::F64>(const BoundCall &, SmallVectorImpl<Type> &);
template LogicalResult castTo<DType::F16>(const BoundCall &, SmallVectorImpl<Type> &);
template LogicalResult castTo<DType::BF16>(const BoundCall &, SmallVectorImpl<Type> &);
template LogicalResult castTo<DType::I64>(const BoundCall &, SmallVectorImpl<Type> &);
template LogicalResult castTo<DType::I32>(const BoundCall &, SmallVectorImpl<Type> &);
template LogicalResult castTo<DType::I16>(const BoundCall &, SmallVectorImpl<Type> &);
template LogicalResult castTo<DType::I8>(const BoundCall &, SmallVectorImpl<Type> &);
template LogicalResult castTo<DType::U8>(const BoundCall &, SmallVectorImpl<Type> &);
template LogicalResult castTo<DType::Bool>(const BoundCall &, SmallVectorImpl<Type> &);

/// The normalized `dim` of a call on `input` (rank 0 counts as 1), or
/// nullopt (unknown: a traced int) / failure (reported).
static FailureOr<std::optional<int64_t>> dimArg(const BoundCall &call,
                                               RankedTensorType input,
                                               StringRef name = "dim") {
  std::optional<int64_t> d = call.getInt(name);
  if (!d)
    return std::optional<int64_t>();
  int64_t rank = std::max<int64_t>(input.getRank(), 1);
  int64_t n = *d < 0 ? *d + rank : *d;
  if (n < 0 || n >= rank) {
    call.emitError() << name << " " << *d
                     << " is out of range for a tensor of rank " << rank;
    return failure();
  }
  return std::optional<int64_t>(n);
}

LogicalResult indexSelect(const BoundCall &call,
                          SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), index = h.tensor("index");
  if (!input || !index)
    return h.unknown();
  if (!isa<IntegerType>(index.getElementType()) ||
      index.getElementType().isInteger(1) || index.getRank() > 1)
    return call.emitError() << "argument 'index' must be a 0-d or 1-d integer "
                               "tensor, got "
                            << index;
  auto dim = dimArg(call, input);
  if (failed(dim))
    return failure();
  if (!*dim)
    return h.unknown();
  SmallVector<int64_t> shape(input.getShape());
  if (input.getRank())
    shape[**dim] = index.getRank() ? index.getDimSize(0) : 1;
  return h.result(shape, input.getElementType());
}

/// torch.nonzero and argwhere: one int64 row of coordinates per nonzero
/// element ([count, rank]; a 0-d input has no columns), or with as_tuple
/// one 1-D tensor per dim (one for a 0-d input). The count depends on the
/// values: unknown unless the input is empty (a traced call declares its
/// trace's).
LogicalResult nonzero(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  std::optional<bool> asTuple = false;
  if (call.getSignature().lookup("as_tuple"))
    asTuple = call.getBool("as_tuple");
  if (!asTuple)
    return h.unknown();
  bool empty = input.hasStaticShape() && input.getNumElements() == 0;
  int64_t count = empty ? 0 : ShapedType::kDynamic;
  Type i64 = IntegerType::get(call.getContext(), 64);
  if (!*asTuple)
    return h.result({count, input.getRank()}, i64);
  SmallVector<Type> parts(std::max<int64_t>(input.getRank(), 1),
                          RankedTensorType::get({count}, i64));
  return h.result(TupleType::get(call.getContext(), parts));
}

/// torch.bincount: how often each value of a 1-D non-negative integer
/// input occurs (or the sum of its weights), max(input) + 1 bins but at
/// least `minlength`: int64, float32 for float32 weights, else float64. The
/// size depends on the values (a traced call declares its trace's).
LogicalResult bincount(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> minlength = call.getInt("minlength");
  if (!input || !minlength)
    return h.unknown();
  if (input.getRank() != 1)
    return call.emitError()
           << "bincount only supports 1-d non-negative integral inputs.";
  if (*minlength < 0)
    return call.emitError() << "minlength should be >= 0";
  MLIRContext *ctx = call.getContext();
  Type element = IntegerType::get(ctx, 64);
  if (!call.isNone("weights")) {
    RankedTensorType weights = h.tensor("weights");
    if (!weights)
      return h.unknown();
    if (weights.getRank() != 1 ||
        (!input.isDynamicDim(0) && !weights.isDynamicDim(0) &&
         weights.getDimSize(0) != input.getDimSize(0)))
      return call.emitError() << "weights should be 1-d and have the same "
                                 "length as input";
    element = weights.getElementType().isF32()
                  ? static_cast<Type>(Float32Type::get(ctx))
                  : static_cast<Type>(Float64Type::get(ctx));
  }
  int64_t size = input.getDimSize(0) == 0 ? *minlength : ShapedType::kDynamic;
  return h.result({size}, element);
}

LogicalResult gather(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), index = h.tensor("index");
  if (!input || !index)
    return h.unknown();
  if (!index.getElementType().isInteger(64))
    return call.emitError() << "argument 'index' must be an int64 tensor, got "
                            << index;
  if (std::max<int64_t>(index.getRank(), 1) !=
      std::max<int64_t>(input.getRank(), 1))
    return call.emitError() << "'index' " << index
                            << " must have as many dims as 'input' " << input;
  if (failed(dimArg(call, input)))
    return failure();
  return h.result(index.getShape(), input.getElementType());
}

LogicalResult embedding(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), weight = h.tensor("weight");
  if (!input || !weight)
    return h.unknown();
  if (!isa<IntegerType>(input.getElementType()) ||
      input.getElementType().isInteger(1))
    return call.emitError() << "argument 'input' (the indices) must be an "
                               "integer tensor, got "
                            << input;
  if (weight.getRank() != 2)
    return call.emitError() << "argument 'weight' must be 2-D, got " << weight;
  if (!call.isNone("max_norm"))
    return call.emitError() << "'max_norm' renormalizes the weight in place "
                               "on every call; it is not supported";
  SmallVector<int64_t> shape(input.getShape());
  shape.push_back(weight.getDimSize(1));
  return h.result(shape, weight.getElementType());
}

LogicalResult narrow(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> length = call.getInt("length");
  Type start = call.getType("start");
  if (auto t = dyn_cast_or_null<RankedTensorType>(start)) {
    if (t.getRank() != 0 || !isa<IntegerType>(t.getElementType()) ||
        t.getElementType().isInteger(1))
      return call.emitError() << "start must be an 0-dim integral Tensor, got "
                              << t;
  } else if (start && !start.isInteger(64)) {
    return call.emitError() << "argument 'start' expects int, got " << start;
  }
  if (!input || !length)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "cannot be applied to a 0-d tensor";
  auto dim = dimArg(call, input);
  if (failed(dim))
    return failure();
  if (!*dim)
    return h.unknown();
  SmallVector<int64_t> shape(input.getShape());
  shape[**dim] = *length;
  return h.result(shape, input.getElementType());
}

LogicalResult repeat(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  bool tile = call.getSignature().lookup("dims").has_value();
  std::optional<SmallVector<int64_t>> reps =
      call.getInts(tile ? "dims" : "repeats");
  if (!input || !reps)
    return h.unknown();
  SmallVector<int64_t> r = *reps;
  if (!tile && static_cast<int64_t>(r.size()) < input.getRank())
    return call.emitError() << "the number of repeat dims cannot be smaller "
                               "than the number of tensor dims";
  while (static_cast<int64_t>(r.size()) < input.getRank())
    r.insert(r.begin(), 1);
  SmallVector<int64_t> shape(r.size() - input.getRank(), 1);
  shape.append(input.getShape().begin(), input.getShape().end());
  for (auto [s, k] : llvm::zip(shape, r))
    s = mulDims(s, k);
  return h.result(shape, input.getElementType());
}

LogicalResult fullLike(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  Type elt = input.getElementType();
  if (auto d = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = d.getType();
  return h.result(input.getShape(), elt);
}

LogicalResult triangle(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() < 2)
    return call.emitError() << "input tensor must have at least 2 dims, got "
                            << input;
  return h.result(input);
}

LogicalResult oneHot(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> classes = call.getInt("num_classes");
  if (!input || !classes)
    return h.unknown();
  if (!input.getElementType().isInteger(64))
    return call.emitError() << "one_hot is only applicable to index tensors "
                               "(int64), got "
                            << input;
  if (*classes < 0)
    return call.emitError() << "needs a static 'num_classes' (-1 makes the "
                               "result shape depend on the values)";
  SmallVector<int64_t> shape(input.getShape());
  shape.push_back(*classes);
  return h.result(shape, input.getElementType());
}

LogicalResult pad(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> amounts = call.getInts("pad");
  if (!input || !amounts)
    return h.unknown();
  if (amounts->size() % 2 ||
      static_cast<int64_t>(amounts->size()) / 2 > input.getRank())
    return call.emitError() << "padding length must be even and at most twice "
                               "the number of dims";
  SmallVector<int64_t> shape(input.getShape());
  for (size_t i = 0; i < amounts->size() / 2; ++i) {
    int64_t &d = shape[input.getRank() - 1 - i];
    int64_t low = (*amounts)[2 * i], high = (*amounts)[2 * i + 1];
    // Negative pads crop (torch narrows the input by them first, and
    // raises when they take more than the dim holds).
    if (!ShapedType::isDynamic(d) &&
        d + std::min<int64_t>(low, 0) + std::min<int64_t>(high, 0) < 0)
      return call.emitError()
             << "the negative pads (" << low << ", " << high
             << ") crop more than the " << d << " elements of dim "
             << input.getRank() - 1 - i;
    if (!ShapedType::isDynamic(d))
      d += low + high;
  }
  return h.result(shape, input.getElementType());
}

LogicalResult split(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "cannot be applied to a 0-d tensor";
  auto dim = dimArg(call, input);
  if (failed(dim))
    return failure();
  if (!*dim || input.isDynamicDim(**dim))
    return h.unknown();
  int64_t size = input.getDimSize(**dim);
  SmallVector<int64_t> sizes;
  if (std::optional<int64_t> n = call.getInt("split_size_or_sections")) {
    if (*n <= 0)
      return call.emitError() << "split size must be positive";
    for (int64_t s = 0; s < size || (size == 0 && sizes.empty()); s += *n)
      sizes.push_back(std::min(*n, size - s));
  } else if (auto list = call.getInts("split_size_or_sections")) {
    sizes = *list;
  } else {
    return h.unknown();
  }
  SmallVector<Type> pieces;
  for (int64_t s : sizes) {
    SmallVector<int64_t> shape(input.getShape());
    shape[**dim] = s;
    pieces.push_back(RankedTensorType::get(shape, input.getElementType()));
  }
  return h.result(TupleType::get(call.getContext(), pieces));
}

LogicalResult glu(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "does not support 0-d tensors";
  auto dim = dimArg(call, input);
  if (failed(dim))
    return failure();
  if (!*dim)
    return h.unknown();
  SmallVector<int64_t> shape(input.getShape());
  int64_t &s = shape[**dim];
  if (!ShapedType::isDynamic(s)) {
    if (s % 2)
      return call.emitError() << "halving dimension must be even, but "
                                 "dimension "
                              << **dim << " is size " << s;
    s /= 2;
  }
  return h.result(shape, input.getElementType());
}

LogicalResult groupNorm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> groups = call.getInt("num_groups");
  if (!input || !groups)
    return h.unknown();
  if (input.getRank() < 2)
    return call.emitError() << "expects an input of rank 2 or more, got "
                            << input;
  int64_t c = input.getDimSize(1);
  if (*groups <= 0 || (!ShapedType::isDynamic(c) && c % *groups))
    return call.emitError() << "expected the number of channels (" << c
                            << ") to be divisible by num_groups (" << *groups
                            << ")";
  return h.result(input);
}

/// F.instance_norm: the input's type. Each (sample, channel) slice is
/// normalized by its own statistics (use_input_stats), which needs more
/// than one element in it, or by the running ones; every per-channel
/// argument has C elements.
LogicalResult instanceNorm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<bool> useInputStats = call.getBool("use_input_stats");
  if (!input || !useInputStats)
    return h.unknown();
  if (input.getRank() < 2)
    return call.emitError() << "expects an input of rank 2 or more, got " << input;
  if (!input.hasStaticShape())
    return h.result(input);
  int64_t c = input.getDimSize(1), spatial = 1;
  for (int64_t d = 2; d < input.getRank(); ++d)
    spatial *= input.getDimSize(d);
  if (*useInputStats && spatial <= 1)
    return call.emitError() << "Expected more than 1 spatial element when training, got "
                               "input size "
                            << input;
  if (!*useInputStats && (call.isNone("running_mean") || call.isNone("running_var")))
    return call.emitError() << "Expected running_mean and running_var to be defined when "
                               "use_input_stats is false";
  for (StringRef name : {"running_mean", "running_var", "weight", "bias"}) {
    RankedTensorType t = h.tensor(name);
    if (t && t.hasStaticShape() && t.getNumElements() != c)
      return call.emitError() << "'" << name << "' should contain " << c
                              << " elements (one a channel), not " << t.getNumElements();
  }
  return h.result(input);
}

LogicalResult t(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() > 2)
    return call.emitError() << "expects a tensor with <= 2 dimensions, got "
                            << input;
  if (input.getRank() < 2)
    return h.result(input);
  return h.result({input.getDimSize(1), input.getDimSize(0)},
                  input.getElementType());
}

LogicalResult newFilled(const BoundCall &call,
                        SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> size = call.getInts("size");
  if (!input || !size)
    return h.unknown();
  for (int64_t d : *size)
    if (d < 0)
      return call.emitError() << "negative dimension " << d;
  Type elt = input.getElementType();
  if (auto d = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = d.getType();
  return h.result(*size, elt);
}

//===----------------------------------------------------------------------===//
// Factories
//===----------------------------------------------------------------------===//

/// The `dtype=` of a factory, or `fallback`.
static Type dtypeOr(const BoundCall &call, Type fallback) {
  if (auto d = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    return d.getType();
  return fallback;
}

/// zeros/ones/empty(*size, dtype=None): float32 unless dtype= says.
LogicalResult factory(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  std::optional<SmallVector<int64_t>> size = call.getInts("size");
  if (!size)
    return h.unknown();
  for (int64_t d : *size)
    if (d < 0)
      return call.emitError() << "negative dimension " << d;
  return h.result(*size,
                  dtypeOr(call, Float32Type::get(call.getContext())));
}

/// full(size, fill_value): the fill value's kind picks the default dtype.
LogicalResult full(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  std::optional<SmallVector<int64_t>> size = call.getInts("size");
  if (!size)
    return h.unknown();
  for (int64_t d : *size)
    if (d < 0)
      return call.emitError() << "negative dimension " << d;
  MLIRContext *ctx = call.getContext();
  Type fill = call.getType("fill_value");
  Type fallback = Float32Type::get(ctx);
  if (fill && fill.isInteger(1))
    fallback = IntegerType::get(ctx, 1);
  else if (fill && fill.isInteger(64))
    fallback = IntegerType::get(ctx, 64);
  else if (fill && !isa<FloatType>(fill))
    return call.emitError() << "'fill_value' must be a number";
  return h.result(*size, dtypeOr(call, fallback));
}

/// arange(end) / arange(start, end[, step]): int64 when every bound is an
/// int, else float32; ceil((end - start) / step) elements.
LogicalResult arange(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  MLIRContext *ctx = call.getContext();
  bool ints = true;
  for (StringRef name : {"start", "end", "step"}) {
    Type t = call.getType(name);
    if (t && !isa<traced::NoneType>(t) && isa<FloatType>(t))
      ints = false;
    else if (t && !t.isInteger(64) && !t.isInteger(1) &&
             !isa<FloatType>(t) && !(name == "end" && call.isNone("end")))
      return call.emitError() << "arange takes numbers";
  }
  Type elt = dtypeOr(call, ints ? Type(IntegerType::get(ctx, 64))
                                : Type(Float32Type::get(ctx)));
  // With `out=`, the values are computed in the out tensor's dtype, and
  // the result keeps its shape when its size is the range's.
  RankedTensorType out = call.getTensor("out");
  if (out) {
    if (!call.isNone("dtype") && elt != out.getElementType())
      return call.emitError() << "dtype " << elt
                              << " does not match the out tensor's " << out;
    elt = out.getElementType();
  }
  std::optional<double> start = call.getFloat("start"),
                        end = call.getFloat("end"), step = call.getFloat("step");
  if (call.isNone("end")) {
    end = start;
    start = 0.0;
  }
  if (!start || !end || !step)
    return h.result({ShapedType::kDynamic}, elt);
  if (*step == 0)
    return call.emitError() << "step must be nonzero";
  if ((*step > 0 && *end < *start) || (*step < 0 && *end > *start))
    return call.emitError()
           << "upper bound and larger bound inconsistent with step sign";
  int64_t n = static_cast<int64_t>(std::ceil((*end - *start) / *step));
  if (out && out.hasStaticShape() && out.getNumElements() == n)
    return h.result(out.getShape(), elt);
  return h.result({n}, elt);
}

LogicalResult linspace(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  Type elt = dtypeOr(call, Float32Type::get(call.getContext()));
  std::optional<int64_t> steps = call.getInt("steps");
  if (!steps)
    return h.result({ShapedType::kDynamic}, elt);
  if (*steps < 0)
    return call.emitError() << "number of steps must be non-negative";
  return h.result({*steps}, elt);
}

LogicalResult eye(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  Type elt = dtypeOr(call, Float32Type::get(call.getContext()));
  std::optional<int64_t> n = call.getInt("n");
  std::optional<int64_t> m = call.isNone("m") ? n : call.getInt("m");
  if (!n || !m)
    return h.unknown();
  if (*n < 0 || *m < 0)
    return call.emitError() << "n and m must be non-negative";
  return h.result({*n, *m}, elt);
}

/// aten::upsample_nearest{1,2,3}d: (N, C, output_size...), sizes positive.
LogicalResult upsampleNearest(const BoundCall &call,
                              SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> size = getPyInts(call.get("output_size").value);
  if (!input || !size)
    return h.unknown();
  int64_t spatial = call.getTarget().contains("1d")   ? 1
                    : call.getTarget().contains("2d") ? 2
                                                      : 3;
  if (input.getRank() != spatial + 2)
    return call.emitError() << "expects a " << spatial + 2 << "-D input, got "
                            << input;
  if (static_cast<int64_t>(size->size()) != spatial)
    return call.emitError() << "expects output_size of " << spatial
                            << " elements";
  for (int64_t d = 0; d < spatial; ++d)
    if ((*size)[d] <= 0 || input.getDimSize(d + 2) == 0)
      return call.emitError()
             << "input and output sizes should be greater than 0, got input "
             << input << " and output_size " << shapeStr(*size);
  SmallVector<int64_t> shape(input.getShape().take_front(2));
  llvm::append_range(shape, *size);
  return h.result(shape, input.getElementType());
}

/// aten::upsample_nearest{1,2,3}d_backward: a tensor of input_size in
/// grad_output's dtype (float32, float64, bfloat16), after torch's checks:
/// input_size of rank + 2 sizes, grad_output of the forward's output shape.
LogicalResult upsampleNearestBackward(const BoundCall &call,
                                      SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType grad = h.tensor("grad_output");
  std::optional<SmallVector<int64_t>> out = getPyInts(call.get("output_size").value),
                                      in = getPyInts(call.get("input_size").value);
  if (!grad || !out || !in)
    return h.unknown();
  int64_t spatial = call.getTarget().contains("1d")   ? 1
                    : call.getTarget().contains("2d") ? 2
                                                      : 3;
  if (static_cast<int64_t>(in->size()) != spatial + 2)
    return call.emitError() << "It is expected input_size equals to "
                            << spatial + 2 << ", but got size " << in->size();
  if (static_cast<int64_t>(out->size()) != spatial)
    return call.emitError() << "It is expected output_size equals to "
                            << spatial << ", but got size " << out->size();
  for (int64_t d = 0; d < spatial; ++d)
    if ((*in)[d + 2] <= 0 || (*out)[d] <= 0)
      return call.emitError() << "Input and output sizes should be greater "
                                 "than 0, but got input "
                              << shapeStr(*in) << " and output_size "
                              << shapeStr(*out);
  SmallVector<int64_t> expected(ArrayRef<int64_t>(*in).take_front(2));
  llvm::append_range(expected, *out);
  if (grad.getRank() != spatial + 2)
    return call.emitError() << "expects a " << spatial + 2
                            << "-D grad_output, got " << grad;
  for (int64_t d = 0; d < spatial + 2; ++d)
    if (dimsDiffer(grad.getDimSize(d), expected[d]))
      return call.emitError()
             << "Expected grad_output to have the same shape as output; "
                "output.size("
             << d << ") = " << expected[d] << " but got grad_output.size(" << d
             << ") = " << grad.getDimSize(d);
  Type et = grad.getElementType();
  if (!et.isF32() && !et.isF64() && !et.isBF16())
    return call.emitError() << "has no CPU kernel in " << et;
  return h.result(*in, et);
}

LogicalResult interpolate(const BoundCall &call,
                          SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  int64_t spatial = input.getRank() - 2;
  if (spatial < 1 || spatial > 3)
    return call.emitError() << "expects a 3-D, 4-D or 5-D input, got "
                            << input;
  // torch 1.13's CPU kernels: nearest also takes uint8, nearest-exact no
  // bfloat16, the linear modes floats but float16.
  Attribute modeAttr = call.get("mode").value;
  StringRef mode = isa_and_nonnull<StringAttr>(modeAttr)
                       ? cast<StringAttr>(modeAttr).getValue()
                       : StringRef();
  if (std::optional<DType> d = dtypeFromType(input.getElementType())) {
    bool ok = *d == DType::F32 || *d == DType::F64 ||
              (*d == DType::BF16 && mode != "nearest-exact") ||
              (*d == DType::U8 && mode.starts_with("nearest"));
    if (!ok)
      return call.emitError() << "mode \"" << mode << "\" on "
                              << dtypeName(*d)
                              << " is not supported: torch 1.13 has no CPU "
                                 "kernel for it";
  }
  SmallVector<int64_t> shape(input.getShape());
  if (!call.isNone("size")) {
    std::optional<SmallVector<int64_t>> size = call.getInts("size", spatial);
    if (!size)
      return h.unknown();
    if (static_cast<int64_t>(size->size()) != spatial)
      return call.emitError() << "'size' must have " << spatial
                              << " elements";
    for (int64_t d = 0; d < spatial; ++d)
      shape[d + 2] = (*size)[d];
    return h.result(shape, input.getElementType());
  }
  SmallVector<double> factors;
  Attribute sf = call.get("scale_factor").value;
  if (std::optional<double> f = call.getFloat("scale_factor"))
    factors.assign(spatial, *f);
  else if (auto list = dyn_cast_or_null<ArrayAttr>(sf))
    for (Attribute a : list) {
      if (auto f = dyn_cast<FloatAttr>(a))
        factors.push_back(f.getValueAsDouble());
      else if (auto i = dyn_cast<IntegerAttr>(a))
        factors.push_back(static_cast<double>(i.getInt()));
    }
  if (static_cast<int64_t>(factors.size()) != spatial)
    return h.unknown();
  for (int64_t d = 0; d < spatial; ++d)
    if (!ShapedType::isDynamic(shape[d + 2]))
      shape[d + 2] =
          static_cast<int64_t>(std::floor(shape[d + 2] * factors[d]));
  return h.result(shape, input.getElementType());
}

/// The addmm family converts `beta` and `alpha` to an integer result's type
/// and refuses, as torch's checked conversion does, a value the type cannot
/// hold: a Python float outside [lowest, max] before truncation (so -0.5 for
/// uint8), a Python int outside it too, except that an unsigned type takes
/// negative ints down to -max (they wrap: alpha=-2 is 254 for uint8).
static LogicalResult checkScalesFit(const BoundCall &call, Type element) {
  auto it = dyn_cast<IntegerType>(element);
  if (!it || it.getWidth() == 1)
    return success();
  unsigned w = it.getWidth();
  double lo = it.isUnsigned() ? 0 : -std::ldexp(1.0, w - 1);
  double hi = it.isUnsigned() ? std::ldexp(1.0, w) - 1
                              : std::ldexp(1.0, w - 1) - 1;
  for (StringRef name : {"beta", "alpha"}) {
    Attribute value = call.get(name).value;
    bool fits = true;
    double v = 0;
    if (auto i = dyn_cast_or_null<IntegerAttr>(value)) {
      if (i.getType().isInteger(1))
        continue;
      v = static_cast<double>(i.getInt());
      fits = v <= hi && (it.isUnsigned() ? v >= -hi : v >= lo);
    } else if (auto f = dyn_cast_or_null<FloatAttr>(value)) {
      v = f.getValueAsDouble();
      fits = !std::isnan(v) && v >= lo && v <= hi;
    } else {
      continue;
    }
    if (!fits) {
      std::string text;
      llvm::raw_string_ostream(text) << llvm::format("%g", v);
      return call.emitError() << "'" << name << "' (" << text
                              << ") cannot be converted to " << element
                              << " without overflow";
    }
  }
  return success();
}

LogicalResult addmm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), a = h.tensor("mat1"),
                   b = h.tensor("mat2");
  if (!input || !a || !b)
    return h.unknown();
  if (a.getRank() != 2 || b.getRank() != 2)
    return call.emitError() << "expects 2-D matrices, got " << a << " and "
                            << b;
  if (a.getElementType() != b.getElementType() ||
      input.getElementType() != a.getElementType())
    return call.emitError() << "expects operands of one dtype";
  if (failed(checkScalesFit(call, a.getElementType())))
    return failure();
  SmallVector<int64_t> shape{a.getDimSize(0), b.getDimSize(1)};
  if (failed(broadcastShapes(call, input.getShape(), shape)))
    return failure();
  return h.result(shape, a.getElementType());
}

/// mv and dot: 1-D and 2-D products of one dtype; outer, which promotes.
LogicalResult vectorProduct(const BoundCall &call,
                            SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  bool isMv = call.getSignature().lookup("vec").has_value();
  bool isOuter = call.getSignature().lookup("vec2").has_value();
  RankedTensorType a = h.tensor("input"),
                   b = h.tensor(isMv ? "vec" : isOuter ? "vec2" : "other");
  if (!a || !b)
    return h.unknown();
  if (isOuter && a.getRank() == 1 && b.getRank() == 1) {
    // input[:, None] * vec2: promoted like any product.
    Type elt = resultElementType({a, b}, call.getContext());
    if (!elt)
      return h.unknown();
    return h.result({a.getDimSize(0), b.getDimSize(0)}, elt);
  }
  if (a.getElementType() != b.getElementType())
    return call.emitError() << "expects operands of one dtype, got " << a
                            << " and " << b;
  if (isMv) {
    if (a.getRank() != 2 || b.getRank() != 1)
      return call.emitError() << "expects a matrix and a vector";
    return h.result({a.getDimSize(0)}, a.getElementType());
  }
  if (a.getRank() != 1 || b.getRank() != 1)
    return call.emitError() << "expects two 1-D tensors, got " << a << " and "
                            << b;
  if (isOuter)
    return h.result({a.getDimSize(0), b.getDimSize(0)}, a.getElementType());
  return h.result(ArrayRef<int64_t>{}, a.getElementType());
}

LogicalResult select(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "cannot be applied to a 0-d tensor";
  auto dim = dimArg(call, input);
  if (failed(dim))
    return failure();
  if (!*dim)
    return h.unknown();
  SmallVector<int64_t> shape(input.getShape());
  shape.erase(shape.begin() + **dim);
  return h.result(shape, input.getElementType());
}

LogicalResult movedim(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> src = call.getInts("source"),
                                      dst = call.getInts("destination");
  if (!input || !src || !dst)
    return h.unknown();
  std::string error;
  FailureOr<SmallVector<int64_t>> perm =
      movedimPermutation(*src, *dst, input.getRank(), error);
  if (failed(perm))
    return call.emitError() << error;
  SmallVector<int64_t> shape;
  for (int64_t p : *perm)
    shape.push_back(input.getDimSize(p));
  return h.result(shape, input.getElementType());
}

/// sort (values, indices), argsort (indices) and topk (k along dim).
LogicalResult sortLike(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  auto dim = dimArg(call, input);
  if (failed(dim))
    return failure();
  if (!*dim)
    return h.unknown();
  SmallVector<int64_t> shape(input.getShape());
  Type i64 = Builder(call.getContext()).getI64Type();
  if (call.getSignature().lookup("k")) {
    std::optional<int64_t> k = call.getInt("k");
    if (!k)
      return h.unknown();
    int64_t size = input.getRank() ? input.getDimSize(**dim) : 1;
    if (*k < 0 || (!ShapedType::isDynamic(size) && *k > size))
      return call.emitError() << "k (" << *k << ") is out of range for "
                              << input;
    if (input.getRank())
      shape[**dim] = *k;
  }
  auto values = RankedTensorType::get(shape, input.getElementType());
  auto indices = RankedTensorType::get(shape, i64);
  if (!call.getSignature().lookup("stable") && !call.getSignature().lookup("k"))
    return h.result(indices); // argsort
  return h.result(TupleType::get(call.getContext(), {values, indices}));
}

LogicalResult scatter(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), index = h.tensor("index");
  if (!input || !index)
    return h.unknown();
  if (!index.getElementType().isInteger(64))
    return call.emitError() << "argument 'index' must be an int64 tensor, got "
                            << index;
  if (std::max<int64_t>(index.getRank(), 1) !=
      std::max<int64_t>(input.getRank(), 1))
    return call.emitError() << "'index' " << index
                            << " must have as many dims as 'input' " << input;
  // (The kernels check the reduce= names: scatter's add/multiply,
  // scatter_reduce's sum/prod/mean/amax/amin.)
  if (failed(dimArg(call, input)))
    return failure();
  return h.result(input);
}

LogicalResult floatUnary(const BoundCall &call,
                         SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  std::optional<DType> d = dtypeFromType(input.getElementType());
  if (!d)
    return h.result(input);
  return h.result(input.getShape(),
                  typeFromDType(call.getContext(), toFloatingDType(*d)));
}

LogicalResult clamp(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  SmallVector<Type> types{input};
  SmallVector<int64_t> shape(input.getShape());
  bool bounded = false;
  for (StringRef name : {"min", "max"}) {
    // (clamp_min and clamp_max have one bound only, as in torch.)
    if (!call.getSignature().lookup(name) || call.isNone(name))
      continue;
    bounded = true;
    Type t = call.getType(name);
    if (isa<TensorType>(t) && !isa<RankedTensorType>(t))
      return h.unknown();
    types.push_back(t);
    if (auto bound = dyn_cast<RankedTensorType>(t)) {
      FailureOr<SmallVector<int64_t>> s =
          broadcastShapes(call, shape, bound.getShape());
      if (failed(s))
        return failure();
      shape = *s;
    }
  }
  if (!bounded)
    return call.emitError() << "at least one of 'min' and 'max' must be given";
  Type elt = resultElementType(types, call.getContext());
  if (!elt)
    return h.unknown();
  // torch's clamp with a Python-number bound has no bool kernel
  // ("clamp_scalar_cpu" not implemented for 'Bool'); with tensor bounds it
  // has one.
  if (elt.isInteger(1))
    for (StringRef name : {"min", "max"})
      if (call.getSignature().lookup(name) && !call.isNone(name) &&
          !isa<TensorType>(call.getType(name)))
        return call.emitError()
               << "'" << call.getTarget()
               << "' of bools with a number bound: torch 1.13 has no CPU "
                  "kernel for it";
  return h.result(shape, elt);
}

LogicalResult arithmetic(const BoundCall &call,
                         SmallVectorImpl<Type> &results) {
  return binary(call, results, /*trueDivide=*/false);
}

/// An activation's gradient from the forward's input (`input`), output
/// (`output`) or either (`self_or_result`): broadcast and promoted with
/// `grad_output`.
LogicalResult activationGrad(const BoundCall &call,
                             SmallVectorImpl<Type> &results) {
  const Signature &sig = call.getSignature();
  StringRef other = sig.lookup("input")    ? "input"
                    : sig.lookup("output") ? "output"
                                           : "self_or_result";
  return pointwise(call, results, {"grad_output", other}, /*toFloat=*/false);
}

/// aten::rrelu_with_noise_backward as torch 1.13 computes it: in training,
/// grad_output * noise (broadcast and promoted, whatever lower and upper
/// are); otherwise leaky_relu_backward(grad_output, input, (lower + upper)
/// / 2, self_is_result), whose CPU kernel takes float32, float64 and
/// bfloat16 and refuses a negative slope on the forward's result.
LogicalResult rreluNoiseGrad(const BoundCall &call,
                             SmallVectorImpl<Type> &results) {
  std::optional<bool> training = call.getBool("training");
  std::optional<bool> selfIsResult = call.getBool("self_is_result");
  std::optional<double> lower = call.getFloat("lower"),
                        upper = call.getFloat("upper");
  if (!training || !selfIsResult || !lower || !upper)
    return RuleHelper{call, results}.unknown();
  if (*training)
    return pointwise(call, results, {"grad_output", "noise"}, /*toFloat=*/false);
  if (failed(pointwise(call, results, {"grad_output", "input"}, /*toFloat=*/false)))
    return failure();
  auto type = results.empty() ? RankedTensorType()
                              : dyn_cast_or_null<RankedTensorType>(results[0]);
  if (type) {
    Type et = type.getElementType();
    if (!et.isF32() && !et.isF64() && !et.isBF16())
      return call.emitError() << "has no CPU kernel for leaky_relu_backward "
                                 "(outside training) in "
                              << et;
  }
  if (*selfIsResult && (*lower + *upper) / 2 < 0)
    return call.emitError()
           << "In-place leakyReLu backward calculation is triggered with a "
              "negative slope which is not supported";
  return success();
}

/// _softmax_backward_data / _log_softmax_backward_data: the gradient, in
/// the dtype of grad_output and output (torch 1.13's CPU kernels: float32,
/// float64 or bfloat16, the two of one dtype and shape; an input_dtype of
/// float16 asks for a conversion the CPU does not make).
LogicalResult softmaxBackwardData(const BoundCall &call,
                                  SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType grad = h.tensor("grad_output"), out = h.tensor("output");
  std::optional<int64_t> dim = call.getInt("dim");
  auto inputDType = dyn_cast_or_null<DTypeAttr>(call.get("input_dtype").value);
  if (!grad || !out || !dim || !inputDType)
    return h.unknown();
  Type elt = grad.getElementType();
  if (out.getElementType() != elt)
    return call.emitError() << "expects output of grad_output's dtype, got "
                            << out << " and " << grad;
  if (!elt.isF32() && !elt.isF64() && !elt.isBF16())
    return call.emitError() << "computes in " << elt
                            << ", which torch 1.13's CPU kernel does not "
                               "implement (float32, float64, bfloat16)";
  if (elt.isF32() && inputDType.getType().isF16())
    return call.emitError() << "expected scalar type Float but found Half";
  if (grad.getShape() != out.getShape())
    return call.emitError() << "expects grad_output of output's size, got "
                            << grad << " and " << out;
  if (failed(h.dim(*dim, std::max<int64_t>(grad.getRank(), 1))))
    return failure();
  return h.result(grad);
}

/// threshold_backward: as activationGrad; torch converts a Python float
/// threshold to an integer compute dtype with an overflow check (-1.75 is
/// -1 in int32, but raises for uint8; an int threshold wraps instead).
LogicalResult thresholdGrad(const BoundCall &call,
                            SmallVectorImpl<Type> &results) {
  if (failed(activationGrad(call, results)))
    return failure();
  auto t = results.size() == 1 ? dyn_cast_or_null<RankedTensorType>(results[0])
                               : RankedTensorType();
  auto integer = t ? dyn_cast<IntegerType>(t.getElementType()) : IntegerType();
  auto value = dyn_cast_or_null<FloatAttr>(call.get("threshold").value);
  if (!integer || integer.getWidth() == 1 || !value)
    return success();
  double v = std::trunc(value.getValueAsDouble());
  unsigned w = integer.getWidth();
  double lo = integer.isUnsigned() ? 0 : -std::ldexp(1.0, w - 1);
  double hi = integer.isUnsigned() ? std::ldexp(1.0, w) - 1
                                   : std::ldexp(1.0, w - 1) - 1;
  if (!(v >= lo && v <= hi))
    return call.emitError() << "threshold " << value.getValueAsDouble()
                            << " cannot be converted to " << integer
                            << " without overflow";
  return success();
}

/// gelu_backward: as activationGrad, except that a float32 or bfloat16
/// input takes torch 1.13's oneDNN kernel, which needs grad_output of the
/// same dtype: it refuses others, and reads a float32 grad_output with a
/// bfloat16 input as the wrong memory (garbage results). Those are refused.
LogicalResult geluGrad(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RankedTensorType grad = call.getTensor("grad_output"),
                   input = call.getTensor("input");
  if (grad && input && grad.getElementType() != input.getElementType() &&
      (input.getElementType().isF32() || input.getElementType().isBF16()))
    return call.emitError()
           << "expects grad_output of the input's dtype for a float32 or "
              "bfloat16 input (torch 1.13's oneDNN kernel), got "
           << grad << " and " << input;
  return activationGrad(call, results);
}

LogicalResult power(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return binary(call, results, /*trueDivide=*/false, "exponent");
}

LogicalResult trueDivide(const BoundCall &call,
                         SmallVectorImpl<Type> &results) {
  bool rounding = call.getSignature().lookup("rounding_mode") &&
                  !call.isNone("rounding_mode");
  return binary(call, results, /*trueDivide=*/!rounding);
}

/// The result of a binary op taken as truth values: same shape, i1 (a
/// Python bool for two numbers).
static LogicalResult truthBinary(const BoundCall &call,
                                 SmallVectorImpl<Type> &results) {
  if (failed(binary(call, results, /*trueDivide=*/false)))
    return failure();
  if (results.empty() || !results[0])
    return success(); // unknown
  Builder b(call.getContext());
  if (auto t = dyn_cast<RankedTensorType>(results[0]))
    results[0] = RankedTensorType::get(t.getShape(), b.getI1Type());
  else
    results[0] = b.getI1Type();
  return success();
}

LogicalResult comparison(const BoundCall &call,
                         SmallVectorImpl<Type> &results) {
  return truthBinary(call, results);
}

LogicalResult bitwise(const BoundCall &call, SmallVectorImpl<Type> &results) {
  for (StringRef name : {"input", "other"}) {
    Type t = call.getType(name);
    Type elt = isa<ShapedType>(t) ? cast<ShapedType>(t).getElementType() : t;
    if (isa<FloatType>(elt))
      return call.emitError() << "argument '" << name << "' of type " << t
                              << " is not supported: bitwise ops take bool "
                                 "and integer operands";
  }
  return binary(call, results, /*trueDivide=*/false);
}

LogicalResult predicate(const BoundCall &call,
                        SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  return h.result(input.getShape(), Builder(call.getContext()).getI1Type());
}

LogicalResult square(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getElementType().isInteger(1))
    return h.result(input.getShape(),
                    Builder(call.getContext()).getI64Type());
  return h.result(input);
}

LogicalResult floatBinary(const BoundCall &call,
                          SmallVectorImpl<Type> &results) {
  return binary(call, results, /*trueDivide=*/true);
}

LogicalResult where(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType cond = h.tensor("condition");
  if (!cond)
    return h.unknown();
  if (!cond.getElementType().isInteger(1))
    return call.emitError() << "argument 'condition' must be a bool tensor, "
                               "got "
                            << cond;
  SmallVector<int64_t> shape(cond.getShape());
  SmallVector<Type> types;
  for (StringRef name : {"input", "other"}) {
    Type t = call.getType(name);
    if (isa<TensorType>(t) && !isa<RankedTensorType>(t))
      return h.unknown();
    types.push_back(t);
    if (auto r = dyn_cast<RankedTensorType>(t)) {
      FailureOr<SmallVector<int64_t>> s =
          broadcastShapes(call, shape, r.getShape());
      if (failed(s))
        return failure();
      shape = *s;
    }
  }
  Type elt = resultElementType(types, call.getContext());
  if (!elt)
    return h.unknown();
  return h.result(shape, elt);
}

LogicalResult maskedFill(const BoundCall &call,
                         SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), mask = h.tensor("mask");
  if (!input || !mask)
    return h.unknown();
  if (!mask.getElementType().isInteger(1))
    return call.emitError() << "argument 'mask' must be a bool tensor, got "
                            << mask;
  FailureOr<SmallVector<int64_t>> s =
      broadcastShapes(call, input.getShape(), mask.getShape());
  if (failed(s))
    return failure();
  if (auto value = dyn_cast<RankedTensorType>(call.getType("value")))
    if (value.getRank() != 0)
      return call.emitError() << "argument 'value' must be a number or a 0-d "
                                 "tensor, got "
                              << value;
  return h.result(input);
}

/// torch.masked_scatter: the input broadcast with the mask (a bool or, as
/// torch 1.13 takes it, an integer tensor), in its dtype; the source must
/// have the input's dtype.
LogicalResult maskedScatter(const BoundCall &call,
                            SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), mask = h.tensor("mask"),
                   source = h.tensor("source");
  if (!input || !mask || !source)
    return h.unknown();
  if (!isa<IntegerType>(mask.getElementType()))
    return call.emitError() << "expects a bool (or integer) mask, got " << mask;
  if (source.getElementType() != input.getElementType())
    return call.emitError() << "masked_scatter: expected self and source to "
                               "have same dtypes but got "
                            << input << " and " << source;
  FailureOr<SmallVector<int64_t>> s =
      broadcastShapes(call, input.getShape(), mask.getShape());
  if (failed(s))
    return failure();
  return h.result(*s, input.getElementType());
}

LogicalResult batchNorm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() < 2)
    return call.emitError()
           << "expects an input of rank 2 or more, got " << input;
  int64_t channels = input.getDimSize(1);
  // F.batch_norm's own check: a batch statistic needs two values.
  if (call.getBool("training") == std::optional<bool>(true) &&
      input.hasStaticShape() && input.getNumElements() == channels)
    return call.emitError() << "Expected more than 1 value per channel when "
                               "training, got input size "
                            << shapeStr(input.getShape());
  for (StringRef name : {"running_mean", "running_var", "weight", "bias"}) {
    RankedTensorType t = h.tensor(name);
    if (!t)
      continue;
    if (t.getRank() != 1 || (!ShapedType::isDynamic(channels) &&
                             !t.isDynamicDim(0) && t.getDimSize(0) != channels))
      return call.emitError() << "'" << name << "' must have shape ["
                              << channels << "], got " << t;
  }
  return h.result(input);
}

LogicalResult layerNorm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> normalized =
      call.getInts("normalized_shape");
  if (!input || !normalized)
    return h.unknown();
  ArrayRef<int64_t> shape = input.getShape();
  bool ok = normalized->size() <= shape.size();
  for (size_t i = 0; ok && i < normalized->size(); ++i) {
    int64_t d = shape[shape.size() - normalized->size() + i];
    ok = ShapedType::isDynamic(d) || d == (*normalized)[i];
  }
  if (!ok)
    return call.emitError()
           << "normalized_shape " << shapeStr(*normalized)
           << " does not match the trailing dimensions of " << input;
  return h.result(input);
}

LogicalResult conv(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), weight = h.tensor("weight");
  if (!input || !weight)
    return h.unknown();
  if (input.getElementType() != weight.getElementType())
    return call.emitError() << "expects input and weight of one dtype, got "
                            << input << " and " << weight;
  // torch's CPU backends mostly reject another bias dtype (only a few, like
  // the batch-of-one conv1d path, cast it).
  if (RankedTensorType bias = h.tensor("bias"))
    if (bias.getElementType() != input.getElementType())
      return call.emitError() << "expects a bias of the input's dtype, got "
                              << bias << " for " << input;
  ConvParams p;
  std::string error;
  switch (decodeConvCall(call, input, weight, p, error)) {
  case ConvDecode::Unknown:
    return h.unknown();
  case ConvDecode::Invalid:
    return call.emitError() << error;
  case ConvDecode::Ok:
    break;
  }
  // torch.convolution's `transposed` is a value, so kRejectedDTypes (per
  // entry) cannot say that only float32, float64 and int64 have a CPU
  // kernel for transposed convolutions (slow_conv_transpose2d/3d).
  Type et = input.getElementType();
  if (p.transposed && !et.isF32() && !et.isF64() && !et.isSignlessInteger(64))
    return call.emitError()
           << "has no CPU kernel for a transposed convolution in " << et;
  return h.result(p.resultShape, et);
}

/// Max unpooling (aten::max_unpool2d/3d, F.max_unpool1d/2d/3d): the
/// input's leading dims, then decodeUnpool's output size; int64 indices of
/// the input's shape; float32 and float64 (torch 1.13's CPU kernel).
LogicalResult maxUnpool(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), indices = h.tensor("indices");
  if (!input || !indices)
    return h.unknown();
  unsigned k = 0;
  SmallVector<int64_t> size;
  std::string error;
  switch (withArgReader(call, [&](const ArgReader &reader) {
    return decodeUnpool(call.getSignature(), reader, input.getShape(), k, size,
                        error);
  })) {
  case ConvDecode::Unknown:
    return h.unknown();
  case ConvDecode::Invalid:
    return call.emitError() << error;
  case ConvDecode::Ok:
    break;
  }
  if (!indices.getElementType().isSignlessInteger(64))
    return call.emitError() << "elements in indices should be type int64 but "
                               "got: "
                            << indices.getElementType();
  if (indices.getShape() != input.getShape())
    return call.emitError() << "Expected shape of indices to be same as that "
                               "of the input tensor ("
                            << input << ") but got indices tensor with shape: "
                            << indices;
  Type et = input.getElementType();
  if (!et.isF32() && !et.isF64())
    return call.emitError() << "has no CPU kernel for max unpooling in " << et;
  SmallVector<int64_t> shape(input.getShape().drop_back(k));
  shape.append(size.begin(), size.end());
  return h.result(shape, et);
}

/// torch.fake_quantize_per_tensor_affine: the input's type (float32,
/// float64 or float16, torch 1.13's CPU kernel), after torch's checks of
/// the quantization range; the _cachemask form adds the bool mask of the
/// elements whose quantized value fell inside it.
LogicalResult fakeQuantize(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> zp = call.getInt("zero_point"),
                         lo = call.getInt("quant_min"), hi = call.getInt("quant_max");
  if (!input || !zp || !lo || !hi)
    return h.unknown();
  Type et = input.getElementType();
  if (!et.isF32() && !et.isF64() && !et.isF16())
    return call.emitError() << "has no CPU kernel for fake quantization in " << et;
  if (*lo > *hi)
    return call.emitError() << "`quant_min` should be less than or equal to "
                               "`quant_max`.";
  if (*zp < *lo || *zp > *hi)
    return call.emitError() << "`zero_point` must be between `quant_min` and "
                               "`quant_max`.";
  if (!call.getTarget().contains("cachemask"))
    return h.result(input);
  Type mask = RankedTensorType::get(input.getShape(), IntegerType::get(call.getContext(), 1));
  return h.result(TupleType::get(call.getContext(), {input, mask}));
}

/// The three flags of a gradient's constant `output_mask` (bool[3]).
static LogicalResult outputMask(const BoundCall &call, SmallVectorImpl<bool> &mask) {
  auto maskAttr = dyn_cast_or_null<ArrayAttr>(call.get("output_mask").value);
  if (!maskAttr)
    return call.emitError() << "argument 'output_mask' expects bool[3]";
  for (Attribute a : maskAttr) {
    auto b = dyn_cast<BoolAttr>(a);
    if (!b)
      return call.emitError() << "argument 'output_mask' expects bool[3]";
    mask.push_back(b.getValue());
  }
  if (mask.size() != 3)
    return call.emitError() << "argument 'output_mask' expects 3 bools, got "
                            << mask.size();
  return success();
}

/// aten::convolution_backward: (grad_input, grad_weight, grad_bias) of
/// torch.convolution(input, weight, ...), each None where `output_mask` is
/// false. grad_output must have the forward's result shape. The input and
/// weight gradients take one dtype for all three tensors, with CPU kernels
/// for float32, float64 and (not transposed) bfloat16; grad_bias is
/// grad_output's sum per channel, in its dtype, so it takes any dtype.
LogicalResult convolutionBackward(const BoundCall &call,
                                  SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType grad = h.tensor("grad_output"), input = h.tensor("input"),
                   weight = h.tensor("weight");
  if (!grad || !input || !weight || !call.get("output_mask").value)
    return h.unknown();
  SmallVector<bool> mask;
  if (failed(outputMask(call, mask)))
    return failure();
  ConvParams p;
  std::string error;
  switch (withArgReader(call, [&](const ArgReader &reader) {
    return decodeConv(call.getSignature(), reader, input.getShape(),
                      weight.getShape(), std::nullopt, p, error);
  })) {
  case ConvDecode::Unknown:
    return h.unknown();
  case ConvDecode::Invalid:
    return call.emitError() << error;
  case ConvDecode::Ok:
    break;
  }
  if (grad.getRank() != static_cast<int64_t>(p.resultShape.size()) ||
      llvm::any_of(llvm::zip(grad.getShape(), p.resultShape), [](auto d) {
        return dimsDiffer(std::get<0>(d), std::get<1>(d));
      }))
    return call.emitError() << "grad_output " << grad
                            << " does not have the convolution's result shape "
                            << listStr(p.resultShape);
  Type et = grad.getElementType();
  if (mask[0] || mask[1]) {
    if (input.getElementType() != et || weight.getElementType() != et)
      return call.emitError()
             << "expects grad_output, input and weight of one dtype, got "
             << grad << ", " << input << " and " << weight;
    if (!et.isF32() && !et.isF64() && !(et.isBF16() && !p.transposed))
      return call.emitError() << "has no CPU kernel for the gradient of a "
                              << (p.transposed ? "transposed " : "")
                              << "convolution in " << et;
  }
  int64_t channels = p.transposed && !ShapedType::isDynamic(weight.getDimSize(1))
                         ? weight.getDimSize(1) * p.groups
                         : weight.getDimSize(p.transposed ? 1 : 0);
  Type none = NoneType::get(call.getContext());
  Type parts[3] = {
      mask[0] ? Type(input) : none, mask[1] ? Type(weight) : none,
      mask[2] ? Type(RankedTensorType::get({channels}, et)) : none};
  return h.result(TupleType::get(call.getContext(), parts));
}

/// torch.conv_tbc: a 1-D convolution over time-major input [T, B, C] with
/// weight [K, C, O]; `pad` may be negative (it crops).
LogicalResult convTbc(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), weight = h.tensor("weight"),
                   bias = h.tensor("bias");
  std::optional<int64_t> pad = call.getInt("pad");
  if (!input || !weight || !bias || !pad)
    return h.unknown();
  if (input.getRank() != 3 || weight.getRank() != 3 || bias.getRank() != 1)
    return call.emitError() << "expects input [time, batch, channels], weight "
                               "[kernel, channels, out] and bias [out], got "
                            << input << ", " << weight << " and " << bias;
  if (dimsDiffer(input.getDimSize(2), weight.getDimSize(1)))
    return call.emitError()
           << "input has " << input.getDimSize(2) << " channels, but weight "
           << weight << " expects " << weight.getDimSize(1);
  if (dimsDiffer(bias.getDimSize(0), weight.getDimSize(2)))
    return call.emitError() << "bias " << bias << " does not match the "
                            << weight.getDimSize(2) << " output channels";
  if (input.getElementType() != weight.getElementType() ||
      input.getElementType() != bias.getElementType())
    return call.emitError() << "expects tensors of one dtype, got " << input
                            << ", " << weight << " and " << bias;
  int64_t t = input.getDimSize(0), k = weight.getDimSize(0), out = kDynamic;
  if (!ShapedType::isDynamic(t) && !ShapedType::isDynamic(k)) {
    out = t + 2 * *pad - k + 1;
    if (out < 0)
      return call.emitError() << "kernel size " << k << " is larger than the "
                              << "padded input length " << t + 2 * *pad;
  }
  return h.result({out, input.getDimSize(1), weight.getDimSize(2)},
                  input.getElementType());
}

LogicalResult linear(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), weight = h.tensor("weight");
  if (!input || !weight)
    return h.unknown();
  if (input.getRank() < 1 || weight.getRank() < 1 || weight.getRank() > 2)
    return call.emitError() << "expects an input of rank >= 1 and a weight "
                               "of rank 1 or 2, got "
                            << input << " and " << weight;
  int64_t in = input.getShape().back(), win = weight.getShape().back();
  if (dimsDiffer(in, win))
    return call.emitError() << "input has " << in << " features, but weight "
                            << weight << " expects " << win;
  SmallVector<int64_t> out(input.getShape().drop_back());
  if (weight.getRank() == 2)
    out.push_back(weight.getDimSize(0));
  if (RankedTensorType bias = h.tensor("bias")) {
    // torch adds the bias in place into the product (addmm, or add_ after
    // matmul): it must broadcast *into* the output, which for an input of
    // rank > 2 is flattened to [batch, out] first.
    if (weight.getRank() == 1 && input.getRank() >= 2)
      return call.emitError() << "with a bias, the weight must be a matrix, "
                                 "got "
                              << weight;
    SmallVector<int64_t> target(out);
    if (input.getRank() > 2) {
      int64_t batch = 1;
      for (int64_t d : ArrayRef<int64_t>(out).drop_back())
        batch = ShapedType::isDynamic(d) || ShapedType::isDynamic(batch)
                    ? ShapedType::kDynamic
                    : batch * d;
      target = {batch, out.back()};
    }
    bool fits = bias.getRank() <= static_cast<int64_t>(target.size());
    for (int64_t i = 1; fits && i <= bias.getRank(); ++i) {
      int64_t b = bias.getShape()[bias.getRank() - i],
              t = target[target.size() - i];
      fits = b == 1 || b == t || ShapedType::isDynamic(b) ||
             ShapedType::isDynamic(t);
    }
    if (!fits)
      return call.emitError() << "bias " << bias
                              << " does not broadcast into the output's shape ["
                              << llvm::make_range(target.begin(), target.end())
                              << "]";
  }
  return h.result(out, input.getElementType());
}

/// torch.matmul on shapes `a` and `b`, with batch broadcasting.
static LogicalResult matmulShapes(const BoundCall &call,
                                  SmallVectorImpl<Type> &results,
                                  RankedTensorType a, RankedTensorType b) {
  RuleHelper h{call, results};
  if (a.getRank() == 0 || b.getRank() == 0)
    return call.emitError()
           << "both arguments must be at least 1-D, got " << a << " and " << b;
  SmallVector<int64_t> sa(a.getShape()), sb(b.getShape());
  bool vecA = sa.size() == 1, vecB = sb.size() == 1;
  if (vecA)
    sa.insert(sa.begin(), 1);
  if (vecB)
    sb.push_back(1);
  int64_t ka = sa.back(), kb = sb[sb.size() - 2];
  if (dimsDiffer(ka, kb))
    return call.emitError()
           << "cannot multiply " << a << " and " << b << ": contracted sizes "
           << ka << " and " << kb << " differ";
  FailureOr<SmallVector<int64_t>> batch =
      broadcastShapes(call, ArrayRef<int64_t>(sa).drop_back(2),
                      ArrayRef<int64_t>(sb).drop_back(2));
  if (failed(batch))
    return failure();
  SmallVector<int64_t> out = *batch;
  if (!vecA)
    out.push_back(sa[sa.size() - 2]);
  if (!vecB)
    out.push_back(sb.back());
  if (a.getElementType() != b.getElementType()) {
    // Quantized operands (the quant dialect's types) are not checked here.
    if (!dtypeFromType(a.getElementType()) ||
        !dtypeFromType(b.getElementType()))
      return h.unknown();
    return call.emitError() << "expects operands of one dtype, got " << a
                            << " and " << b;
  }
  return h.result(out, a.getElementType());
}

LogicalResult matmul(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType a = h.tensor("input"), b = h.tensor("other");
  if (!a || !b)
    return h.unknown();
  return matmulShapes(call, results, a, b);
}

static LogicalResult checkedMatmul(const BoundCall &call,
                                   SmallVectorImpl<Type> &results,
                                   StringRef lhs, StringRef rhs, int64_t rank) {
  RuleHelper h{call, results};
  RankedTensorType a = h.tensor(lhs), b = h.tensor(rhs);
  if (!a || !b)
    return h.unknown();
  if (a.getRank() != rank || b.getRank() != rank)
    return call.emitError()
           << "expects " << rank << "-D tensors, got " << a << " and " << b;
  if (rank == 3 && !a.isDynamicDim(0) && !b.isDynamicDim(0) &&
      a.getDimSize(0) != b.getDimSize(0))
    return call.emitError()
           << "batch sizes of " << a << " and " << b << " differ";
  return matmulShapes(call, results, a, b);
}

LogicalResult bmm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return checkedMatmul(call, results, "input", "mat2", 3);
}

LogicalResult baddbmm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  if (failed(checkedMatmul(call, results, "batch1", "batch2", 3)))
    return failure();
  if (results.size() == 1)
    if (auto t = dyn_cast_or_null<RankedTensorType>(results[0])) {
      // It computes in the batches' dtype (the input is converted to it),
      // so the dtype table, which reads `input`, cannot say this.
      Type e = t.getElementType();
      if (e.isInteger(1) || e.isF16())
        return call.emitError() << "computes in " << e
                                << ", which is not supported: torch 1.13 has "
                                   "no CPU kernel for it";
      return checkScalesFit(call, e);
    }
  return success();
}

LogicalResult mm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return checkedMatmul(call, results, "input", "mat2", 2);
}

LogicalResult multiHeadAttention(const BoundCall &call,
                                 SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType query = h.tensor("query"), key = h.tensor("key");
  RankedTensorType outWeight = h.tensor("out_proj_weight");
  std::optional<int64_t> embed = call.getInt("embed_dim_to_check"),
                         heads = call.getInt("num_heads");
  std::optional<bool> needWeights = call.getBool("need_weights"),
                      average = call.getBool("average_attn_weights"),
                      zeroAttn = call.getBool("add_zero_attn");
  if (!query || !key || !outWeight || !embed || !heads || !needWeights ||
      !average || !zeroAttn)
    return h.unknown();
  int64_t rank = query.getRank();
  if ((rank != 2 && rank != 3) || key.getRank() != rank)
    return call.emitError() << "expects query and key of rank 2 (unbatched) "
                               "or 3 (L, N, E), got "
                            << query << " and " << key;
  int64_t e = query.getShape().back();
  if (dimsDiffer(e, *embed))
    return call.emitError() << "query has embedding size " << e
                            << ", but embed_dim_to_check is " << *embed;
  if (*heads < 1 || *embed % *heads != 0)
    return call.emitError() << "embed_dim " << *embed
                            << " is not divisible by num_heads " << *heads;
  // The projections are torch's F.linear calls: what they would refuse is
  // refused here, so that the kernel and the lowering index only shapes
  // that exist (fuzz-diff: a 0-d out_proj_weight crashed this rule).
  if (outWeight.getRank() != 2 || dimsDiffer(outWeight.getDimSize(1), *embed))
    return call.emitError() << "out_proj_weight must be a matrix of "
                            << *embed << " columns, got " << outWeight;
  if (RankedTensorType outBias = h.tensor("out_proj_bias"))
    if (outBias.getRank() != 1 ||
        dimsDiffer(outBias.getDimSize(0), outWeight.getDimSize(0)))
      return call.emitError() << "out_proj_bias must have "
                              << outWeight.getDimSize(0)
                              << " elements, got " << outBias;
  std::optional<bool> separate = call.getBool("use_separate_proj_weight");
  RankedTensorType value = h.tensor("value");
  if (separate && !*separate) {
    if (value && value.getShape() != key.getShape())
      return call.emitError() << "key shape " << key
                              << " does not match value shape " << value;
    if (dimsDiffer(key.getShape().back(), *embed))
      return call.emitError() << "key has embedding size "
                              << key.getShape().back() << ", but the "
                              << "projection takes " << *embed;
    if (RankedTensorType inWeight = h.tensor("in_proj_weight"))
      if (inWeight.getRank() != 2 ||
          dimsDiffer(inWeight.getDimSize(0), 3 * *embed) ||
          dimsDiffer(inWeight.getDimSize(1), *embed))
        return call.emitError() << "in_proj_weight must be " << 3 * *embed
                                << "x" << *embed << ", got " << inWeight;
    if (RankedTensorType inBias = h.tensor("in_proj_bias"))
      if (inBias.getRank() != 1 || dimsDiffer(inBias.getDimSize(0), 3 * *embed))
        return call.emitError() << "in_proj_bias must have " << 3 * *embed
                                << " elements, got " << inBias;
  }
  if (rank == 3 && dimsDiffer(key.getDimSize(1), query.getDimSize(1)))
    return call.emitError() << "query and key have batch sizes "
                            << query.getDimSize(1) << " and "
                            << key.getDimSize(1);
  SmallVector<int64_t> out(query.getShape());
  out.back() = outWeight.getDimSize(0);
  Type output = RankedTensorType::get(out, query.getElementType());
  Type weights = NoneType::get(call.getContext());
  if (*needWeights) {
    int64_t l = query.getDimSize(0), s = key.getDimSize(0);
    if (!ShapedType::isDynamic(s))
      s += (call.isNone("bias_k") ? 0 : 1) + (*zeroAttn ? 1 : 0);
    SmallVector<int64_t> shape;
    if (rank == 3)
      shape.push_back(query.getDimSize(1));
    if (!*average)
      shape.push_back(*heads);
    shape.append({l, s});
    weights = RankedTensorType::get(shape, query.getElementType());
  }
  return h.result(TupleType::get(call.getContext(), {output, weights}));
}

/// Checks a pooling input's rank (`spatial` + 1 or + 2; channel and
/// spatial dims non-empty, as torch requires).
static LogicalResult checkPoolInput(const BoundCall &call,
                                    RankedTensorType input, unsigned spatial) {
  int64_t rank = input.getRank();
  bool ok = rank == spatial + 1 || rank == spatial + 2;
  for (int64_t i = rank == spatial + 2 ? 1 : 0; ok && i < rank; ++i)
    ok = input.getDimSize(i) != 0;
  if (ok)
    return success();
  return call.emitError() << "expects a " << spatial + 1 << "-D or "
                          << spatial + 2
                          << "-D (batched) input with non-empty channel and "
                             "spatial dims, got "
                          << input;
}

/// The window of a max/avg/lp pooling call; nullopt when an argument is
/// traced or the window is invalid (`invalid` set, the error reported).
static std::optional<PoolParams> poolParams(const BoundCall &call,
                                            unsigned spatial, bool &invalid) {
  PoolParams w;
  std::string error;
  ConvDecode status = withArgReader(call, [&](const ArgReader &reader) {
    return decodePool(call.getSignature(), reader, spatial, w, error);
  });
  invalid = status == ConvDecode::Invalid;
  if (invalid)
    call.emitError() << error;
  if (status != ConvDecode::Ok)
    return std::nullopt;
  return w;
}

namespace {
enum class PoolKind { Max, MaxWithIndices, Avg, Lp };
} // namespace
/// aten::max_pool{2,3}d_with_indices_backward: the input's type, after
/// torch's checks of the forward (its input, its window, its output size)
/// and of grad_output and indices (the forward's output shape; int64
/// indices). Without them a nonsense window ran in the interpreter.
LogicalResult maxPoolGrad(const BoundCall &call,
                          SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), grad = h.tensor("grad_output"),
                   indices = h.tensor("indices");
  if (!input || !grad || !indices)
    return h.unknown();
  if (!isa<FloatType>(input.getElementType()))
    return call.emitError() << "expects a floating-point input, got " << input;
  unsigned spatial = call.getSignature()
                         .params[*call.getSignature().lookup("kernel_size")]
                         .type.listSize;
  if (failed(checkPoolInput(call, input, spatial)))
    return failure();
  bool invalid;
  std::optional<PoolParams> w = poolParams(call, spatial, invalid);
  if (!w)
    return invalid ? failure() : h.unknown();
  std::string error = w->checkOutput(input.getShape());
  if (!error.empty())
    return call.emitError() << error;
  SmallVector<int64_t> out(input.getShape());
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t &size = out[input.getRank() - spatial + i];
    size = w->outputSize(i, size);
  }
  if (grad.getShape() != ArrayRef<int64_t>(out))
    return call.emitError() << "expects grad_output of the forward's output "
                               "shape, got "
                            << grad;
  if (indices.getShape() != ArrayRef<int64_t>(out) ||
      !indices.getElementType().isSignlessInteger(64))
    return call.emitError() << "expects int64 indices of the forward's "
                               "output shape, got "
                            << indices;
  return h.result(input);
}


static LogicalResult poolNd(const BoundCall &call,
                            SmallVectorImpl<Type> &results, unsigned spatial,
                            PoolKind kind) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (failed(checkPoolInput(call, input, spatial)))
    return failure();
  bool invalid;
  std::optional<PoolParams> w = poolParams(call, spatial, invalid);
  if (!w)
    return invalid ? failure() : h.unknown();
  bool withIndices =
      kind == PoolKind::MaxWithIndices ||
      (kind == PoolKind::Max && call.getBool("return_indices").value_or(false));
  if (kind == PoolKind::Avg && call.getSignature().lookup("divisor_override") &&
      !call.isNone("divisor_override") &&
      call.getInt("divisor_override") == 0)
    return call.emitError() << "divisor must be not zero";
  // max_pool1d without indices has its own kernel, which allows an empty
  // output.
  if (spatial != 1 || withIndices || kind != PoolKind::Max) {
    std::string error = w->checkOutput(input.getShape());
    if (!error.empty())
      return call.emitError() << error;
  }
  SmallVector<int64_t> out(input.getShape());
  for (unsigned i = 0; i < spatial; ++i) {
    int64_t &size = out[input.getRank() - spatial + i];
    size = w->outputSize(i, size);
    if (!ShapedType::isDynamic(size))
      size = std::max<int64_t>(size, 0);
  }
  Type et = input.getElementType();
  if (kind == PoolKind::Lp && !isa<FloatType>(et)) {
    // x ** p stays integral for an int p (bool becomes int64), and
    // avg_pool's only integer kernel is int64's; the root makes it float.
    bool intExponent = isa_and_nonnull<IntegerAttr>(call.get("norm_type").value);
    if (intExponent && !et.isSignlessInteger(64) && !et.isInteger(1))
      return call.emitError() << "x ** norm_type is " << et
                              << ", which avg_pool has no kernel for";
    et = Float32Type::get(call.getContext());
  }
  Type output = RankedTensorType::get(out, et);
  // With indices, Python gets one value: a tuple (output, indices).
  if (withIndices)
    return h.result(TupleType::get(
        call.getContext(),
        {output,
         RankedTensorType::get(out, IntegerType::get(call.getContext(), 64))}));
  return h.result(output);
}

static LogicalResult adaptivePoolNd(const BoundCall &call,
                                    SmallVectorImpl<Type> &results,
                                    unsigned spatial, PoolKind kind) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  Attribute size = call.get("output_size").value;
  if (!input || !size)
    return h.unknown();
  if (failed(checkPoolInput(call, input, spatial)))
    return failure();
  SmallVector<Attribute> parts;
  if (auto list = dyn_cast<ArrayAttr>(size))
    llvm::append_range(parts, list.getValue());
  else if (auto tuple = dyn_cast<TupleAttr>(size))
    llvm::append_range(parts, tuple.getElements().getValue());
  else if (isa<IntegerAttr>(size))
    parts.assign(spatial, size);
  else
    return call.emitError() << "output_size must be an int or a tuple of "
                            << spatial << " ints or None";
  if (parts.size() != spatial)
    return call.emitError() << "output_size must have " << spatial
                            << " elements, got " << parts.size();
  SmallVector<int64_t> out(input.getShape());
  for (unsigned i = 0; i < spatial; ++i) {
    // None keeps the input's size.
    if (auto v = dyn_cast<IntegerAttr>(parts[i])) {
      if (v.getInt() < 0)
        return call.emitError() << "output_size must be non-negative, got "
                                << v.getInt();
      out[input.getRank() - spatial + i] = v.getInt();
    } else if (!isa<NoneAttr>(parts[i])) {
      return h.unknown();
    }
  }
  Type output = RankedTensorType::get(out, input.getElementType());
  if (kind == PoolKind::MaxWithIndices ||
      (kind == PoolKind::Max && call.getBool("return_indices").value_or(false)))
    return h.result(TupleType::get(
        call.getContext(),
        {output,
         RankedTensorType::get(out, IntegerType::get(call.getContext(), 64))}));
  return h.result(output);
}

#define POOL_RULES(N)                                                          \
  LogicalResult maxPool##N##d(const BoundCall &call,                           \
                              SmallVectorImpl<Type> &results) {                \
    return poolNd(call, results, N, PoolKind::Max);                            \
  }                                                                            \
  LogicalResult maxPool##N##dWithIndices(const BoundCall &call,                \
                                         SmallVectorImpl<Type> &results) {     \
    return poolNd(call, results, N, PoolKind::MaxWithIndices);                 \
  }                                                                            \
  LogicalResult avgPool##N##d(const BoundCall &call,                           \
                              SmallVectorImpl<Type> &results) {                \
    return poolNd(call, results, N, PoolKind::Avg);                            \
  }                                                                            \
  LogicalResult adaptiveAvgPool##N##d(const BoundCall &call,                   \
                                      SmallVectorImpl<Type> &results) {        \
    return adaptivePoolNd(call, results, N, PoolKind::Avg);                    \
  }                                                                            \
  LogicalResult adaptiveMaxPool##N##d(const BoundCall &call,                   \
                                      SmallVectorImpl<Type> &results) {        \
    return adaptivePoolNd(call, results, N, PoolKind::Max);                    \
  }                                                                            \
  LogicalResult adaptiveMaxPool##N##dWithIndices(                              \
      const BoundCall &call, SmallVectorImpl<Type> &results) {                 \
    return adaptivePoolNd(call, results, N, PoolKind::MaxWithIndices);         \
  }
POOL_RULES(1)
POOL_RULES(2)
POOL_RULES(3)
#undef POOL_RULES

LogicalResult lpPool1d(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return poolNd(call, results, 1, PoolKind::Lp);
}

LogicalResult lpPool2d(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return poolNd(call, results, 2, PoolKind::Lp);
}

/// The shape of `input` reduced over `dimName` (None: all dims; a bool
/// in its place, as var(x, False) binds it, also means all; `allIfEmpty`:
/// an empty list means all). Null (unknown) when the dims are traced.
static FailureOr<std::optional<SmallVector<int64_t>>>
reducedShape(const BoundCall &call, RankedTensorType input, StringRef dimName,
             bool keepdim, bool allIfEmpty = false) {
  int64_t rank = input.getRank();
  SmallVector<bool> reduced(rank, true);
  Attribute dimValue = call.get(dimName).value;
  if (!call.isNone(dimName) && !isa_and_nonnull<BoolAttr>(dimValue)) {
    std::optional<SmallVector<int64_t>> dims = call.getInts(dimName, 1);
    if (!dims)
      return std::optional<SmallVector<int64_t>>();
    if (!dims->empty() || !allIfEmpty) {
      reduced.assign(rank, false);
      for (int64_t d : *dims) {
        int64_t n = d < 0 ? d + std::max<int64_t>(rank, 1) : d;
        if (n < 0 || n >= std::max<int64_t>(rank, 1)) {
          call.emitError() << "dim " << d
                           << " is out of range for a tensor of rank "
                           << std::max<int64_t>(rank, 1);
          return failure();
        }
        if (rank)
          reduced[n] = true;
      }
    }
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i)
    if (!reduced[i])
      out.push_back(input.getDimSize(i));
    else if (keepdim)
      out.push_back(1);
  return std::optional<SmallVector<int64_t>>(out);
}

/// A reduction's result: `input` reduced over `dim`, of element type
/// `elt` (null: the input's); `withIndices` adds an int64 tensor of the
/// same shape (a (values, indices) tuple); `pair` a tuple of two `elt`s.
static LogicalResult reductionResult(const BoundCall &call,
                                     SmallVectorImpl<Type> &results, Type elt,
                                     bool allIfEmpty = false,
                                     bool withIndices = false,
                                     bool pair = false,
                                     StringRef dimName = "dim") {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<bool> keepdim = call.getBool("keepdim");
  if (!input || !keepdim)
    return h.unknown();
  auto shape = reducedShape(call, input, dimName, *keepdim, allIfEmpty);
  if (failed(shape))
    return failure();
  if (!*shape)
    return h.unknown();
  Type t = RankedTensorType::get(**shape, elt ? elt : input.getElementType());
  if (withIndices || pair) {
    Type second = pair ? t
                       : RankedTensorType::get(
                             **shape, Builder(call.getContext()).getI64Type());
    return h.result(TupleType::get(call.getContext(), {t, second}));
  }
  return h.result(t);
}

static Type i64Type(const BoundCall &call) {
  return Builder(call.getContext()).getI64Type();
}

/// A reduction over floating-point input only (var, std).
static LogicalResult floatOnlyReduction(const BoundCall &call,
                                        SmallVectorImpl<Type> &results,
                                        bool pair) {
  RankedTensorType input = call.getTensor("input");
  if (input && dtypeFromType(input.getElementType()) &&
      !isa<FloatType>(input.getElementType()))
    return call.emitError() << "argument 'input' of type " << input
                            << " is not supported: std and var take floating "
                               "point tensors";
  return reductionResult(call, results, Type(), /*allIfEmpty=*/true,
                         /*withIndices=*/false, pair);
}

LogicalResult amaxAmin(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return reductionResult(call, results, Type(), /*allIfEmpty=*/true);
}
/// torch.aminmax: (min, max) over `dim` (None: every dim).
LogicalResult aminmax(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return reductionResult(call, results, Type(), /*allIfEmpty=*/false,
                         /*withIndices=*/false, /*pair=*/true);
}
LogicalResult argExtreme(const BoundCall &call,
                         SmallVectorImpl<Type> &results) {
  return reductionResult(call, results, i64Type(call));
}
LogicalResult maxMin(const BoundCall &call, SmallVectorImpl<Type> &results) {
  if (isa<TensorType>(call.getType("dim")))
    return call.emitError() << "the binary form (input, other) is spelled "
                               "torch.maximum / torch.minimum here";
  // torch.max(x, keepdim=True) has no overload in torch ("received an
  // invalid combination of arguments"); kept, it typed a keepdim reduction.
  if (call.isNone("dim") && call.getBool("keepdim").value_or(false))
    return call.emitError() << "keepdim needs a dim: torch has no overload "
                               "(input, keepdim)";
  return reductionResult(call, results, Type(), false,
                         /*withIndices=*/!call.isNone("dim"));
}
LogicalResult allAny(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RankedTensorType input = call.getTensor("input");
  Builder b(call.getContext());
  Type elt = input && input.getElementType().isUnsignedInteger(8)
                 ? input.getElementType()
                 : Type(b.getI1Type());
  return reductionResult(call, results, elt);
}
LogicalResult prod(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RankedTensorType input = call.getTensor("input");
  Type elt;
  if (auto dtype = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = dtype.getType();
  else if (input && isa<IntegerType>(input.getElementType()))
    elt = i64Type(call);
  return reductionResult(call, results, elt);
}
/// prims.prod: torch.prod over each of `dims` in turn, sorted largest
/// first as given (so a later negative dim counts from the reduced rank);
/// none leaves the input as it is.
LogicalResult primsProd(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("inp");
  std::optional<SmallVector<int64_t>> dims = call.getInts("dims");
  if (!input || !dims)
    return h.unknown();
  if (dims->empty())
    return h.result(input);
  Type elt = input.getElementType();
  if (auto dtype = dyn_cast_or_null<DTypeAttr>(call.get("output_dtype").value))
    elt = dtype.getType();
  else if (isa<IntegerType>(elt))
    elt = i64Type(call);
  SmallVector<int64_t> shape(input.getShape());
  SmallVector<int64_t> order(*dims);
  llvm::sort(order, std::greater<int64_t>());
  for (int64_t d : order) {
    // torch.prod has no float16 or bfloat16 kernel, but an empty input
    // never reaches it.
    bool empty = llvm::is_contained(shape, 0);
    if (isa<FloatType>(elt) && !elt.isF32() && !elt.isF64() && !empty)
      return call.emitError() << "\"prod_cpu\" not implemented for '"
                              << torchTypeName(*dtypeFromType(elt)) << "'";
    FailureOr<int64_t> n = h.dim(d, shape.size());
    if (failed(n))
      return failure();
    if (!shape.empty())
      shape.erase(shape.begin() + *n);
  }
  return h.result(shape, elt);
}

LogicalResult moments(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return floatOnlyReduction(call, results, /*pair=*/false);
}
LogicalResult momentsWithMean(const BoundCall &call,
                              SmallVectorImpl<Type> &results) {
  return floatOnlyReduction(call, results, /*pair=*/true);
}
LogicalResult logsumexp(const BoundCall &call,
                        SmallVectorImpl<Type> &results) {
  RankedTensorType input = call.getTensor("input");
  Type elt;
  if (input)
    if (std::optional<DType> d = dtypeFromType(input.getElementType()))
      elt = typeFromDType(call.getContext(), toFloatingDType(*d));
  return reductionResult(call, results, elt);
}
LogicalResult scan(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  std::optional<int64_t> d = call.getInt("dim");
  if (d && failed(h.dim(*d, std::max<int64_t>(input.getRank(), 1))))
    return failure();
  Type elt = input.getElementType();
  if (auto dtype = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = dtype.getType();
  else if (isa<IntegerType>(elt))
    elt = i64Type(call);
  return h.result(input.getShape(), elt);
}

static LogicalResult reduction(const BoundCall &call,
                               SmallVectorImpl<Type> &results, bool isSum) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<bool> keepdim = call.getBool("keepdim");
  if (!input || !keepdim)
    return h.unknown();
  Type elt = input.getElementType();
  // Sums of integers and bools are int64, as in PyTorch.
  if (isSum && isa<IntegerType>(elt))
    elt = IntegerType::get(call.getContext(), 64);
  if (auto dtype = dyn_cast_or_null<DTypeAttr>(call.get("dtype").value))
    elt = dtype.getType();
  else if (!isSum && !isa<FloatType>(elt) && dtypeFromType(elt))
    return call.emitError()
           << "argument 'input' of dtype " << elt
           << " needs a floating-point 'dtype=' (torch cannot infer the "
              "output dtype of a mean of integers)";
  // (dim=[] reduces every dim, as dim=None does.)
  auto shape = reducedShape(call, input, "dim", *keepdim, /*allIfEmpty=*/true);
  if (failed(shape))
    return failure();
  if (!*shape)
    return h.unknown();
  return h.result(**shape, elt);
}

LogicalResult reduce(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return reduction(call, results, /*isSum=*/false);
}

LogicalResult sum(const BoundCall &call, SmallVectorImpl<Type> &results) {
  return reduction(call, results, /*isSum=*/true);
}

/// aten::_trilinear: i1 * i2 * i3, each unsqueezed at its expand dims,
/// summed over sumdim, in i1's dtype (trilinearDTypes: the steps torch
/// takes and the dtypes they refuse).
LogicalResult trilinear(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  std::array<RankedTensorType, 3> in = {h.tensor("i1"), h.tensor("i2"),
                                        h.tensor("i3")};
  std::array<std::optional<SmallVector<int64_t>>, 3> expands = {
      getPyInts(call.get("expand1").value), getPyInts(call.get("expand2").value),
      getPyInts(call.get("expand3").value)};
  std::optional<SmallVector<int64_t>> sumdim = getPyInts(call.get("sumdim").value);
  std::optional<int64_t> unroll = call.getInt("unroll_dim");
  if (!in[0] || !in[1] || !in[2] || !expands[0] || !expands[1] || !expands[2] ||
      !sumdim || !unroll)
    return h.unknown();
  for (int k = 0; k < 3; ++k)
    if (!in[k].hasStaticShape())
      return h.unknown();
  std::string error;
  std::optional<TrilinearShapes> shapes = trilinearShapes(
      {in[0].getShape(), in[1].getShape(), in[2].getShape()},
      {*expands[0], *expands[1], *expands[2]}, *sumdim, *unroll, error);
  if (!shapes)
    return call.emitError() << error;
  std::optional<DType> d1 = dtypeFromType(in[0].getElementType()),
                       d2 = dtypeFromType(in[1].getElementType()),
                       d3 = dtypeFromType(in[2].getElementType());
  if (!d1 || !d2 || !d3)
    return h.unknown();
  DType first, product;
  if (!trilinearDTypes(*d1, *d2, *d3, *shapes, first, product, error))
    return call.emitError() << error;
  return h.result(shapes->result, in[0].getElementType());
}

/// prims.squeeze and prims.split_dim: views of `a`.
LogicalResult primsView(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType a = h.tensor("a");
  if (!a || !a.hasStaticShape())
    return h.unknown();
  std::string error;
  std::optional<SmallVector<int64_t>> shape;
  if (call.getTarget().contains("squeeze")) {
    std::optional<SmallVector<int64_t>> dims =
        getPyInts(call.get("dimensions").value);
    if (!dims)
      return h.unknown();
    shape = primsSqueezeShape(a.getShape(), *dims, error);
  } else {
    std::optional<int64_t> dim = call.getInt("dim"),
                           outer = call.getInt("outer_length");
    if (!dim || !outer)
      return h.unknown();
    shape = primsSplitDimShape(a.getShape(), *dim, *outer, error);
  }
  if (!shape)
    return call.emitError() << error;
  return h.result(*shape, a.getElementType());
}

/// torch.atleast_{1,2,3}d: the input viewed with at least that many dims.
LogicalResult atleast(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  int64_t rank = call.getTarget().ends_with("1d")   ? 1
                 : call.getTarget().ends_with("2d") ? 2
                                                    : 3;
  return h.result(atleastShape(input.getShape(), rank),
                  input.getElementType());
}

LogicalResult flatten(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> start = call.getInt("start_dim"),
                         end = call.getInt("end_dim");
  if (!input || !start || !end)
    return h.unknown();
  int64_t rank = input.getRank();
  if (rank == 0)
    return h.result({1}, input.getElementType());
  FailureOr<int64_t> s = h.dim(*start, rank, "start_dim"),
                     e = h.dim(*end, rank, "end_dim");
  if (failed(s) || failed(e))
    return failure();
  if (*s > *e)
    return call.emitError()
           << "start_dim " << *start << " comes after end_dim " << *end;
  SmallVector<int64_t> out(input.getShape().take_front(*s));
  int64_t product = 1;
  for (int64_t i = *s; i <= *e; ++i)
    product = mulDims(product, input.getDimSize(i));
  out.push_back(product);
  llvm::append_range(out, input.getShape().drop_front(*e + 1));
  return h.result(out, input.getElementType());
}

/// Resolves a target shape with at most one -1 against `numel` elements.
static FailureOr<SmallVector<int64_t>> inferShape(const BoundCall &call,
                                                  RankedTensorType input,
                                                  ArrayRef<int64_t> shape) {
  int64_t numel = input.hasStaticShape() ? input.getNumElements() : kDynamic;
  SmallVector<int64_t> out(shape);
  int64_t known = 1;
  int inferred = -1;
  for (auto [i, d] : llvm::enumerate(out)) {
    if (d == -1) {
      if (inferred >= 0) {
        call.emitError() << "only one dimension can be inferred in "
                         << shapeStr(shape);
        return failure();
      }
      inferred = i;
    } else if (d < 0) {
      call.emitError() << "invalid dimension " << d << " in "
                       << shapeStr(shape);
      return failure();
    } else {
      known *= d;
    }
  }
  if (ShapedType::isDynamic(numel)) {
    if (inferred >= 0)
      out[inferred] = kDynamic;
    return out;
  }
  if (inferred >= 0 && known != 0 && numel % known == 0)
    out[inferred] = numel / known;
  else if (inferred >= 0 || known != numel) {
    call.emitError() << "shape " << shapeStr(shape)
                     << " is invalid for an input of " << numel << " elements";
    return failure();
  }
  return out;
}

/// The dtype of `x.view(dtype)`: the one argument of view's `*size`, when
/// it is a dtype.
static DTypeAttr viewDType(const BoundCall &call) {
  if (call.getTarget() != "Tensor.view")
    return {};
  const BoundCall::Arg &arg = call.get("size");
  if (auto list = dyn_cast_or_null<ArrayAttr>(arg.value))
    if (list.size() == 1)
      return dyn_cast<DTypeAttr>(list[0]);
  return dyn_cast_or_null<DTypeAttr>(arg.value);
}

LogicalResult reshape(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (DTypeAttr to = viewDType(call)) {
    // x.view(dtype): the same bytes read as another dtype; a different
    // element size scales the last dim.
    if (!input)
      return h.unknown();
    std::optional<DType> from = dtypeFromType(input.getElementType()),
                         want = dtypeFromType(to.getType());
    if (!from || !want)
      return h.unknown();
    SmallVector<int64_t> shape;
    if (std::optional<std::string> error =
            viewDTypeShape(*from, *want, input.getShape(), shape))
      return call.emitError() << *error;
    return h.result(shape, to.getType());
  }
  StringRef param = call.getSignature().lookup("shape") ? "shape" : "size";
  std::optional<SmallVector<int64_t>> shape = call.getInts(param);
  if (!input)
    return h.unknown();
  if (!shape) {
    // Traced sizes: only the rank is known.
    const BoundCall::Arg &arg = call.get(param);
    if (arg.elements.empty())
      return h.unknown();
    return h.result(SmallVector<int64_t>(arg.elements.size(), kDynamic),
                    input.getElementType());
  }
  FailureOr<SmallVector<int64_t>> out = inferShape(call, input, *shape);
  if (failed(out))
    return failure();
  // ATen's _reshape_alias(x, size, stride): a reshape when the strides are
  // the contiguous ones of `size` (a size-1 dim's stride does not matter);
  // other strides read the storage in another order.
  if (call.getSignature().lookup("stride")) {
    std::optional<SmallVector<int64_t>> stride = call.getInts("stride");
    if (!stride)
      return h.unknown();
    bool contiguous = stride->size() == out->size();
    for (int64_t d = static_cast<int64_t>(out->size()) - 1, want = 1;
         contiguous && d >= 0; --d) {
      if ((*out)[d] != 1 && (*stride)[d] != want)
        contiguous = false;
      want *= (*out)[d];
    }
    if (!contiguous)
      return call.emitError() << "strides " << shapeStr(*stride)
                              << " are not the contiguous ones of size "
                              << shapeStr(*out)
                              << ": such a view is not supported";
  }
  return h.result(*out, input.getElementType());
}

LogicalResult permute(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> dims = call.getInts("dims");
  if (!input || !dims)
    return h.unknown();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(dims->size()) != rank)
    return call.emitError() << "dims " << shapeStr(*dims)
                            << " do not match the rank of " << input;
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> out;
  for (int64_t d : *dims) {
    FailureOr<int64_t> n = h.dim(d, rank);
    if (failed(n))
      return failure();
    if (seen[*n])
      return call.emitError()
             << "dims " << shapeStr(*dims) << " repeat dimension " << *n;
    seen[*n] = true;
    out.push_back(input.getDimSize(*n));
  }
  return h.result(out, input.getElementType());
}

LogicalResult transpose(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d0 = call.getInt("dim0"), d1 = call.getInt("dim1");
  if (!input || !d0 || !d1)
    return h.unknown();
  int64_t rank = std::max<int64_t>(input.getRank(), 1);
  FailureOr<int64_t> a = h.dim(*d0, rank), b = h.dim(*d1, rank);
  if (failed(a) || failed(b))
    return failure();
  SmallVector<int64_t> out(input.getShape());
  if (!out.empty())
    std::swap(out[*a], out[*b]);
  return h.result(out, input.getElementType());
}

LogicalResult unsqueeze(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dim");
  if (!input || !d)
    return h.unknown();
  FailureOr<int64_t> n = h.dim(*d, input.getRank() + 1);
  if (failed(n))
    return failure();
  SmallVector<int64_t> out(input.getShape());
  out.insert(out.begin() + *n, 1);
  return h.result(out, input.getElementType());
}

LogicalResult squeeze(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  SmallVector<int64_t> out;
  if (call.isNone("dim")) {
    for (int64_t d : input.getShape()) {
      if (ShapedType::isDynamic(d))
        return h.unknown();
      if (d != 1)
        out.push_back(d);
    }
    return h.result(out, input.getElementType());
  }
  std::optional<int64_t> d = call.getInt("dim");
  if (!d)
    return h.unknown();
  int64_t rank = input.getRank();
  FailureOr<int64_t> n = h.dim(*d, std::max<int64_t>(rank, 1));
  if (failed(n))
    return failure();
  for (int64_t i = 0; i < rank; ++i)
    if (i != *n || input.getDimSize(i) != 1)
      out.push_back(input.getDimSize(i));
  return h.result(out, input.getElementType());
}

LogicalResult unflatten(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dim");
  std::optional<SmallVector<int64_t>> sizes = call.getInts("sizes");
  if (!input || !d || !sizes)
    return h.unknown();
  FailureOr<int64_t> n = h.dim(*d, input.getRank());
  if (failed(n))
    return failure();
  RankedTensorType piece =
      RankedTensorType::get({input.getDimSize(*n)}, input.getElementType());
  FailureOr<SmallVector<int64_t>> inner = inferShape(call, piece, *sizes);
  if (failed(inner))
    return failure();
  SmallVector<int64_t> out(input.getShape().take_front(*n));
  llvm::append_range(out, *inner);
  llvm::append_range(out, input.getShape().drop_front(*n + 1));
  return h.result(out, input.getElementType());
}

LogicalResult expand(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> sizes = call.getInts("size");
  if (!input || !sizes)
    return h.unknown();
  int64_t rank = input.getRank(), n = sizes->size();
  if (n < rank)
    return call.emitError() << "cannot expand " << input << " to "
                            << shapeStr(*sizes) << ": fewer dimensions";
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t want = (*sizes)[i];
    int64_t j = i - (n - rank);
    int64_t have = j >= 0 ? input.getDimSize(j) : 1;
    if (want == -1) {
      if (j < 0)
        return call.emitError() << "-1 is not allowed for a new leading "
                                   "dimension in expand";
      out.push_back(have);
    } else if (have == 1 || ShapedType::isDynamic(have) || have == want) {
      out.push_back(want);
    } else {
      return call.emitError()
             << "cannot expand " << input << " to " << shapeStr(*sizes);
    }
  }
  return h.result(out, input.getElementType());
}

/// Ranked tensor element types of a `Tensor[]` argument, or empty.
static SmallVector<RankedTensorType> tensorList(const BoundCall &call,
                                                StringRef name) {
  SmallVector<RankedTensorType> out;
  for (Type t : call.get(name).elements) {
    auto r = dyn_cast_or_null<RankedTensorType>(t);
    if (!r)
      return {};
    out.push_back(r);
  }
  return out;
}

LogicalResult einsum(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  Attribute eq = call.get("equation").value;
  SmallVector<RankedTensorType> ts = tensorList(call, "operands");
  if (auto one = call.getTensor("operands")) // one operand, as it is
    ts = {one};
  if (!eq || !isa<StringAttr>(eq) || ts.empty())
    return h.unknown();
  SmallVector<ArrayRef<int64_t>> shapes;
  for (RankedTensorType t : ts) {
    if (t.getElementType() != ts[0].getElementType())
      return call.emitError() << "operands must have one dtype, got "
                              << ts[0] << " and " << t;
    shapes.push_back(t.getShape());
  }
  std::string error;
  FailureOr<EinsumPlan> plan =
      planEinsum(cast<StringAttr>(eq).getValue(), shapes, error);
  if (failed(plan))
    return call.emitError() << error;
  SmallVector<int64_t> shape;
  for (int64_t label : plan->outputLabels)
    shape.push_back(plan->sizes[label]);
  return h.result(shape, ts[0].getElementType());
}

/// The dtype cat and stack compute in: their tensors promote among
/// themselves as equals, whatever their ranks (a 0-d tensor is no lesser).
static Type listElementType(ArrayRef<RankedTensorType> ts, MLIRContext *ctx) {
  SmallVector<Type> types;
  for (RankedTensorType t : ts)
    types.push_back(RankedTensorType::get({1}, t.getElementType()));
  return resultElementType(types, ctx);
}

LogicalResult cat(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  std::optional<int64_t> d = call.getInt("dim");
  if (ts.empty() || !d)
    return h.unknown();
  int64_t rank = ts[0].getRank();
  FailureOr<int64_t> n = h.dim(*d, rank);
  if (failed(n))
    return failure();
  SmallVector<int64_t> out(ts[0].getShape());
  for (RankedTensorType t : llvm::drop_begin(ts)) {
    if (t.getRank() != rank)
      return call.emitError() << "tensors must have the same rank, got "
                              << ts[0] << " and " << t;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t a = out[i], b = t.getDimSize(i);
      if (i == *n)
        out[i] = ShapedType::isDynamic(a) || ShapedType::isDynamic(b) ? kDynamic
                                                                      : a + b;
      else if (dimsDiffer(a, b))
        return call.emitError() << "sizes of " << ts[0] << " and " << t
                                << " differ in dimension " << i;
    }
  }
  Type elt = listElementType(ts, call.getContext());
  if (!elt)
    return h.unknown();
  return h.result(out, elt);
}

LogicalResult stack(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  std::optional<int64_t> d = call.getInt("dim");
  if (ts.empty() || !d)
    return h.unknown();
  for (RankedTensorType t : ts)
    if (t.getShape() != ts[0].getShape())
      return call.emitError() << "stack expects tensors of one shape, got "
                              << ts[0] << " and " << t;
  FailureOr<int64_t> n = h.dim(*d, ts[0].getRank() + 1);
  if (failed(n))
    return failure();
  SmallVector<int64_t> out(ts[0].getShape());
  out.insert(out.begin() + *n, ts.size());
  Type elt = listElementType(ts, call.getContext());
  if (!elt)
    return h.unknown();
  return h.result(out, elt);
}

LogicalResult chunk(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> chunks = call.getInt("chunks"), d = call.getInt("dim");
  if (!input || !chunks || !d)
    return h.unknown();
  if (*chunks < 1)
    return call.emitError() << "chunks must be positive, got " << *chunks;
  FailureOr<int64_t> n = h.dim(*d, input.getRank());
  if (failed(n))
    return failure();
  int64_t size = input.getDimSize(*n);
  if (ShapedType::isDynamic(size))
    return h.unknown();
  int64_t step = (size + *chunks - 1) / *chunks;
  SmallVector<Type> pieces;
  for (int64_t begin = 0; begin < size || (size == 0 && pieces.empty());
       begin += std::max<int64_t>(step, 1)) {
    SmallVector<int64_t> shape(input.getShape());
    shape[*n] = std::min(step, size - begin);
    pieces.push_back(RankedTensorType::get(shape, input.getElementType()));
  }
  return h.result(TupleType::get(call.getContext(), pieces));
}

/// torch.tensor_split: a tuple of the input's slices along `dim`
/// (tensorSplitPieces).
LogicalResult tensorSplit(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dim");
  if (!input || !d)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "tensor_split expected at least a 1-dimensional tensor, but got "
                               "a tensor with 0 dims";
  FailureOr<int64_t> n = h.dim(*d, input.getRank());
  if (failed(n))
    return failure();
  std::optional<int64_t> sections;
  std::optional<SmallVector<int64_t>> indices;
  bool given = false;
  for (StringRef name : {"indices_or_sections", "sections", "indices", "tensor_indices_or_sections"}) {
    if (call.isNone(name))
      continue;
    if (given)
      return call.emitError() << "expects one of indices_or_sections, sections, indices";
    given = true;
    if (isa_and_nonnull<TensorType>(call.getType(name)))
      return call.emitError() << "takes its sections or indices as ints here, not a tensor";
    if (name != "indices")
      sections = call.getInt(name);
    if (!sections)
      indices = call.getInts(name);
    if (!sections && !indices)
      return h.unknown();
  }
  if (!given)
    return call.emitError() << "expects sections or indices";
  int64_t size = input.getDimSize(*n);
  if (ShapedType::isDynamic(size))
    return h.unknown();
  std::string error;
  auto pieces = tensorSplitPieces(size, sections, indices ? ArrayRef<int64_t>(*indices)
                                                          : ArrayRef<int64_t>(), error);
  if (failed(pieces))
    return call.emitError() << error;
  SmallVector<Type> types;
  for (auto [begin, end] : *pieces) {
    SmallVector<int64_t> shape(input.getShape());
    shape[*n] = end - begin;
    types.push_back(RankedTensorType::get(shape, input.getElementType()));
  }
  return h.result(TupleType::get(call.getContext(), types));
}

/// The size of `x[start:stop:step]` along a dimension of size `size`.
static int64_t sliceSize(int64_t size, std::optional<int64_t> start,
                         std::optional<int64_t> stop, int64_t step) {
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  int64_t b = start ? clamp(*start) : 0, e = stop ? clamp(*stop) : size;
  return e <= b ? 0 : (e - b + step - 1) / step;
}

LogicalResult getitem(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  Type container = call.getType("input");
  const BoundCall::Arg &index = call.get("index");
  if (auto tuple = dyn_cast<TupleType>(container)) {
    auto i = dyn_cast_or_null<IntegerAttr>(index.value);
    if (!i)
      return h.unknown();
    int64_t n = i.getInt() < 0 ? i.getInt() + tuple.size() : i.getInt();
    if (n < 0 || n >= static_cast<int64_t>(tuple.size()))
      return call.emitError()
             << "index " << i.getInt() << " is out of range for " << tuple;
    return h.result(tuple.getType(n));
  }
  if (auto list = dyn_cast<ListType>(container)) {
    if (index.type.isInteger(64))
      return h.result(list.getElementType());
    return h.unknown();
  }
  auto input = dyn_cast<RankedTensorType>(container);
  if (!input || !index.value)
    return h.unknown();
  // Basic indexing: ints, slices, None and one Ellipsis.
  SmallVector<Attribute> items;
  if (auto t = dyn_cast<TupleAttr>(index.value))
    llvm::append_range(items, t.getElements().getValue());
  else if (isa<ArrayAttr>(index.value))
    return h.unknown(); // advanced indexing
  else
    items.push_back(index.value);
  int64_t consumed = llvm::count_if(items, [](Attribute a) {
    return isa<IntegerAttr, SliceAttr>(a) && !isa<BoolAttr>(a);
  });
  int64_t rank = input.getRank();
  if (consumed > rank)
    return call.emitError() << "too many indices for " << input;
  SmallVector<int64_t> out;
  int64_t dim = 0;
  for (Attribute item : items) {
    if (isa<NoneAttr>(item)) {
      out.push_back(1);
    } else if (isa<EllipsisAttr>(item)) {
      for (int64_t k = 0; k < rank - consumed; ++k)
        out.push_back(input.getDimSize(dim++));
    } else if (auto i = dyn_cast<IntegerAttr>(item);
               i && !isa<BoolAttr>(item)) {
      int64_t size = input.getDimSize(dim);
      if (!ShapedType::isDynamic(size) &&
          (i.getInt() >= size || i.getInt() < -size))
        return call.emitError()
               << "index " << i.getInt() << " is out of range for dimension "
               << dim << " of size " << size;
      ++dim;
    } else if (auto s = dyn_cast<SliceAttr>(item)) {
      auto asInt = [](Attribute a) -> std::optional<int64_t> {
        if (auto i = dyn_cast<IntegerAttr>(a))
          return i.getInt();
        return std::nullopt;
      };
      int64_t size = input.getDimSize(dim++);
      std::optional<int64_t> step = asInt(s.getStep());
      if (!isa<NoneAttr>(s.getStep()) && (!step || *step < 1))
        return call.emitError() << "slice step must be a positive int";
      if (ShapedType::isDynamic(size)) {
        out.push_back(kDynamic);
        continue;
      }
      out.push_back(sliceSize(size, asInt(s.getStart()), asInt(s.getStop()),
                              step.value_or(1)));
    } else {
      return h.unknown();
    }
  }
  for (; dim < rank; ++dim)
    out.push_back(input.getDimSize(dim));
  return h.result(out, input.getElementType());
}

LogicalResult size(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  Builder b(call.getContext());
  if (!call.isNone("dim")) {
    if (std::optional<int64_t> d = call.getInt("dim"); d && input)
      if (failed(h.dim(*d, input.getRank())))
        return failure();
    return h.result(b.getI64Type());
  }
  if (!input)
    return h.unknown();
  return h.result(TupleType::get(
      call.getContext(), SmallVector<Type>(input.getRank(), b.getI64Type())));
}

/// The ATen conversions to Python numbers: Float is a float (f64), Int an
/// int (i64), Bool a bool (i1); ScalarImplicit the number of a 0-d tensor's
/// own kind. A tensor argument must hold one element (ScalarImplicit: be
/// 0-d), as torch checks.
LogicalResult pythonNumber(const BoundCall &call,
                           SmallVectorImpl<Type> &results) {
  MLIRContext *ctx = call.getContext();
  StringRef target = call.getTarget();
  Type type = call.getType("a");
  RankedTensorType tensor = call.getTensor("a");
  if (target.starts_with("torch.ops.aten.ScalarImplicit")) {
    if (!tensor)
      return success();
    if (tensor.getRank() != 0)
      return call.emitError() << "Cannot input a tensor of dimension other "
                                 "than 0 as a scalar argument";
    Type e = tensor.getElementType();
    results.push_back(isa<FloatType>(e)     ? Type(Float64Type::get(ctx))
                      : e.isInteger(1)      ? Type(IntegerType::get(ctx, 1))
                                            : Type(IntegerType::get(ctx, 64)));
    return success();
  }
  if (tensor && tensor.hasStaticShape() && tensor.getNumElements() != 1) {
    if (target == "torch.ops.aten.Bool")
      return call.emitError() << "Boolean value of Tensor with "
                              << (tensor.getNumElements() ? "more than one "
                                                            "value"
                                                          : "no values")
                              << " is ambiguous";
    return call.emitError() << "a Tensor with " << tensor.getNumElements()
                            << " elements cannot be converted to Scalar";
  }
  if (!tensor && type && !type.isInteger(64) && !type.isInteger(1) &&
      !type.isF64())
    return call.emitError() << "expects a tensor or a Python number, got "
                            << type;
  results.push_back(target == "torch.ops.aten.Float"
                        ? Type(Float64Type::get(ctx))
                    : target == "torch.ops.aten.Bool"
                        ? Type(IntegerType::get(ctx, 1))
                        : Type(IntegerType::get(ctx, 64)));
  return success();
}

/// prim::min and prim::max of two Python numbers: a float when either is
/// one, else an int (bools count as ints, as TorchScript's overloads do).
LogicalResult primExtreme(const BoundCall &call,
                          SmallVectorImpl<Type> &results) {
  MLIRContext *ctx = call.getContext();
  Type a = call.getType("a"), b = call.getType("b");
  bool isFloat = (a && a.isF64()) || (b && b.isF64());
  results.push_back(isFloat ? Type(Float64Type::get(ctx))
                            : Type(IntegerType::get(ctx, 64)));
  return success();
}

LogicalResult dim(const BoundCall &call, SmallVectorImpl<Type> &results) {
  results.push_back(IntegerType::get(call.getContext(), 64));
  return success();
}

LogicalResult getattr(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  auto name = dyn_cast_or_null<StringAttr>(call.get("name").value);
  RankedTensorType input = h.tensor("input");
  if (!name || !input)
    return h.unknown();
  Builder b(call.getContext());
  if (name.getValue() == "shape")
    return h.result(TupleType::get(
        call.getContext(), SmallVector<Type>(input.getRank(), b.getI64Type())));
  if (name.getValue() == "ndim")
    return h.result(b.getI64Type());
  // Tensor-valued properties: transposes (real dtypes: H is T) and views.
  StringRef n = name.getValue();
  if (n == "data" || n == "real")
    return h.result(input);
  if (n == "T" || n == "H") {
    SmallVector<int64_t> shape(llvm::reverse(input.getShape()));
    return h.result(shape, input.getElementType());
  }
  if (n == "mT" || n == "mH") {
    if (input.getRank() < 2)
      return call.emitError() << "tensor." << n
                              << " is only supported on matrices or batches "
                                 "of matrices, got a tensor of rank "
                              << input.getRank();
    SmallVector<int64_t> shape(input.getShape());
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    return h.result(shape, input.getElementType());
  }
  return h.unknown();
}

LogicalResult none(const BoundCall &call, SmallVectorImpl<Type> &results) {
  results.push_back(NoneType::get(call.getContext()));
  return success();
}

/// The dims of a rank-`rank` result that dim1 and dim2 name (diag_embed),
/// or the error.
static FailureOr<std::pair<int64_t, int64_t>>
distinctDims(const BoundCall &call, RuleHelper &h, int64_t d1, int64_t d2,
             int64_t rank) {
  FailureOr<int64_t> a = h.dim(d1, rank, "dim1"), b = h.dim(d2, rank, "dim2");
  if (failed(a) || failed(b))
    return failure();
  if (*a == *b)
    return call.emitError() << "diagonal dimensions cannot be identical "
                            << d1 << ", " << d2;
  return std::make_pair(*a, *b);
}

/// diag_embed: the last dim becomes a diagonal of the plane (dim1, dim2).
LogicalResult diagEmbed(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> offset = call.getInt("offset"),
                         d1 = call.getInt("dim1"), d2 = call.getInt("dim2");
  if (!input || !offset || !d1 || !d2)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "expects a tensor of at least one dimension";
  int64_t rank = input.getRank() + 1;
  auto dims = distinctDims(call, h, *d1, *d2, rank);
  if (failed(dims))
    return failure();
  int64_t last = input.getShape().back();
  int64_t n = ShapedType::isDynamic(last) ? last : last + std::abs(*offset);
  SmallVector<int64_t> shape(input.getShape().drop_back());
  auto [lo, hi] = std::minmax(dims->first, dims->second);
  shape.insert(shape.begin() + lo, n);
  shape.insert(shape.begin() + hi, n);
  return h.result(shape, input.getElementType());
}

/// rot90: dims swap sizes for odd turns.
LogicalResult rot90(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> k = call.getInt("k");
  std::optional<SmallVector<int64_t>> dims = call.getInts("dims");
  if (!input || !k || !dims)
    return h.unknown();
  if (dims->size() != 2)
    return call.emitError() << "expected total rotation dims == 2, but got "
                            << dims->size();
  if (input.getRank() < 2)
    return call.emitError() << "expected total dims >= 2, but got "
                            << input.getRank();
  FailureOr<int64_t> a = h.dim((*dims)[0], input.getRank()),
                     b = h.dim((*dims)[1], input.getRank());
  if (failed(a) || failed(b))
    return failure();
  if (*a == *b)
    return call.emitError() << "expected rotation dims to be different";
  SmallVector<int64_t> shape(input.getShape());
  if (((*k % 4) + 4) % 2 == 1)
    std::swap(shape[*a], shape[*b]);
  return h.result(shape, input.getElementType());
}

/// count_nonzero: an int64 count over `dim` (all dims when None).
LogicalResult countNonzero(const BoundCall &call,
                           SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  auto shape = reducedShape(call, input, "dim", /*keepdim=*/false,
                            /*allIfEmpty=*/true);
  if (failed(shape))
    return failure();
  if (!*shape)
    return h.unknown();
  return h.result(**shape, Builder(call.getContext()).getI64Type());
}

/// linalg.cross / cross: 3-vectors along `dim` of two broadcast tensors of
/// one dtype.
LogicalResult cross(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType a = h.tensor("input"), b = h.tensor("other");
  if (!a || !b)
    return h.unknown();
  if (a.getElementType() != b.getElementType())
    return call.emitError() << "expects operands of one dtype, got " << a
                            << " and " << b;
  if (a.getRank() != b.getRank())
    return call.emitError() << "inputs must have the same number of "
                               "dimensions";
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, a.getShape(), b.getShape());
  if (failed(shape))
    return failure();
  int64_t rank = shape->size();
  std::optional<int64_t> d;
  if (call.isNone("dim")) {
    // torch.cross's legacy default: the first dim of size 3.
    for (int64_t i = 0; i < rank && !d; ++i)
      if ((*shape)[i] == 3)
        d = i;
    if (!d)
      return call.emitError() << "no dimension of size 3 in input";
  } else if (!(d = call.getInt("dim"))) {
    return h.unknown();
  }
  FailureOr<int64_t> n = h.dim(*d, rank);
  if (failed(n))
    return failure();
  if (a.getDimSize(*n) != 3 || b.getDimSize(*n) != 3)
    return call.emitError() << "inputs dimension " << *d
                            << " must have length 3";
  return h.result(*shape, a.getElementType());
}

/// slice_scatter: the input, with `src` written over a slice.
/// The shape of input[start:end:step] along `dim`, as aten::slice and
/// slice_scatter read their arguments; nullopt when they are not constant.
static FailureOr<std::optional<SmallVector<int64_t>>>
slicedShape(const BoundCall &call, RankedTensorType input) {
  SmallVector<Type> unused;
  RuleHelper h{call, unused}; // (for its dim check only)
  std::optional<int64_t> d = call.getInt("dim"), step = call.getInt("step");
  if (!d || !step)
    return std::optional<SmallVector<int64_t>>();
  if (*step <= 0)
    return call.emitError() << "slice step must be positive, got " << *step;
  FailureOr<int64_t> n = h.dim(*d, std::max<int64_t>(input.getRank(), 1));
  if (failed(n))
    return failure();
  std::optional<int64_t> start, end;
  if ((!call.isNone("start") && !(start = call.getInt("start"))) ||
      (!call.isNone("end") && !(end = call.getInt("end"))))
    return std::optional<SmallVector<int64_t>>();
  SmallVector<int64_t> shape(input.getShape());
  if (input.getRank() && !ShapedType::isDynamic(shape[*n]))
    shape[*n] = clampSlice(shape[*n], start, end, *step).length;
  return std::optional<SmallVector<int64_t>>(shape);
}

LogicalResult sliceScatter(const BoundCall &call,
                           SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), src = h.tensor("src");
  if (!input || !src)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "slice() cannot be applied to a 0-dim tensor.";
  FailureOr<std::optional<SmallVector<int64_t>>> want = slicedShape(call, input);
  if (failed(want))
    return failure();
  if (*want && input.hasStaticShape() && src.hasStaticShape() &&
      ArrayRef<int64_t>(**want) != src.getShape())
    return call.emitError() << "expected src to have a size equal to the "
                               "slice of self: "
                            << src << " for slice shape " << shapeStr(**want);
  return h.result(input);
}

/// select_scatter: the input with `input.select(dim, index)` replaced by
/// src (of that shape, converted to the input's dtype).
LogicalResult selectScatter(const BoundCall &call,
                            SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), src = h.tensor("src");
  std::optional<int64_t> dim = call.getInt("dim"), index = call.getInt("index");
  if (!input || !src || !dim || !index)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "select() cannot be applied to a 0-dim tensor";
  FailureOr<int64_t> d = h.dim(*dim, input.getRank());
  if (failed(d))
    return failure();
  int64_t size = input.getDimSize(*d);
  if (!ShapedType::isDynamic(size) && (*index < -size || *index >= size))
    return call.emitError() << "select(): index " << *index
                            << " out of range for " << input
                            << " at dimension " << *d;
  SmallVector<int64_t> slice(input.getShape());
  slice.erase(slice.begin() + *d);
  if (input.hasStaticShape() && src.hasStaticShape() &&
      ArrayRef<int64_t>(slice) != src.getShape())
    return call.emitError() << "expected src to have a size equal to the "
                               "slice of self: "
                            << src << " for slice shape " << shapeStr(slice);
  return h.result(input);
}

/// kthvalue: values and int64 indices, `dim` reduced (kept with keepdim).
LogicalResult kthvalue(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> k = call.getInt("k"), d = call.getInt("dim");
  if (input && k && d) {
    int64_t n = *d < 0 ? *d + std::max<int64_t>(input.getRank(), 1) : *d;
    int64_t size = input.getRank() && n >= 0 && n < input.getRank()
                       ? input.getDimSize(n)
                       : 1;
    if (!ShapedType::isDynamic(size) && (*k < 1 || *k > size))
      return call.emitError() << "k (" << *k << ") is out of range for "
                              << input;
  }
  return reductionResult(call, results, Type(), /*allIfEmpty=*/false,
                         /*withIndices=*/true);
}

/// Tensor.unfold: windows along `dimension` as a new last dim.
LogicalResult unfoldWindows(const BoundCall &call,
                            SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> d = call.getInt("dimension"), size = call.getInt("size"),
                         step = call.getInt("step");
  if (!input || !d || !size || !step)
    return h.unknown();
  if (*step <= 0)
    return call.emitError() << "step is " << *step << " but must be > 0";
  SmallVector<int64_t> shape(input.getShape());
  if (shape.empty())
    shape.push_back(1);
  FailureOr<int64_t> n = h.dim(*d, shape.size(), "dimension");
  if (failed(n))
    return failure();
  if (!ShapedType::isDynamic(shape[*n])) {
    if (*size < 0 || *size > shape[*n])
      return call.emitError() << "maximum size for tensor at dimension " << *n
                              << " is " << shape[*n] << " but size is "
                              << *size;
    shape[*n] = (shape[*n] - *size) / *step + 1;
  }
  shape.push_back(*size);
  if (input.getRank() == 0)
    shape.erase(shape.begin());
  return h.result(shape, input.getElementType());
}

/// bucketize: the input's shape, int64 (int32 with out_int32).
LogicalResult bucketize(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), b = h.tensor("boundaries");
  std::optional<bool> outInt32 = call.getBool("out_int32");
  if (!input || !b || !outInt32)
    return h.unknown();
  if (b.getRank() != 1)
    return call.emitError() << "boundaries tensor must be 1 dimension, got "
                            << b;
  Builder builder(call.getContext());
  return h.result(input.getShape(), *outInt32 ? builder.getI32Type()
                                              : builder.getI64Type());
}

/// aten::native_layer_norm: (result, mean, rstd); the statistics keep the
/// normalized dims as 1.
LogicalResult nativeLayerNorm(const BoundCall &call,
                              SmallVectorImpl<Type> &results) {
  SmallVector<Type> out;
  if (failed(layerNorm(call, out)))
    return failure();
  RankedTensorType input = call.getTensor("input");
  std::optional<SmallVector<int64_t>> normalized =
      call.getInts("normalized_shape");
  if (out.empty() || !out[0] || !input || !normalized ||
      normalized->size() > static_cast<size_t>(input.getRank()))
    return success();
  SmallVector<int64_t> stat(input.getShape().drop_back(normalized->size()));
  stat.append(normalized->size(), 1);
  Type statType = RankedTensorType::get(stat, input.getElementType());
  results.push_back(
      TupleType::get(call.getContext(), {out[0], statType, statType}));
  return success();
}

/// aten::native_group_norm_backward: (grad_input of the input's type,
/// grad_weight and grad_bias of C elements), each None where output_mask
/// is false, after torch's checks: one float dtype (float32, float64 or
/// bfloat16) throughout, N * C * HxW elements in grad_out and input,
/// N * group in mean and rstd, C divisible by group, C weights. (torch
/// 1.13 fails without a weight when grad_weight is asked for.)
LogicalResult nativeGroupNormBackward(const BoundCall &call,
                                      SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType grad = h.tensor("grad_out"), input = h.tensor("input"),
                   mean = h.tensor("mean"), rstd = h.tensor("rstd");
  std::optional<int64_t> n = call.getInt("N"), c = call.getInt("C"),
                         hw = call.getInt("HxW"), group = call.getInt("group");
  if (!grad || !input || !mean || !rstd || !n || !c || !hw || !group ||
      !call.get("output_mask").value)
    return h.unknown();
  SmallVector<bool> mask;
  if (failed(outputMask(call, mask)))
    return failure();
  RankedTensorType weight = call.getTensor("weight");
  Type et = input.getElementType();
  for (RankedTensorType t : {grad, mean, rstd, weight})
    if (t && t.getElementType() != et)
      return call.emitError() << "expected one dtype for grad_out, input, "
                                 "mean, rstd and weight, got "
                              << t << " beside " << input;
  if (!et.isF32() && !et.isF64() && !et.isBF16())
    return call.emitError() << "has no CPU kernel for " << et;
  auto count = [](RankedTensorType t) -> std::optional<int64_t> {
    if (!t.hasStaticShape())
      return std::nullopt;
    return t.getNumElements();
  };
  if (*group <= 0 || *c % *group)
    return call.emitError() << "expects C (" << *c << ") divisible by group ("
                            << *group << ")";
  for (RankedTensorType t : {grad, input})
    if (count(t) && *count(t) != *n * *c * *hw)
      return call.emitError() << "expects N * C * HxW elements, got " << t;
  for (RankedTensorType t : {mean, rstd})
    if (count(t) && *count(t) != *n * *group)
      return call.emitError() << "Expected mean.numel() == N * group, got "
                              << t;
  if (grad.getShape() != input.getShape())
    return call.emitError() << "expects grad_out of the input's shape, got "
                            << grad << " and " << input;
  if (weight && count(weight) && *count(weight) != *c)
    return call.emitError() << "expects C weights, got " << weight;
  if (!weight && mask[1])
    return call.emitError() << "grad_weight needs a weight (torch 1.13 "
                               "fails without one)";
  Type none = NoneType::get(call.getContext());
  Type channels = RankedTensorType::get({*c}, et);
  Type parts[3] = {mask[0] ? Type(input) : none, mask[1] ? channels : none,
                   mask[2] ? channels : none};
  return h.result(TupleType::get(call.getContext(), parts));
}

/// aten::native_group_norm: (group_norm's result, mean, rstd), the
/// statistics [N, group], after torch's checks: N * C * HxW elements, C
/// divisible by group, weight and bias of C elements in the input's dtype
/// (float32, float64, bfloat16).
LogicalResult nativeGroupNorm(const BoundCall &call,
                              SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> n = call.getInt("N"), c = call.getInt("C"),
                         hw = call.getInt("HxW"), group = call.getInt("group");
  if (!input || !n || !c || !hw || !group)
    return h.unknown();
  Type et = input.getElementType();
  if (!et.isF32() && !et.isF64() && !et.isBF16())
    return call.emitError() << "has no CPU kernel for group norm in " << et;
  if (input.getRank() < 2)
    return call.emitError() << "expects an input of rank 2 or more, got " << input;
  if (input.hasStaticShape() && input.getNumElements() != *n * *c * *hw)
    return call.emitError() << "Expected X.numel() == N * C * HxW, got " << input
                            << " for N = " << *n << ", C = " << *c
                            << ", HxW = " << *hw;
  if (*group <= 0 || *c % *group || dimsDiffer(input.getDimSize(1), *c))
    return call.emitError() << "Expected number of channels in input to be "
                               "divisible by num_groups, but got input "
                            << input << " and num_groups=" << *group;
  for (StringRef name : {"weight", "bias"})
    if (RankedTensorType t = call.getTensor(name)) {
      if (t.getElementType() != et)
        return call.emitError() << "expects a " << name << " of the input's dtype, got " << t;
      if (t.getRank() != 1 || dimsDiffer(t.getDimSize(0), *c))
        return call.emitError() << "Expected " << name
                                << " to be a vector of size equal to the number "
                                   "of channels in input, but got "
                                << t;
    }
  Type stat = RankedTensorType::get({*n, *group}, et);
  return h.result(TupleType::get(call.getContext(), {input, stat, stat}));
}

/// torch._weight_norm: v * (g / norm_except_dim(v, 2, dim)), broadcast, in
/// v's dtype (g of the same, floating). The norm keeps `dim` and has size
/// one elsewhere; dim = -1 takes the whole tensor's (0-d). The fused
/// aten::_weight_norm_interface takes dim 0 or the last only and a g of
/// the norm's shape, and also gives the norm (float32 for bfloat16; no
/// float16 kernel).
LogicalResult weightNorm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType v = h.tensor("v"), g = h.tensor("g");
  std::optional<int64_t> dim = call.getInt("dim");
  if (!v || !g || !dim)
    return h.unknown();
  Type et = v.getElementType();
  int64_t rank = v.getRank();
  // (fuzz-diff: a 0-d v indexed the norm's shape out of bounds;
  // test/Fuzz/diff/weight-norm-0d.)
  if (rank == 0)
    return call.emitError() << "Dimension specified as " << *dim
                            << " but tensor has no dimensions";
  // torch._weight_norm takes the fused kernel unless a dtype is float16 or
  // dim is a middle one; otherwise v * (g / norm), promoted.
  bool interface = call.getTarget().contains("interface");
  bool fused = interface || (!et.isF16() && !g.getElementType().isF16() &&
                             (*dim == 0 || *dim == rank - 1));
  if (fused && (!isa<FloatType>(et) || g.getElementType() != et))
    return call.emitError() << "expects floating-point v and g of one dtype, got "
                            << v << " and " << g;
  if (!isa<FloatType>(et))
    return call.emitError() << "expects a floating-point v, got " << v;
  if (*dim < -1 || *dim >= std::max<int64_t>(rank, 1))
    return call.emitError() << "dim " << *dim << " is out of range for v "
                            << v << " (-1: the whole tensor)";
  SmallVector<int64_t> norm;
  if (*dim >= 0) {
    norm.assign(rank, 1);
    norm[*dim] = v.getDimSize(*dim);
  }
  if (!fused) {
    // (g / norm) in their promoted dtype, then v times it.
    MLIRContext *ctx = call.getContext();
    Type quotient = resultElementType({g, RankedTensorType::get(norm, et)}, ctx);
    FailureOr<SmallVector<int64_t>> qs = broadcastShapes(call, g.getShape(), norm);
    if (!quotient || failed(qs))
      return failure();
    et = resultElementType({v, RankedTensorType::get(*qs, quotient)}, ctx);
    if (!et)
      return h.unknown();
  }
  if (interface) {
    if (et.isF16())
      return call.emitError() << "has no CPU kernel for the fused weight norm "
                                 "in f16";
    if (*dim != 0 && *dim != rank - 1)
      return call.emitError() << "fused kernels can only be applied for the "
                                 "first or last dim, got dim "
                              << *dim;
    if (g.getShape() != ArrayRef<int64_t>(norm))
      return call.emitError() << "expects g of the norm's shape "
                              << shapeStr(norm) << ", got " << g;
  }
  FailureOr<SmallVector<int64_t>> s = broadcastShapes(call, v.getShape(), g.getShape());
  if (failed(s))
    return failure();
  s = broadcastShapes(call, *s, norm);
  if (failed(s))
    return failure();
  Type w = RankedTensorType::get(*s, et);
  if (!interface)
    return h.result(w);
  Type normType = RankedTensorType::get(
      norm, et.isBF16() ? Float32Type::get(call.getContext()) : et);
  return h.result(TupleType::get(call.getContext(), {w, normType}));
}

/// aten::native_batch_norm: (result, saved mean, saved invstd); the saved
/// statistics are empty in eval mode, per channel in training.
LogicalResult nativeBatchNorm(const BoundCall &call,
                              SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<bool> training = call.getBool("training");
  if (!input || !training)
    return h.unknown();
  if (input.getRank() < 2 || !isa<FloatType>(input.getElementType()))
    return call.emitError() << "expects a floating-point input of rank >= 2, "
                               "got "
                            << input;
  Type stat = RankedTensorType::get({*training ? input.getDimSize(1) : 0},
                                    input.getElementType());
  return h.result(TupleType::get(call.getContext(), {input, stat, stat}));
}

/// aten::nll_loss_forward: (nll_loss's result, its 0-d total weight).
LogicalResult nllLossForward(const BoundCall &call,
                             SmallVectorImpl<Type> &results) {
  SmallVector<Type> out;
  if (failed(classLoss(call, out)))
    return failure();
  RankedTensorType input = call.getTensor("input");
  if (out.empty() || !out[0] || !input)
    return success();
  Type total = RankedTensorType::get({}, input.getElementType());
  results.push_back(TupleType::get(call.getContext(), {out[0], total}));
  return success();
}

/// aten::nll_loss_backward, max_pool*_with_indices_backward: the gradient
/// has the (floating-point) input's type.
LogicalResult nllLossBackward(const BoundCall &call,
                              SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (!isa<FloatType>(input.getElementType()))
    return call.emitError() << "expects a floating-point input, got " << input;
  if (!call.getSignature().lookup("target"))
    return h.result(input); // (max pooling's)
  // nll_loss_backward: torch 1.13's checks (its meta function), which the
  // kernel indexes by: a (C) or (N, C) input; an int64 target of one class
  // a sample (a 1-D input takes a 0-d target, or a 1-D one whose first
  // element it reads); a weight per class; grad_output of the samples'
  // shape for reduction 'none' over a batch, else one element.
  RankedTensorType target = h.tensor("target"), total = h.tensor("total_weight"),
                   grad = h.tensor("grad_output");
  std::optional<int64_t> reduction = call.getInt("reduction");
  if (!target || !total || !grad || !reduction)
    return h.unknown();
  if (!target.getElementType().isSignlessInteger(64))
    return call.emitError() << "expects an int64 target, got " << target;
  if (input.getRank() < 1 || input.getRank() > 2)
    return call.emitError() << "expects a 1-D or 2-D input, got " << input;
  if (target.getRank() > 1)
    return call.emitError() << "expects a 0-D or 1-D target, got " << target;
  bool noBatch = input.getRank() == 1 && target.getRank() == 0;
  if (!noBatch && (target.getRank() == 0 ||
                   input.getDimSize(0) != target.getDimSize(0)))
    return call.emitError() << "expects a target of " << input.getDimSize(0)
                            << " elements for input " << input << ", got "
                            << target;
  int64_t classes = input.getShape().back();
  if (RankedTensorType weight = h.tensor("weight"))
    if (weight.getNumElements() != classes)
      return call.emitError() << "expects a weight of " << classes
                              << " elements (one a class), got " << weight;
  if (total.getNumElements() != 1)
    return call.emitError() << "expects a total_weight of one element, got "
                            << total;
  bool perSample = *reduction == 0 && input.getRank() == 2;
  if (perSample ? grad.getRank() != 1 ||
                      grad.getDimSize(0) != input.getDimSize(0)
                : grad.getRank() > 1 || grad.getNumElements() != 1)
    return call.emitError() << "expects grad_output of "
                            << (perSample ? "the target's shape"
                                          : "one element")
                            << " for this reduction, got " << grad;
  return h.result(input);
}

/// embedding_bag: (bags, embedding_dim) in the weight's dtype.
LogicalResult embeddingBag(const BoundCall &call,
                           SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), weight = h.tensor("weight");
  std::optional<bool> includeLast = call.getBool("include_last_offset");
  if (!input || !weight || !includeLast)
    return h.unknown();
  if (weight.getRank() != 2)
    return call.emitError() << "'weight' must be 2-D, got " << weight;
  if (!isa<IntegerType>(input.getElementType()) ||
      input.getElementType().isInteger(1))
    return call.emitError() << "indices must be an integer tensor, got "
                            << input;
  int64_t bags;
  if (input.getRank() == 2) {
    bags = input.getDimSize(0);
  } else if (input.getRank() == 1) {
    RankedTensorType offsets = h.tensor("offsets");
    if (!offsets || offsets.getRank() != 1)
      return call.emitError() << "a 1-D input needs 1-D offsets";
    bags = offsets.getDimSize(0);
    if (*includeLast && !ShapedType::isDynamic(bags))
      bags = std::max<int64_t>(bags - 1, 0);
  } else {
    return call.emitError() << "input has to be 1-D or 2-D, got " << input;
  }
  return h.result({bags, weight.getDimSize(1)}, weight.getElementType());
}

/// ATen's embedding_bag and _embedding_bag: (output, offset2bag, bag_size,
/// max_indices), the last three in the indices' and offsets' promoted
/// dtype (int64 unless both are int32), sized as torch 1.13's CPU kernel
/// sizes them (Kernels/Index.cpp, atenEmbeddingBag, says what they hold):
/// offset2bag is empty on the fast path (sum of float32 or float16 rows,
/// no padding index), else one per index; bag_size and max_indices have
/// one per bag (embedding_bag in sum mode: the offsets' count), and
/// max_indices is [bags, dim] in max mode.
LogicalResult atenEmbeddingBag(const BoundCall &call,
                               SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType weight = h.tensor("weight"), indices = h.tensor("indices"),
                   offsets = h.tensor("offsets");
  std::optional<int64_t> mode = call.getInt("mode");
  std::optional<bool> includeLast = call.getBool("include_last_offset");
  if (!weight || !indices || !offsets || !mode || !includeLast)
    return h.unknown();
  Type w = weight.getElementType();
  if (!w.isF16() && !w.isF32() && !w.isF64())
    return call.emitError() << "Expected tensor for argument #1 'weight' to "
                               "have one of the following scalar types: "
                               "Half, Float, Double; got "
                            << weight;
  for (RankedTensorType t : {indices, offsets})
    if (!t.getElementType().isSignlessInteger(32) &&
        !t.getElementType().isSignlessInteger(64))
      return call.emitError() << "indices and offsets must be int32 or "
                                 "int64, got "
                              << t;
  if (weight.getRank() != 2 || indices.getRank() != 1 || offsets.getRank() != 1)
    return call.emitError() << "expects a 2-D weight and 1-D indices and "
                               "offsets, got "
                            << weight << ", " << indices << " and " << offsets;
  if (*mode < 0 || *mode > 2)
    return call.emitError() << "mode has to be one of sum (0), mean (1) or "
                               "max (2), got "
                            << *mode;
  if (*mode != 0 && !call.isNone("per_sample_weights"))
    return call.emitError() << "embedding_bag: per_sample_weights only "
                               "supported with mode='sum'";
  if (RankedTensorType psw = call.getTensor("per_sample_weights")) {
    if (psw.getElementType() != w)
      return call.emitError() << "expected per_sample_weights of the "
                                 "weight's dtype, got "
                              << psw;
    if (psw.getShape() != indices.getShape())
      return call.emitError() << "expected per_sample_weights.shape to be "
                                 "the indices' shape, got "
                              << psw;
  }
  // A padding index, as the kernel reads it: the padding_idx overload's
  // None is none; _embedding_bag's negative ones are.
  bool raw = call.getTarget() == "torch.ops.aten._embedding_bag.default";
  bool padding = false;
  if (!call.isNone("padding_idx")) {
    std::optional<int64_t> p = call.getInt("padding_idx");
    if (!p)
      return h.unknown();
    padding = raw ? *p >= 0 : true;
  }
  int64_t count = offsets.getDimSize(0), n = indices.getDimSize(0),
          dim = weight.getDimSize(1);
  int64_t bags = ShapedType::isDynamic(count) ? count
                 : *includeLast              ? std::max<int64_t>(count - 1, 0)
                                             : count;
  MLIRContext *ctx = call.getContext();
  Type index = (indices.getElementType().isSignlessInteger(32) &&
                offsets.getElementType().isSignlessInteger(32))
                   ? IntegerType::get(ctx, 32)
                   : IntegerType::get(ctx, 64);
  bool fastPath = *mode == 0 && !padding && (w.isF32() || w.isF16());
  auto vec = [&](int64_t size) { return RankedTensorType::get({size}, index); };
  Type out = RankedTensorType::get({bags, dim}, w);
  // (embedding_bag of a weight that needs no gradient runs torch's
  // forward-only kernel, whose sum-mode bag_size has the offsets' count;
  // _embedding_bag's has one per bag.)
  Type bagSize = vec(*mode == 0 && !raw ? count : bags);
  Type maxIndices = *mode == 2 ? RankedTensorType::get({bags, dim}, index)
                               : bagSize;
  results.push_back(TupleType::get(
      ctx, {out, vec(fastPath ? 0 : n), bagSize, maxIndices}));
  return success();
}

/// grid_sample: (N, C, H, W) sampled at a grid (N, H_out, W_out, 2).
LogicalResult gridSample(const BoundCall &call,
                         SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), grid = h.tensor("grid");
  if (!input || !grid)
    return h.unknown();
  if (input.getRank() != 4 || grid.getRank() != 4 || grid.getDimSize(3) != 2)
    return call.emitError() << "expects a 4-D input (N, C, H, W) and a grid "
                               "(N, H_out, W_out, 2), got "
                            << input << " and " << grid;
  if (input.getElementType() != grid.getElementType())
    return call.emitError() << "expects input and grid of one dtype, got "
                            << input << " and " << grid;
  return h.result({input.getDimSize(0), input.getDimSize(1),
                   grid.getDimSize(1), grid.getDimSize(2)},
                  input.getElementType());
}

/// affine_grid: (N, H, W, 2) or (N, D, H, W, 3) from `size`.
LogicalResult affineGrid(const BoundCall &call,
                         SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType theta = h.tensor("theta");
  std::optional<SmallVector<int64_t>> size = call.getInts("size");
  if (!theta || !size)
    return h.unknown();
  int64_t spatial = static_cast<int64_t>(size->size()) - 2;
  if (spatial != 2 && spatial != 3)
    return call.emitError() << "affine_grid only supports 4D and 5D sizes";
  SmallVector<int64_t> shape = {(*size)[0]};
  shape.append(size->begin() + 2, size->end());
  shape.push_back(spatial);
  return h.result(shape, theta.getElementType());
}

/// The 2-D window of F.unfold / F.fold; nullopt when not constant.
static std::optional<std::array<SmallVector<int64_t>, 4>>
blockParams(const BoundCall &call) {
  std::array<SmallVector<int64_t>, 4> out;
  const char *names[] = {"kernel_size", "dilation", "padding", "stride"};
  for (int i = 0; i < 4; ++i) {
    std::optional<SmallVector<int64_t>> v = call.getInts(names[i], 2);
    if (!v || v->size() != 2)
      return std::nullopt;
    out[i] = *v;
  }
  return out;
}

/// torch's checks of F.unfold/F.fold's block parameters (im2col_shape_check):
/// positive kernel, dilation and stride, non-negative padding.
static LogicalResult
checkBlockParams(const BoundCall &call,
                 const std::array<SmallVector<int64_t>, 4> &p) {
  const char *names[] = {"kernel size", "dilation", "padding", "stride"};
  for (int i = 0; i < 4; ++i)
    for (int64_t v : p[i])
      if (i == 2 ? v < 0 : v <= 0)
        return call.emitError()
               << names[i] << " should be "
               << (i == 2 ? "non-negative" : "greater than zero") << ", got "
               << v;
  return success();
}

/// F.unfold: (N, C, H, W) -> (N, C * kh * kw, L).
LogicalResult im2col(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  auto p = blockParams(call);
  if (!input || !p)
    return h.unknown();
  int64_t rank = input.getRank();
  if (rank != 3 && rank != 4)
    return call.emitError() << "expects a 3-D or 4-D input, got " << input;
  if (!isa<FloatType>(input.getElementType()))
    return call.emitError() << "argument 'input' of type " << input
                            << " is not supported: im2col takes floating "
                               "point tensors";
  ArrayRef<int64_t> s = input.getShape();
  if (!input.hasStaticShape())
    return h.unknown();
  if (failed(checkBlockParams(call, *p)))
    return failure();
  auto [k, d, pad, st] = *p;
  int64_t oh = slidingBlocks(s[rank - 2], k[0], d[0], pad[0], st[0]),
          ow = slidingBlocks(s[rank - 1], k[1], d[1], pad[1], st[1]);
  if (oh < 1 || ow < 1)
    return call.emitError() << "the sliding blocks do not fit " << input;
  SmallVector<int64_t> shape = {s[rank - 3] * k[0] * k[1], oh * ow};
  if (rank == 4)
    shape.insert(shape.begin(), s[0]);
  return h.result(shape, input.getElementType());
}

/// F.fold: (N, C * kh * kw, L) -> (N, C, H, W).
LogicalResult col2im(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  auto p = blockParams(call);
  std::optional<SmallVector<int64_t>> size = call.getInts("output_size", 2);
  if (!input || !p || !size)
    return h.unknown();
  int64_t rank = input.getRank();
  if (rank != 2 && rank != 3)
    return call.emitError() << "expects a 2-D or 3-D input, got " << input;
  if (!isa<FloatType>(input.getElementType()))
    return call.emitError() << "argument 'input' of type " << input
                            << " is not supported: col2im takes floating "
                               "point tensors";
  if (size->size() != 2 || !input.hasStaticShape())
    return h.unknown();
  if (failed(checkBlockParams(call, *p)))
    return failure();
  auto [k, d, pad, st] = *p;
  ArrayRef<int64_t> s = input.getShape();
  int64_t rows = s[rank - 2], block = k[0] * k[1];
  if (rows % block)
    return call.emitError() << "expected size of input's dimension 1 to be "
                               "divisible by the product of kernel_size, got "
                            << rows;
  int64_t blocks = slidingBlocks((*size)[0], k[0], d[0], pad[0], st[0]) *
                   slidingBlocks((*size)[1], k[1], d[1], pad[1], st[1]);
  if (blocks != s[rank - 1])
    return call.emitError() << "expected " << blocks << " blocks in the "
                            << "input's last dimension, got " << s[rank - 1];
  SmallVector<int64_t> shape = {rows / block, (*size)[0], (*size)[1]};
  if (rank == 3)
    shape.insert(shape.begin(), s[0]);
  return h.result(shape, input.getElementType());
}

/// is_floating_point: a Python bool.
LogicalResult isFloatingPoint(const BoundCall &call,
                              SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  return h.result(Builder(call.getContext()).getI1Type());
}

/// broadcast_tensors: each tensor at the common broadcast shape.
LogicalResult broadcastTensors(const BoundCall &call,
                               SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  if (ts.empty())
    return h.unknown();
  SmallVector<int64_t> shape;
  for (RankedTensorType t : ts) {
    FailureOr<SmallVector<int64_t>> s = broadcastShapes(call, shape, t.getShape());
    if (failed(s))
      return failure();
    shape = *s;
  }
  SmallVector<Type> out;
  for (RankedTensorType t : ts)
    out.push_back(RankedTensorType::get(shape, t.getElementType()));
  return h.result(TupleType::get(call.getContext(), out));
}

/// isclose: bool at the broadcast shape; operands of one dtype.
LogicalResult isclose(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType a = h.tensor("input"), b = h.tensor("other");
  if (!a || !b)
    return h.unknown();
  if (a.getElementType() != b.getElementType())
    return call.emitError() << "expects operands of one dtype, got " << a
                            << " and " << b;
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, a.getShape(), b.getShape());
  if (failed(shape))
    return failure();
  return h.result(*shape, Builder(call.getContext()).getI1Type());
}

/// addbmm: input + the sum over the batch of batch1 @ batch2: (n, p).
LogicalResult addbmm(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), a = h.tensor("batch1"),
                   b = h.tensor("batch2");
  if (!input || !a || !b)
    return h.unknown();
  if (a.getRank() != 3 || b.getRank() != 3)
    return call.emitError() << "batch1 and batch2 must be 3-D, got " << a
                            << " and " << b;
  if (a.getElementType() != b.getElementType() ||
      a.getElementType() != input.getElementType())
    return call.emitError() << "expects operands of one dtype";
  if (failed(checkScalesFit(call, a.getElementType())))
    return failure();
  SmallVector<int64_t> out = {a.getDimSize(1), b.getDimSize(2)};
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, input.getShape(), out);
  if (failed(shape))
    return failure();
  if (ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(out))
    return call.emitError() << "input " << input << " does not broadcast to "
                            << shapeStr(out);
  return h.result(out, a.getElementType());
}

/// bilinear: (*, out_features) in the operands' dtype.
LogicalResult bilinear(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType a = h.tensor("input1"), b = h.tensor("input2"),
                   w = h.tensor("weight");
  if (!a || !b || !w)
    return h.unknown();
  if (w.getRank() != 3 || a.getRank() < 1 ||
      a.getShape().drop_back() != b.getShape().drop_back() ||
      a.getShape().back() != w.getDimSize(1) ||
      b.getShape().back() != w.getDimSize(2))
    return call.emitError() << "expects inputs (*, in1) and (*, in2) and a "
                               "weight (out, in1, in2), got "
                            << a << ", " << b << " and " << w;
  if (a.getElementType() != w.getElementType() ||
      b.getElementType() != w.getElementType())
    return call.emitError() << "expects operands of one dtype";
  SmallVector<int64_t> shape(a.getShape().drop_back());
  shape.push_back(w.getDimSize(0));
  return h.result(shape, w.getElementType());
}

/// det / slogdet / inv over batches of square floating-point matrices.
LogicalResult squareMatrices(const BoundCall &call,
                             SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType a = h.tensor("input");
  if (!a)
    return h.unknown();
  int64_t r = a.getRank();
  if (r < 2 || a.getDimSize(r - 1) != a.getDimSize(r - 2))
    return call.emitError() << "A must be batches of square matrices, got "
                            << a;
  if (!isa<FloatType>(a.getElementType()))
    return call.emitError() << "expected a floating point tensor, got " << a;
  StringRef t = call.getTarget();
  if (t == "torch.linalg.inv")
    return h.result(a);
  auto batch = RankedTensorType::get(a.getShape().drop_back(2),
                                     a.getElementType());
  if (t == "torch.linalg.slogdet")
    return h.result(TupleType::get(call.getContext(), {batch, batch}));
  return h.result(batch);
}

/// torch.fill (x.fill_(v)): the input's type; a tensor value must be 0-d.
LogicalResult fillValue(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), value = h.tensor("value");
  if (value && value.getRank() != 0)
    return call.emitError() << "fill_ only supports 0-dimension value "
                               "tensors, got "
                            << value;
  if (!input)
    return h.unknown();
  return h.result(input);
}

/// aten::copy (x.copy_(src)): src broadcast to the input's shape, in its
/// dtype.
LogicalResult copyInto(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input"), src = h.tensor("src");
  if (!input || !src)
    return h.unknown();
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, input.getShape(), src.getShape());
  if (failed(shape))
    return failure();
  if (input.hasStaticShape() && ArrayRef<int64_t>(*shape) != input.getShape())
    return call.emitError() << "cannot broadcast " << src << " to " << input;
  return h.result(input);
}

/// aten::slice: one dim sliced as Python does.
LogicalResult atenSlice(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getRank() == 0)
    return call.emitError() << "slice() cannot be applied to a 0-dim tensor";
  FailureOr<std::optional<SmallVector<int64_t>>> shape = slicedShape(call, input);
  if (failed(shape))
    return failure();
  if (!*shape)
    return h.unknown();
  return h.result(**shape, input.getElementType());
}

/// as_strided: `size` elements of the input's (contiguous) storage.
LogicalResult asStrided(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  std::optional<SmallVector<int64_t>> size = call.getInts("size"),
                                      stride = call.getInts("stride");
  if (!input || !size || !stride)
    return h.unknown();
  if (size->size() != stride->size())
    return call.emitError() << "mismatch in length of strides and shape";
  for (auto [n, st] : llvm::zip(*size, *stride))
    if (n < 0 || st < 0)
      return call.emitError() << "sizes and strides must be non-negative";
  return h.result(*size, input.getElementType());
}

/// aten::index with integer index tensors (and Nones): the index tensors
/// broadcast together, and their shape replaces the indexed dims where those
/// are adjacent, else leads. Bool and uint8 masks select a data-dependent
/// number of elements: unknown.
LogicalResult atenIndex(const BoundCall &call, SmallVectorImpl<Type> &results) {
  RuleHelper h{call, results};
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  const BoundCall::Arg &indices = call.get("indices");
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(indices.elements.size()) > rank)
    return call.emitError() << "too many indices for a tensor of rank "
                            << rank;
  SmallVector<int64_t> broadcast;
  int64_t first = -1, last = -1, count = 0;
  SmallVector<bool> indexed(rank, false);
  for (auto [i, t] : llvm::enumerate(indices.elements)) {
    auto tensor = dyn_cast_or_null<RankedTensorType>(t);
    if (!tensor) {
      if (t && !isa<traced::NoneType>(t))
        return h.unknown();
      continue;
    }
    Type e = tensor.getElementType();
    if (!isa<IntegerType>(e) || e.isInteger(1) || e.isUnsignedInteger())
      return h.unknown();
    SmallVector<int64_t> merged;
    if (!OpTrait::util::getBroadcastedShape(broadcast, tensor.getShape(), merged))
      return call.emitError() << "shape mismatch: indexing tensors could not "
                                 "be broadcast together";
    broadcast = merged;
    indexed[i] = true;
    first = first < 0 ? i : first;
    last = i;
    ++count;
  }
  if (count == 0)
    return h.unknown();
  SmallVector<int64_t> shape;
  if (last - first + 1 == count) {
    llvm::append_range(shape, input.getShape().take_front(first));
    llvm::append_range(shape, broadcast);
    llvm::append_range(shape, input.getShape().drop_front(last + 1));
  } else {
    shape = broadcast;
    for (int64_t i = 0; i < rank; ++i)
      if (!indexed[i])
        shape.push_back(input.getDimSize(i));
  }
  return h.result(shape, input.getElementType());
}

/// Every rule by the name the table's rows give it. A new rule is a
/// function above and a line here; OpTable.cpp refers to it by name.
const llvm::StringMap<ResultRule> &ruleTable() {
  static const llvm::StringMap<ResultRule> table = [] {
    llvm::StringMap<ResultRule> byName;
#define TRACED_RULE(name) byName[#name] = name;
    TRACED_RULE(activationGrad)
    TRACED_RULE(rreluNoiseGrad)
    TRACED_RULE(adaptiveAvgPool1d)
    TRACED_RULE(adaptiveAvgPool2d)
    TRACED_RULE(adaptiveAvgPool3d)
    TRACED_RULE(adaptiveMaxPool1d)
    TRACED_RULE(adaptiveMaxPool1dWithIndices)
    TRACED_RULE(adaptiveMaxPool2d)
    TRACED_RULE(adaptiveMaxPool2dWithIndices)
    TRACED_RULE(adaptiveMaxPool3d)
    TRACED_RULE(adaptiveMaxPool3dWithIndices)
    TRACED_RULE(addbmm)
    TRACED_RULE(nonzero)
    TRACED_RULE(repeatInterleaveCounts)
    TRACED_RULE(bincount)
    TRACED_RULE(addcdiv)
    TRACED_RULE(addcmul)
    TRACED_RULE(addmm)
    TRACED_RULE(affineGrid)
    TRACED_RULE(allAny)
    TRACED_RULE(amaxAmin)
    TRACED_RULE(arange)
    TRACED_RULE(argExtreme)
    TRACED_RULE(arithmetic)
    TRACED_RULE(asStrided)
    TRACED_RULE(atenIndex)
    TRACED_RULE(atenSlice)
    TRACED_RULE(avgPool1d)
    TRACED_RULE(avgPool2d)
    TRACED_RULE(avgPool3d)
    TRACED_RULE(baddbmm)
    TRACED_RULE(batchNorm)
    TRACED_RULE(bilinear)
    TRACED_RULE(bitwise)
    TRACED_RULE(bmm)
    TRACED_RULE(broadcastTensors)
    TRACED_RULE(bucketize)
    TRACED_RULE(castTo<DType::BF16>)
    TRACED_RULE(castTo<DType::Bool>)
    TRACED_RULE(castTo<DType::F16>)
    TRACED_RULE(castTo<DType::F32>)
    TRACED_RULE(castTo<DType::F64>)
    TRACED_RULE(castTo<DType::I16>)
    TRACED_RULE(castTo<DType::I32>)
    TRACED_RULE(castTo<DType::I64>)
    TRACED_RULE(castTo<DType::I8>)
    TRACED_RULE(castTo<DType::U8>)
    TRACED_RULE(cat)
    TRACED_RULE(channelShuffle)
    TRACED_RULE(chunk)
    TRACED_RULE(clamp)
    TRACED_RULE(classLoss)
    TRACED_RULE(col2im)
    TRACED_RULE(comparison)
    TRACED_RULE(conv)
    TRACED_RULE(convolutionBackward)
    TRACED_RULE(maxUnpool)
    TRACED_RULE(fakeQuantize)
    TRACED_RULE(upsampleNearestBackward)
    TRACED_RULE(convTbc)
    TRACED_RULE(copyInto)
    TRACED_RULE(countNonzero)
    TRACED_RULE(cross)
    TRACED_RULE(diag)
    TRACED_RULE(diagEmbed)
    TRACED_RULE(diagonal)
    TRACED_RULE(dim)
    TRACED_RULE(einsum)
    TRACED_RULE(embedding)
    TRACED_RULE(embeddingBag)
    TRACED_RULE(atenEmbeddingBag)
    TRACED_RULE(expand)
    TRACED_RULE(eye)
    TRACED_RULE(factory)
    TRACED_RULE(fillValue)
    TRACED_RULE(flatten)
    TRACED_RULE(floatBinary)
    TRACED_RULE(floatPointwise)
    TRACED_RULE(floatPower)
    TRACED_RULE(ldexp)
    TRACED_RULE(atleast)
    TRACED_RULE(aminmax)
    TRACED_RULE(selectScatter)
    TRACED_RULE(softmaxBackwardData)
    TRACED_RULE(upsampleNearest)
    TRACED_RULE(trilinear)
    TRACED_RULE(primsView)
    TRACED_RULE(floatUnary)
    TRACED_RULE(full)
    TRACED_RULE(fullLike)
    TRACED_RULE(gather)
    TRACED_RULE(geluGrad)
    TRACED_RULE(getattr)
    TRACED_RULE(getitem)
    TRACED_RULE(glu)
    TRACED_RULE(gridSample)
    TRACED_RULE(groupNorm)
    TRACED_RULE(instanceNorm)
    TRACED_RULE(tensorSplit)
    TRACED_RULE(heaviside)
    TRACED_RULE(im2col)
    TRACED_RULE(indexPut)
    TRACED_RULE(indexSelect)
    TRACED_RULE(interpolate)
    TRACED_RULE(isFloatingPoint)
    TRACED_RULE(isclose)
    TRACED_RULE(kthvalue)
    TRACED_RULE(layerNorm)
    TRACED_RULE(lerp)
    TRACED_RULE(linear)
    TRACED_RULE(linspace)
    TRACED_RULE(logsumexp)
    TRACED_RULE(lpPool1d)
    TRACED_RULE(lpPool2d)
    TRACED_RULE(maskedFill)
    TRACED_RULE(maskedScatter)
    TRACED_RULE(matmul)
    TRACED_RULE(maxMin)
    TRACED_RULE(maxPoolGrad)
    TRACED_RULE(prelu)
    TRACED_RULE(renorm)
    TRACED_RULE(maxPool1d)
    TRACED_RULE(maxPool1dWithIndices)
    TRACED_RULE(maxPool2d)
    TRACED_RULE(maxPool2dWithIndices)
    TRACED_RULE(maxPool3d)
    TRACED_RULE(maxPool3dWithIndices)
    TRACED_RULE(meshgrid)
    TRACED_RULE(mm)
    TRACED_RULE(moments)
    TRACED_RULE(momentsWithMean)
    TRACED_RULE(movedim)
    TRACED_RULE(multiHeadAttention)
    TRACED_RULE(narrow)
    TRACED_RULE(nativeBatchNorm)
    TRACED_RULE(nativeLayerNorm)
    TRACED_RULE(nativeDropout)
    TRACED_RULE(nativeGroupNorm)
    TRACED_RULE(nativeGroupNormBackward)
    TRACED_RULE(weightNorm)
    TRACED_RULE(newFilled)
    TRACED_RULE(nllLossBackward)
    TRACED_RULE(nllLossForward)
    TRACED_RULE(none)
    TRACED_RULE(norm)
    TRACED_RULE(numel)
    TRACED_RULE(oneHot)
    TRACED_RULE(pad)
    TRACED_RULE(pairDistance)
    TRACED_RULE(permute)
    TRACED_RULE(pixelShuffle)
    TRACED_RULE(pointwiseLoss)
    TRACED_RULE(power)
    TRACED_RULE(predicate)
    TRACED_RULE(prod)
    TRACED_RULE(primsProd)
    TRACED_RULE(reduce)
    TRACED_RULE(repeat)
    TRACED_RULE(repeatInterleave)
    TRACED_RULE(reshape)
    TRACED_RULE(rot90)
    TRACED_RULE(rsub)
    TRACED_RULE(sameAsInput)
    TRACED_RULE(celu)
    TRACED_RULE(thresholdGrad)
    TRACED_RULE(scan)
    TRACED_RULE(scatter)
    TRACED_RULE(select)
    TRACED_RULE(shapeAs)
    TRACED_RULE(size)
    TRACED_RULE(pythonNumber)
    TRACED_RULE(primExtreme)
    TRACED_RULE(sliceScatter)
    TRACED_RULE(softmax)
    TRACED_RULE(sortLike)
    TRACED_RULE(split)
    TRACED_RULE(square)
    TRACED_RULE(squareMatrices)
    TRACED_RULE(squeeze)
    TRACED_RULE(stack)
    TRACED_RULE(stackLike)
    TRACED_RULE(sum)
    TRACED_RULE(t)
    TRACED_RULE(takeAlongDim)
    TRACED_RULE(to)
    TRACED_RULE(trace)
    TRACED_RULE(transpose)
    TRACED_RULE(triangle)
    TRACED_RULE(trueDivide)
    TRACED_RULE(typeAs)
    TRACED_RULE(unbind)
    TRACED_RULE(unflatten)
    TRACED_RULE(unfoldWindows)
    TRACED_RULE(unsqueeze)
    TRACED_RULE(vectorProduct)
    TRACED_RULE(where)
#undef TRACED_RULE
    return byName;
  }();
  return table;
}

} // namespace mlir::traced::rules

//===----------------------------------------------------------------------===//
// einsum
//===----------------------------------------------------------------------===//

FailureOr<EinsumPlan>
traced::planEinsum(StringRef equation, ArrayRef<ArrayRef<int64_t>> shapes,
                   std::string &error) {
  std::string eq;
  for (char c : equation)
    if (c != ' ')
      eq.push_back(c);
  StringRef lhs = eq, rhs;
  bool explicitOutput = false;
  if (size_t arrow = lhs.find("->"); arrow != StringRef::npos) {
    rhs = lhs.substr(arrow + 2);
    lhs = lhs.substr(0, arrow);
    explicitOutput = true;
  }
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != shapes.size()) {
    error = "the equation has " + std::to_string(terms.size()) +
            " operand(s), but " + std::to_string(shapes.size()) +
            " were given";
    return failure();
  }
  // Labels 0-51 are letters; ellipsis dims are 52 + (distance from the
  // right end of the ellipsis).
  EinsumPlan plan;
  plan.sizes.assign(52 + 64, -2); // -2: unused
  int64_t ellipsisRank = 0;
  SmallVector<int64_t> counts(52 + 64, 0);
  auto labelOf = [](char c) -> int64_t {
    if (c >= 'a' && c <= 'z')
      return c - 'a';
    if (c >= 'A' && c <= 'Z')
      return 26 + (c - 'A');
    return -1;
  };
  auto bind = [&](int64_t label, int64_t size) -> bool {
    int64_t &known = plan.sizes[label];
    if (known == -2 || known == 1 || ShapedType::isDynamic(known))
      known = size == 1 && known != -2 ? known : size;
    else if (size != known && size != 1 && !ShapedType::isDynamic(size))
      return false;
    return true;
  };
  for (auto [i, term] : llvm::enumerate(terms)) {
    ArrayRef<int64_t> shape = shapes[i];
    size_t dots = term.find("...");
    int64_t explicitDims = term.size() - (dots == StringRef::npos ? 0 : 3);
    int64_t rank = shape.size();
    if (dots == StringRef::npos ? explicitDims != rank : explicitDims > rank) {
      error = "operand " + std::to_string(i) + " has " +
              std::to_string(rank) + " dims, but its subscript '" +
              term.str() + "' names " + std::to_string(explicitDims);
      return failure();
    }
    SmallVector<int64_t> labels;
    int64_t dim = 0;
    for (size_t k = 0; k < term.size(); ++k) {
      if (k == dots) {
        int64_t n = rank - explicitDims;
        ellipsisRank = std::max(ellipsisRank, n);
        for (int64_t e = 0; e < n; ++e) {
          int64_t label = 52 + (n - 1 - e);
          labels.push_back(label);
          if (!bind(label, shape[dim++])) {
            error = "ellipsis dims of operand " + std::to_string(i) +
                    " do not broadcast";
            return failure();
          }
        }
        k += 2;
        continue;
      }
      int64_t label = labelOf(term[k]);
      if (label < 0) {
        error = std::string("invalid subscript '") + term[k] + "'";
        return failure();
      }
      labels.push_back(label);
      ++counts[label];
      if (!bind(label, shape[dim++])) {
        error = std::string("subscript '") + term[k] +
                "' has sizes that differ between operands";
        return failure();
      }
    }
    plan.operandLabels.push_back(labels);
  }
  if (explicitOutput) {
    size_t dots = rhs.find("...");
    for (size_t k = 0; k < rhs.size(); ++k) {
      if (k == dots) {
        for (int64_t e = ellipsisRank - 1; e >= 0; --e)
          plan.outputLabels.push_back(52 + e);
        k += 2;
        continue;
      }
      int64_t label = labelOf(rhs[k]);
      if (label < 0 || plan.sizes[label] == -2) {
        error = std::string("output subscript '") + rhs[k] +
                "' does not appear in the inputs";
        return failure();
      }
      plan.outputLabels.push_back(label);
    }
  } else {
    // Implicit output: the ellipsis dims, then the labels used once, sorted.
    for (int64_t e = ellipsisRank - 1; e >= 0; --e)
      plan.outputLabels.push_back(52 + e);
    for (int64_t label = 0; label < 52; ++label)
      if (counts[label] == 1)
        plan.outputLabels.push_back(label);
  }
  return plan;
}

FailureOr<SmallVector<int64_t>>
traced::movedimPermutation(ArrayRef<int64_t> source,
                           ArrayRef<int64_t> destination, int64_t rank,
                           std::string &error) {
  if (source.size() != destination.size()) {
    error = "source and destination must have the same number of dims";
    return failure();
  }
  int64_t dims = std::max<int64_t>(rank, 1);
  SmallVector<int64_t> perm(rank, -1);
  SmallVector<bool> used(rank, false);
  for (auto [s, t] : llvm::zip(source, destination)) {
    int64_t a = s < 0 ? s + dims : s, b = t < 0 ? t + dims : t;
    if (a < 0 || a >= dims || b < 0 || b >= dims) {
      error = "dim " + std::to_string(a < 0 || a >= dims ? s : t) +
              " is out of range for a tensor of rank " + std::to_string(dims);
      return failure();
    }
    if (rank == 0)
      continue;
    if (perm[b] != -1 || used[a]) {
      error = "repeated dim";
      return failure();
    }
    perm[b] = a;
    used[a] = true;
  }
  int64_t next = 0;
  for (int64_t &p : perm) {
    if (p != -1)
      continue;
    while (used[next])
      ++next;
    p = next;
    used[next] = true;
  }
  return perm;
}
