//===- Quantized.cpp - result rules of the quantized ops ------------------===//
//
// Quantized tensors (docs/quantization.md) have the quant dialect's element
// types: torch's quint8, qint8 and qint32 with a scale and zero point per
// tensor (`!quant.uniform<u8:f32, 0.02:3>`) or per channel. A `dtype`
// argument naming one of them is the quant dialect's `!quant.any<u8:f32>`
// (quint8), `!quant.any<i8:f32>` (qint8) or `!quant.any<i32:f32>` (qint32).
// These are the rules of the ops that make, unmake and compute on them the
// way torch 1.13's QuantizedCPU kernels do; the ops that only move
// elements take them through OpSpec::quantized.
//
//===----------------------------------------------------------------------===//

#include "Common.h"
#include "TracedIR/Support/QuantParams.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>

namespace mlir::traced::rules {

/// The torch dtype (quint8, qint8, qint32) a `dtype` argument names, as the
/// quant dialect's type without parameters; null when it names another.
static quant::AnyQuantizedType quantizedDType(Attribute value) {
  auto d = dyn_cast_or_null<DTypeAttr>(value);
  return d && isQuantizedDType(d.getType())
             ? cast<quant::AnyQuantizedType>(d.getType())
             : quant::AnyQuantizedType();
}

/// The torch spelling of a quantized storage type, for diagnostics.
static StringRef torchName(quant::QuantizedType q) {
  if (q.getStorageTypeIntegralWidth() == 32)
    return "torch.qint32";
  return q.isSigned() ? "torch.qint8" : "torch.quint8";
}

} // namespace mlir::traced::rules

mlir::Type mlir::traced::uniformQuantizedType(
    Type dtypeType, double scale, int64_t zeroPoint,
    function_ref<InFlightDiagnostic()> emitError) {
  auto dtype = cast<quant::QuantizedType>(dtypeType);
  unsigned width = dtype.getStorageTypeIntegralWidth();
  bool isSigned = dtype.isSigned();
  int64_t lo = isSigned ? -(int64_t(1) << (width - 1)) : 0,
          hi = isSigned ? (int64_t(1) << (width - 1)) - 1
                        : (int64_t(1) << width) - 1;
  if (zeroPoint < lo || zeroPoint > hi) {
    emitError() << "zero_point " << zeroPoint << " is out of range of "
                << rules::torchName(dtype) << " [" << lo << ", " << hi << "]";
    return {};
  }
  if (!(scale > 0) || !std::isfinite(scale)) {
    emitError() << "scale " << scale << " is not a positive finite number";
    return {};
  }
  MLIRContext *ctx = dtype.getContext();
  return quant::UniformQuantizedType::get(
      isSigned ? quant::QuantizationFlags::Signed : 0,
      IntegerType::get(ctx, width), Float32Type::get(ctx), scale, zeroPoint,
      lo, hi);
}

mlir::Type mlir::traced::fixedQParamsType(Type input) {
  auto q = cast<quant::QuantizedType>(input);
  bool wide = q.getStorageTypeIntegralWidth() == 32;
  int64_t zp = q.isSigned() && !wide ? -128 : 0;
  return uniformQuantizedType(q, wide ? 1.0 / 4294967296.0 : 1.0 / 256.0, zp,
                              nullptr);
}

