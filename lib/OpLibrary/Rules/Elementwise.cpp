//===- Elementwise.cpp - result rules of pointwise ops -------------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

namespace mlir::traced::rules {

/// The Python type of a number of dtype `d`: i1, i64 or f64.
static Type pythonNumberType(DType d, MLIRContext *ctx) {
  Builder b(ctx);
  if (d == DType::Bool)
    return b.getI1Type();
  return isFloatingPoint(d) ? Type(b.getF64Type()) : Type(b.getI64Type());
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
  return h.broadcastResult(sa, sb, elt);
}

LogicalResult lerp(const BoundCall &call, RuleHelper &h) {
  if (failed(pointwise(call, h.results, {"input", "end", "weight"}, false)))
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
        return noCpuKernel(call, e);
    }
  return success();
}

LogicalResult addcmul(const BoundCall &call, RuleHelper &h) {
  return addcPointwise(call, h.results, /*allowBool=*/false);
}

LogicalResult addcdiv(const BoundCall &call, RuleHelper &h) {
  for (StringRef name : {"tensor1", "tensor2"})
    if (auto t = dyn_cast_or_null<RankedTensorType>(call.getType(name)))
      if (!isa<FloatType>(t.getElementType()))
        return call.emitError()
               << "addcdiv does not support integer division: use "
                  "floating-point tensor1 and tensor2";
  return addcPointwise(call, h.results, /*allowBool=*/true);
}

/// Float-only binary math (xlogy, hypot, logaddexp, copysign, float_power
/// is float64): the promoted dtype, integers to float32.
LogicalResult floatPointwise(const BoundCall &call, RuleHelper &h) {
  return pointwise(call, h.results, {"input", "other"}, true);
}

/// torch.frexp: the mantissa in the input's type and the int32 exponent.
LogicalResult frexp(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  auto exponent = RankedTensorType::get(
      input.getShape(), IntegerType::get(call.getContext(), 32));
  return h.result(TupleType::get(call.getContext(), {input, exponent}));
}

/// torch.special's orthogonal polynomials: x and n promoted, as a float.
LogicalResult polynomial(const BoundCall &call, RuleHelper &h) {
  return pointwise(call, h.results, {"input", "n"}, true);
}

/// torch.ldexp: `input * pow(2.0, other)`, typed as those two calls are
/// (the power has other's dtype when it is floating, else float32; its
/// rank takes part in the product's promotion).
LogicalResult ldexp(const BoundCall &call, RuleHelper &h) {
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
  return h.broadcastResult(x.getShape(), e.getShape(), elt);
}

LogicalResult floatPower(const BoundCall &call, RuleHelper &h) {
  if (failed(pointwise(call, h.results, {"input", "exponent"}, true)))
    return failure();
  if (!h.results.empty())
    if (auto t = dyn_cast<RankedTensorType>(h.results[0]))
      h.results[0] = RankedTensorType::get(
          t.getShape(), Float64Type::get(call.getContext()));
  return success();
}

LogicalResult heaviside(const BoundCall &call, RuleHelper &h) {
  return pointwise(call, h.results, {"input", "values"}, false);
}

LogicalResult rsub(const BoundCall &call, RuleHelper &h) {
  return pointwise(call, h.results, {"input", "other"}, false);
}

LogicalResult sameAsInput(const BoundCall &call, RuleHelper &h) {
  h.results.push_back(call.getType("input"));
  return success();
}

/// torch.positive: the input, which must not be bool.
LogicalResult positive(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (input && input.getElementType().isInteger(1))
    return call.emitError()
           << "The `+` operator, on a bool tensor is not supported.";
  return sameAsInput(call, h);
}

/// F.prelu: the input's type; torch 1.13's kernel takes a weight of the
/// input's dtype only ("Found dtype Half but expected Double"), but for a
/// bfloat16 input, which takes any.
LogicalResult prelu(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = call.getTensor("input"),
                   weight = call.getTensor("weight");
  if (input && weight && !input.getElementType().isBF16() &&
      input.getElementType() != weight.getElementType())
    return call.emitError() << "expects a weight of the input's dtype "
                            << input.getElementType() << ", got " << weight;
  return sameAsInput(call, h);
}

/// aten::native_dropout: (output, mask), the mask bool. torch 1.13's
/// quirk: an empty input's mask has the input's dtype. Training (train true
/// or None) scales by a float, which an integer or bool input cannot hold.
LogicalResult nativeDropout(const BoundCall &call, RuleHelper &h) {
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
  h.results.push_back(TupleType::get(
      call.getContext(),
      {input, RankedTensorType::get(input.getShape(), mask)}));
  return success();
}