namespace mlir::traced::rules {

/// The quantized result of `dtypeArg`'s dtype at the constant `scaleArg`
/// and `zeroPointArg`; null (unknown) when they are traced tensors, as
/// torch.fx's converted models pass them (buffers), or an error.
static FailureOr<Type> resultQuantization(const BoundCall &call,
                                          RuleHelper &h,
                                          quant::QuantizedType dtype,
                                          StringRef scaleArg,
                                          StringRef zeroPointArg) {
  std::optional<double> scale = call.getFloat(scaleArg);
  std::optional<int64_t> zp = call.getInt(zeroPointArg);
  if (!scale || !zp)
    return Type();
  Type t = uniformQuantizedType(dtype, *scale, *zp,
                                [&]() { return h.error(); });
  if (!t)
    return failure();
  return t;
}

/// A quantized tensor argument, or null after an error (a float tensor
/// given to a quantized op: torch has no kernel for it) or when unknown.
static RankedTensorType quantizedArg(const BoundCall &call, RuleHelper &h,
                                     StringRef name) {
  RankedTensorType t = call.getTensor(name);
  if (t && !isQuantizedElement(t.getElementType())) {
    h.error() << "expects a quantized tensor for '" << name << "', but got "
              << t;
    return {};
  }
  return t;
}

/// torch.quantize_per_tensor(input, scale, zero_point, dtype): a float32
/// input, one of the quantized dtypes; the scale and zero point are
/// numbers or (torch.fx's converted models) 0-d or 1-element tensors.
LogicalResult quantizePerTensor(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  quant::AnyQuantizedType dtype = quantizedDType(call.get("dtype").value);
  if (!dtype)
    return h.error() << "expects a quantized dtype (torch.quint8, "
                        "torch.qint8 or torch.qint32), not "
                     << call.getType("dtype");
  if (input && !input.getElementType().isF32())
    return h.error() << "quantizes float32 tensors only, not " << input;
  FailureOr<Type> element =
      resultQuantization(call, h, dtype, "scale", "zero_point");
  if (failed(element))
    return failure();
  if (!input || !*element)
    return h.unknown();
  return h.result(input.getShape(), *element);
}

/// torch.quantize_per_channel(input, scales, zero_points, axis, dtype): the
/// scales are a tensor, so the result's parameters are known when it runs.
LogicalResult quantizePerChannel(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!quantizedDType(call.get("dtype").value))
    return h.error() << "expects a quantized dtype (torch.quint8, "
                        "torch.qint8 or torch.qint32)";
  if (input && !input.getElementType().isF32())
    return h.error() << "quantizes float32 tensors only, not " << input;
  if (input && !h.dimArg(input, "axis"))
    return h.stop();
  return h.unknown();
}

/// torch.dequantize / Tensor.dequantize: float32 of the input's shape (a
/// tensor that is not quantized is converted to float32, as torch does).
LogicalResult dequantize(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  return h.result(input.getShape(), Float32Type::get(call.getContext()));
}

/// torch.ops.quantized.add / add_relu / mul / mul_relu (qa, qb, scale,
/// zero_point): two quantized tensors of one dtype, broadcast; the result
/// has their dtype at the given scale and zero point.
LogicalResult quantizedBinary(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = quantizedArg(call, h, "qa"),
                   b = quantizedArg(call, h, "qb");
  if (!a || !b)
    return h.stop();
  auto qa = cast<quant::QuantizedType>(a.getElementType()),
       qb = cast<quant::QuantizedType>(b.getElementType());
  if (qa.getStorageType() != qb.getStorageType() ||
      qa.isSigned() != qb.isSigned())
    return h.error() << "expects operands of one quantized dtype, but got "
                     << torchName(qa) << " and " << torchName(qb);
  FailureOr<Type> element =
      resultQuantization(call, h, qa, "scale", "zero_point");
  if (failed(element))
    return failure();
  if (!*element)
    return h.unknown();
  return h.broadcastResult(a.getShape(), b.getShape(), *element);
}

/// torch.ops.quantized.cat(qx, dim, scale, zero_point): the tensors
/// concatenated (as torch.cat shapes them), requantized to the given scale
/// and zero point (None: the first tensor's).
LogicalResult quantizedCat(const BoundCall &call, RuleHelper &h) {
  const BoundCall::Arg &qx = call.get("qx");
  if (qx.elements.empty() || llvm::any_of(qx.elements, [](Type t) {
        return !isa_and_nonnull<RankedTensorType>(t);
      }))
    return h.unknown();
  SmallVector<Type> storage;
  for (Type t : qx.elements) {
    if (!isQuantizedTensor(t))
      return h.error() << "expects quantized tensors, but got " << t;
    storage.push_back(quantStorageType(t));
  }
  auto first = cast<RankedTensorType>(qx.elements[0]);
  auto q = cast<quant::QuantizedType>(first.getElementType());
  Type element = q;
  if (!call.isNone("scale") || !call.isNone("zero_point")) {
    FailureOr<Type> given =
        resultQuantization(call, h, q, "scale", "zero_point");
    if (failed(given))
      return failure();
    element = *given;
  }
  // The shape: torch.cat's rule on the storage integers.
  int64_t rank = first.getRank();
  std::optional<int64_t> dim = call.getInt("dim");
  if (!dim)
    return h.unknown();
  FailureOr<int64_t> d = h.dim(*dim, rank);
  if (failed(d))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (Type t : ArrayRef<Type>(qx.elements).drop_front()) {
    auto tensor = cast<RankedTensorType>(t);
    if (tensor.getRank() != rank)
      return h.error() << "expects tensors of one rank, but got "
                       << first << " and " << tensor;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t a = shape[i], b = tensor.getDimSize(i);
      if (i == *d) {
        shape[i] = ShapedType::isDynamic(a) || ShapedType::isDynamic(b)
                       ? kDynamic
                       : a + b;
      } else if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) &&
                 a != b) {
        return h.error() << "sizes of tensors must match except in "
                            "dimension "
                         << *d << ": " << first << " and " << tensor;
      } else if (ShapedType::isDynamic(a)) {
        shape[i] = b;
      }
    }
  }
  if (!element)
    return h.unknown();
  return h.result(shape, element);
}

/// The float rule of `entry` on the call with its quantized tensor
/// arguments typed as float32 (the shapes of a quantized conv or linear
/// are the float op's); null results when unknown.
static LogicalResult floatShape(const BoundCall &call, RuleHelper &h,
                                StringRef rule,
                                SmallVectorImpl<Type> &results) {
  BoundCall floats = call;
  for (unsigned i = 0; i < call.getSignature().params.size(); ++i)
    if (auto t = dyn_cast_or_null<TensorType>(floats[i].type);
        t && isQuantizedElement(t.getElementType()))
      floats[i].type = t.clone(Float32Type::get(call.getContext()));
  if (failed(ruleTable().lookup(rule)(floats, results))) {
    h.reported = true;
    return failure();
  }
  return success();
}

/// The conv-like ops of the quantized modules (Conv1d/2d/3d, ConvReLU,
/// Linear, LinearReLU): a quint8 input, a qint8 weight (per tensor or per
/// output channel), a float bias; the result is quint8 at `scale` and
/// `zero_point` (for linear, None: the input's), shaped as the float op.
static LogicalResult quantizedContraction(const BoundCall &call,
                                          RuleHelper &h, StringRef rule) {
  RankedTensorType input = quantizedArg(call, h, "input"),
                   weight = quantizedArg(call, h, "weight");
  if (!input || !weight)
    return h.stop();
  auto qi = cast<quant::QuantizedType>(input.getElementType()),
       qw = cast<quant::QuantizedType>(weight.getElementType());
  if (qi.isSigned() || qi.getStorageTypeIntegralWidth() != 8)
    return h.error() << "expects a torch.quint8 input, not " << torchName(qi);
  if (!qw.isSigned() || qw.getStorageTypeIntegralWidth() != 8)
    return h.error() << "expects a torch.qint8 weight, not " << torchName(qw);
  if (auto axis = dyn_cast<quant::UniformQuantizedPerAxisType>(qw);
      axis && axis.getQuantizedDimension() != 0)
    return h.error() << "expects a weight quantized per output channel "
                        "(axis 0), not along axis "
                     << axis.getQuantizedDimension();
  if (RankedTensorType bias = call.getTensor("bias");
      bias && !bias.getElementType().isF32())
    return h.error() << "expects a float32 bias, not " << bias;
  SmallVector<Type> shape;
  if (failed(floatShape(call, h, rule, shape)))
    return failure();
  // The result's dtype: quint8 (the functional conv's `dtype`, which
  // torch only checks to be quint8).
  if (call.getSignature().lookup("dtype") && !call.isNone("dtype")) {
    quant::AnyQuantizedType d = quantizedDType(call.get("dtype").value);
    if (!d || d.isSigned() || d.getStorageTypeIntegralWidth() != 8)
      return h.error() << "supports dtype=torch.quint8 only";
  }
  Type element = qi;
  if (!call.isNone("scale") || !call.isNone("zero_point")) {
    FailureOr<Type> given =
        resultQuantization(call, h, qi, "scale", "zero_point");
    if (failed(given))
      return failure();
    element = *given;
  } else if (!isa<quant::UniformQuantizedType>(qi)) {
    return h.unknown();
  }
  if (shape.size() != 1 || !shape[0] || !element)
    return h.unknown();
  return h.result(cast<RankedTensorType>(shape[0]).getShape(), element);
}