/// celu: the input's type; torch raises on alpha = 0 (it divides by it).
LogicalResult celu(const BoundCall &call, RuleHelper &h) {
  if (std::optional<double> alpha = call.getFloat("alpha"); alpha && *alpha == 0)
    return call.emitError() << "alpha cannot be 0 for CELU";
  return sameAsInput(call, h);
}

LogicalResult to(const BoundCall &call, RuleHelper &h) {
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

LogicalResult typeAs(const BoundCall &call, RuleHelper &h) {
  return shapeAndDType(call, h.results, "input", "other");
}

template <DType D>
LogicalResult castTo(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  return h.result(input.getShape(), typeFromDType(call.getContext(), D));
}

// The dtypes Rules.def lists.
#define TRACED_RULE(name)
#define TRACED_CAST_RULE(D)                                                    \
  template LogicalResult castTo<DType::D>(const BoundCall &, RuleHelper &);
#include "Rules.def"

LogicalResult glu(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<int64_t> dim =
      h.dimArg(input, "dim", "does not support 0-d tensors");
  if (!dim)
    return h.stop();
  int64_t size = input.getDimSize(*dim);
  bool known = !ShapedType::isDynamic(size);
  if (known && size % 2)
    return call.emitError() << "halving dimension must be even, but "
                               "dimension "
                            << *dim << " is size " << size;
  return h.result(withDimSize(input, *dim, known ? size / 2 : size));
}

LogicalResult floatUnary(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  std::optional<DType> d = dtypeFromType(input.getElementType());
  if (!d)
    return h.result(input);
  return h.result(input.getShape(),
                  typeFromDType(call.getContext(), toFloatingDType(*d)));
}

LogicalResult clamp(const BoundCall &call, RuleHelper &h) {
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
    if (!h.broadcastOperand(call.getType(name), types, shape))
      return h.stop();
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

LogicalResult arithmetic(const BoundCall &call, RuleHelper &h) {
  return binary(call, h.results, /*trueDivide=*/false);
}

LogicalResult power(const BoundCall &call, RuleHelper &h) {
  return binary(call, h.results, /*trueDivide=*/false, "exponent");
}

LogicalResult trueDivide(const BoundCall &call, RuleHelper &h) {
  bool rounding = call.getSignature().lookup("rounding_mode") &&
                  !call.isNone("rounding_mode");
  return binary(call, h.results, /*trueDivide=*/!rounding);
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

LogicalResult comparison(const BoundCall &call, RuleHelper &h) {
  return truthBinary(call, h.results);
}

LogicalResult bitwise(const BoundCall &call, RuleHelper &h) {
  for (StringRef name : {"input", "other"}) {
    Type t = call.getType(name);
    Type elt = isa<ShapedType>(t) ? cast<ShapedType>(t).getElementType() : t;
    if (isa<FloatType>(elt))
      return call.emitError() << "argument '" << name << "' of type " << t
                              << " is not supported: bitwise ops take bool "
                                 "and integer operands";
  }
  return binary(call, h.results, /*trueDivide=*/false);
}

LogicalResult predicate(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  return h.result(input.getShape(), Builder(call.getContext()).getI1Type());
}

LogicalResult square(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  if (input.getElementType().isInteger(1))
    return h.result(input.getShape(),
                    Builder(call.getContext()).getI64Type());
  return h.result(input);
}

LogicalResult floatBinary(const BoundCall &call, RuleHelper &h) {
  return binary(call, h.results, /*trueDivide=*/true);
}

LogicalResult where(const BoundCall &call, RuleHelper &h) {
  RankedTensorType cond = h.tensor("condition");
  if (!cond)
    return h.unknown();
  if (!cond.getElementType().isInteger(1))
    return call.emitError() << "argument 'condition' must be a bool tensor, "
                               "got "
                            << cond;
  SmallVector<int64_t> shape(cond.getShape());
  SmallVector<Type> types;
  for (StringRef name : {"input", "other"})
    if (!h.broadcastOperand(call.getType(name), types, shape))
      return h.stop();
  return h.result(shape, resultElementType(types, call.getContext()));
}

LogicalResult maskedFill(const BoundCall &call, RuleHelper &h) {
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

/// torch.fake_quantize_per_tensor_affine: the input's type (float32,
/// float64 or float16, torch 1.13's CPU kernel), after torch's checks of
/// the quantization range; the _cachemask form adds the bool mask of the
/// elements whose quantized value fell inside it.
LogicalResult fakeQuantize(const BoundCall &call, RuleHelper &h) {
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

/// isclose: bool at the broadcast shape; operands of one dtype.
LogicalResult isclose(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("input"), b = h.tensor("other");
  if (!h.oneDType(a, b))
    return h.stop();
  return h.broadcastResult(a.getShape(), b.getShape(),
                           Builder(call.getContext()).getI1Type());
}

} // namespace mlir::traced::rules