/// torch.ops.quantized.hardswish(input, output_scale, output_zero_point)
/// (the quantized Hardswish module): the input's shape and dtype at the
/// given parameters.
LogicalResult quantizedActivation(const BoundCall &call, RuleHelper &h) {
  // (The input is the first parameter: `input`, `qx` or `self`.)
  RankedTensorType input =
      quantizedArg(call, h, call.getSignature().params.front().name);
  if (!input)
    return h.stop();
  FailureOr<Type> element =
      resultQuantization(call, h, cast<quant::QuantizedType>(input.getElementType()),
                         "output_scale", "output_zero_point");
  if (failed(element))
    return failure();
  if (!*element)
    return h.unknown();
  return h.result(input.getShape(), *element);
}

LogicalResult quantizedConv(const BoundCall &call, RuleHelper &h) {
  if (auto mode = dyn_cast_or_null<StringAttr>(call.get("padding_mode").value);
      mode && mode.getValue() != "zeros")
    return h.error() << "supports padding_mode='zeros' only, not '"
                     << mode.getValue() << "'";
  return quantizedContraction(call, h, "conv");
}

/// traced.quantized.linear_dynamic (the dynamically quantized Linear):
/// a float32 input quantized per call, a qint8 weight, a float32 result
/// shaped as F.linear's.
LogicalResult quantizedLinearDynamic(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = call.getTensor("input"),
                   weight = quantizedArg(call, h, "weight");
  if (!input || !weight)
    return h.stop();
  if (!input.getElementType().isF32())
    return h.error() << "expects a float32 input, not " << input;
  auto qw = cast<quant::QuantizedType>(weight.getElementType());
  if (!qw.isSigned() || qw.getStorageTypeIntegralWidth() != 8)
    return h.error() << "expects a torch.qint8 weight, not " << torchName(qw);
  SmallVector<Type> shape;
  if (failed(floatShape(call, h, "linear", shape)))
    return failure();
  if (shape.size() != 1 || !shape[0])
    return h.unknown();
  return h.result(cast<RankedTensorType>(shape[0]).getShape(),
                  Float32Type::get(call.getContext()));
}

/// The tensors traced.int8.conv2d and traced.int8.linear share: a uint8
/// input, a 2-D int8 weight of rows `row` long (int8PackedRow), float32 multiplier and
/// offset and an int32 compensation of one element per output channel.
static LogicalResult int8Operands(RuleHelper &h, RankedTensorType input,
                                  RankedTensorType weight, int64_t row) {
  RankedTensorType mult = h.tensor("multiplier"), off = h.tensor("offset"),
                   comp = h.tensor("compensation");
  if (!mult || !off || !comp)
    return failure();
  if (!input.getElementType().isUnsignedInteger(8))
    return h.error() << "expects a uint8 input, not " << input;
  if (!weight.getElementType().isSignlessInteger(8) || weight.getRank() != 2 ||
      !weight.hasStaticShape())
    return h.error() << "expects a static 2-D int8 weight, not " << weight;
  if (row > kInt8MaxReduction)
    return h.error() << "sums " << row << " products per output, more than the "
                     << kInt8MaxReduction << " whose int32 sums are exact";
  if (weight.getDimSize(1) != row)
    return h.error() << "expects a weight packed in rows of " << row << ", not "
                     << weight;
  int64_t channels = weight.getDimSize(0);
  for (RankedTensorType t : {mult, off})
    if (!t.getElementType().isF32() || t.getRank() != 1 ||
        t.getDimSize(0) != channels)
      return h.error() << "expects a float32 multiplier and offset of "
                       << channels << " elements, not " << t;
  if (!comp.getElementType().isSignlessInteger(32) || comp.getRank() != 1 ||
      comp.getDimSize(0) != channels)
    return h.error() << "expects an int32 compensation of " << channels
                     << " elements, not " << comp;
  return success();
}

/// The uint8 result of traced.int8.conv2d or traced.int8.linear at
/// `shape`, after checking the fused add's operands: a residual of the
/// result's shape and dtype, positive finite scales, zero points in [0,
/// 255].
static LogicalResult int8Result(const BoundCall &call, RuleHelper &h,
                                ArrayRef<int64_t> shape, Type elementType) {
  if (!call.isNone("residual")) {
    RankedTensorType residual = h.tensor("residual");
    if (!residual)
      return h.unknown();
    if (residual.getShape() != shape || residual.getElementType() != elementType)
      return h.error() << "expects a residual of the result's shape and dtype ("
                       << RankedTensorType::get(shape, elementType) << "), not "
                       << residual;
    for (StringRef name : {"output_scale", "residual_scale", "sum_scale"}) {
      std::optional<double> scale = call.getFloat(name);
      if (!scale)
        return h.unknown();
      if (!(*scale > 0.0 && std::isfinite(static_cast<float>(*scale))))
        return h.error() << "expects a positive finite " << name << ", not " << *scale;
    }
    for (StringRef name : {"output_zero_point", "residual_zero_point", "sum_zero_point"}) {
      std::optional<int64_t> zp = call.getInt(name);
      if (!zp)
        return h.unknown();
      if (*zp < 0 || *zp > 255)
        return h.error() << "expects a " << name << " in [0, 255], not " << *zp;
    }
  }
  return h.result(shape, elementType);
}

/// traced.int8.conv2d (traced-lower-quantized's int8 convolution): input
/// [N, C, H, W] uint8, weight [OC, KH * KW * C / groups padded] int8
/// (int8PackedRow), groups 1 or C == OC (depthwise); the result [N, OC, OH,
/// OW] uint8, shaped by the float convolution's decodeConv over the weight
/// unpacked, [OC, C / groups, KH, KW].
LogicalResult int8Conv2d(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), weight = h.tensor("weight");
  auto kernel = call.getInts("kernel_size", 2);
  if (!input || !weight || !kernel)
    return h.unknown();
  if (input.getRank() != 4 || !input.hasStaticShape())
    return h.error() << "expects a static 4-D input, not " << input;
  if ((*kernel)[0] <= 0 || (*kernel)[1] <= 0)
    return h.error() << "expects a positive kernel_size";
  std::optional<int64_t> groups = call.getInt("groups");
  if (!groups)
    return h.unknown();
  int64_t channels = input.getDimSize(1);
  if (*groups != 1 && (*groups != channels || weight.getDimSize(0) != channels))
    return h.error() << "supports groups=1 or depthwise (groups, input and output "
                        "channels equal), not groups="
                     << *groups;
  if (failed(int8Operands(h, input, weight,
                          int8PackedRow((*kernel)[0] * (*kernel)[1], channels / *groups))))
    return h.stop();
  SmallVector<int64_t> unpacked{weight.getDimSize(0), channels / *groups, (*kernel)[0],
                                (*kernel)[1]};
  ConvParams p;
  std::string error;
  ConvDecode status = withArgReader(call, [&](const ArgReader &reader) {
    return decodeConv(call.getSignature(), reader, input.getShape(), unpacked,
                      std::nullopt, p, error);
  });
  if (!h.decoded(status, error))
    return h.stop();
  return int8Result(call, h, p.resultShape, input.getElementType());
}

/// traced.int8.linear: input [..., K] uint8, weight [N, K padded] int8
/// (int8Row); the result [..., N] uint8.
LogicalResult int8Linear(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), weight = h.tensor("weight");
  if (!input || !weight)
    return h.unknown();
  if (input.getRank() < 1 || ShapedType::isDynamic(input.getShape().back()))
    return h.error() << "expects an input whose last dim is static, not " << input;
  if (failed(int8Operands(h, input, weight, int8PackedRow(1, input.getShape().back()))))
    return h.stop();
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = weight.getDimSize(0);
  return int8Result(call, h, shape, input.getElementType());
}

LogicalResult quantizedLinear(const BoundCall &call, RuleHelper &h) {
  return quantizedContraction(call, h, "linear");
}

} // namespace mlir::traced::rules
