//===- Linalg.cpp - result rules of matmuls and convolutions -------------===//
//
// The op table (OpTable.cpp) names these rules; Common.h holds what
// several families share.
//
//===----------------------------------------------------------------------===//

#include "Common.h"

using namespace mlir;
using namespace mlir::traced;

namespace mlir::traced::rules {

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

/// addmm and addbmm: beta * input + alpha * (the sum of) `lhs` @ `rhs`,
/// products of `rank` dims (else the error `rankError`), all of one dtype,
/// which `beta` and `alpha` fit: (n, p), which `input` broadcasts with
/// (`exact`: to).
static LogicalResult scaledProduct(const BoundCall &call, RuleHelper &h,
                                   StringRef lhs, StringRef rhs, int64_t rank,
                                   StringRef rankError, bool exact) {
  RankedTensorType input = h.tensor("input"), a = h.tensor(lhs),
                   b = h.tensor(rhs);
  if (!input || !a || !b)
    return h.unknown();
  if (a.getRank() != rank || b.getRank() != rank)
    return call.emitError() << rankError << ", got " << a << " and " << b;
  if (a.getElementType() != b.getElementType() ||
      input.getElementType() != a.getElementType())
    return call.emitError() << "expects operands of one dtype";
  if (failed(checkScalesFit(call, a.getElementType())))
    return failure();
  SmallVector<int64_t> out = {a.getDimSize(rank - 2),
                              b.getDimSize(rank - 1)};
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, input.getShape(), out);
  if (failed(shape))
    return failure();
  if (exact && ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(out))
    return call.emitError() << "input " << input << " does not broadcast to "
                            << shapeStr(out);
  return h.result(out, a.getElementType());
}

LogicalResult addmm(const BoundCall &call, RuleHelper &h) {
  return scaledProduct(call, h, "mat1", "mat2", 2, "expects 2-D matrices",
                       /*exact=*/false);
}

/// addmv: beta * input + alpha * mat @ vec, in mat's dtype (vec's too; the
/// input, 1-D or 0-d, is converted to it and broadcast to mat's rows).
LogicalResult addmv(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), mat = h.tensor("mat"),
                   vec = h.tensor("vec");
  if (!input || !mat || !vec)
    return h.unknown();
  if (input.getRank() > 1 || mat.getRank() != 2 || vec.getRank() != 1)
    return call.emitError() << "vector + matrix @ vector expected, got "
                            << input << ", " << mat << " and " << vec;
  if (mat.getElementType() != vec.getElementType())
    return call.emitError() << "expects mat and vec of one dtype, got " << mat
                            << " and " << vec;
  if (!ShapedType::isDynamic(mat.getDimSize(1)) &&
      !ShapedType::isDynamic(vec.getDimSize(0)) &&
      mat.getDimSize(1) != vec.getDimSize(0))
    return call.emitError() << "size mismatch: " << mat << " @ " << vec;
  // It computes in mat's dtype (the input is converted to it), which the
  // dtype table, reading `input`, cannot say; an empty product returns
  // before torch dispatches on the dtype.
  Type e = mat.getElementType();
  bool empty = mat.hasStaticShape() && mat.getNumElements() == 0;
  if ((e.isInteger(1) || e.isF16()) && !empty)
    return noCpuKernel(call, e);
  if (failed(checkScalesFit(call, e)))
    return failure();
  SmallVector<int64_t> out = {mat.getDimSize(0)};
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, input.getShape(), out);
  if (failed(shape))
    return failure();
  if (ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(out))
    return call.emitError() << "input " << input << " does not broadcast to "
                            << shapeStr(out);
  return h.result(out, mat.getElementType());
}

/// mv and dot: 1-D and 2-D products of one dtype; outer, which promotes.
LogicalResult vectorProduct(const BoundCall &call, RuleHelper &h) {
  bool isMv = call.getSignature().lookup("vec").has_value();
  bool isOuter = call.getSignature().lookup("vec2").has_value();
  RankedTensorType a = h.tensor("input"),
                   b = h.tensor(isMv ? "vec" : isOuter ? "vec2" : "other");
  if (!a || !b)
    return h.unknown();
  if (isOuter && a.getRank() == 1 && b.getRank() == 1) {
    // input[:, None] * vec2: promoted like any product.
    return h.result({a.getDimSize(0), b.getDimSize(0)},
                    resultElementType({a, b}, call.getContext()));
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

LogicalResult conv(const BoundCall &call, RuleHelper &h) {
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
  ConvDecode status = decodeConvCall(call, input, weight, p, error);
  if (!h.decoded(status, error))
    return h.stop();
  // torch.convolution's `transposed` is a value, so kRejectedDTypes (per
  // entry) cannot say that only float32, float64 and int64 have a CPU
  // kernel for transposed convolutions (slow_conv_transpose2d/3d).
  Type et = input.getElementType();
  if (p.transposed && !et.isF32() && !et.isF64() && !et.isSignlessInteger(64))
    return call.emitError()
           << "has no CPU kernel for a transposed convolution in " << et;
  return h.result(p.resultShape, et);
}

/// aten::convolution_backward: (grad_input, grad_weight, grad_bias) of
/// torch.convolution(input, weight, ...), each None where `output_mask` is
/// false. grad_output must have the forward's result shape. The input and
/// weight gradients take one dtype for all three tensors, with CPU kernels
/// for float32, float64 and (not transposed) bfloat16; grad_bias is
/// grad_output's sum per channel, in its dtype, so it takes any dtype.
LogicalResult convolutionBackward(const BoundCall &call, RuleHelper &h) {
  RankedTensorType grad = h.tensor("grad_output"), input = h.tensor("input"),
                   weight = h.tensor("weight");
  if (!grad || !input || !weight || !call.get("output_mask").value)
    return h.unknown();
  SmallVector<bool> mask;
  if (failed(outputMask(call, mask)))
    return failure();
  ConvParams p;
  std::string error;
  ConvDecode status = withArgReader(call, [&](const ArgReader &reader) {
    return decodeConv(call.getSignature(), reader, input.getShape(),
                      weight.getShape(), std::nullopt, p, error);
  });
  if (!h.decoded(status, error))
    return h.stop();
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
LogicalResult convTbc(const BoundCall &call, RuleHelper &h) {
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

LogicalResult linear(const BoundCall &call, RuleHelper &h) {
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

LogicalResult matmul(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("input"), b = h.tensor("other");
  if (!a || !b)
    return h.unknown();
  return matmulShapes(call, h.results, a, b);
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

LogicalResult bmm(const BoundCall &call, RuleHelper &h) {
  return checkedMatmul(call, h.results, "input", "mat2", 3);
}

LogicalResult baddbmm(const BoundCall &call, RuleHelper &h) {
  if (failed(checkedMatmul(call, h.results, "batch1", "batch2", 3)))
    return failure();
  if (h.results.size() == 1)
    if (auto t = dyn_cast_or_null<RankedTensorType>(h.results[0])) {
      // It computes in the batches' dtype (the input is converted to it),
      // so the dtype table, which reads `input`, cannot say this.
      Type e = t.getElementType();
      if (e.isInteger(1) || e.isF16())
        return noCpuKernel(call, e);
      return checkScalesFit(call, e);
    }
  return success();
}

LogicalResult mm(const BoundCall &call, RuleHelper &h) {
  return checkedMatmul(call, h.results, "input", "mat2", 2);
}

LogicalResult multiHeadAttention(const BoundCall &call, RuleHelper &h) {
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

/// aten::_trilinear: i1 * i2 * i3, each unsqueezed at its expand dims,
/// summed over sumdim, in i1's dtype (trilinearDTypes: the steps torch
/// takes and the dtypes they refuse).
LogicalResult trilinear(const BoundCall &call, RuleHelper &h) {
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

LogicalResult einsum(const BoundCall &call, RuleHelper &h) {
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

/// linalg.cross / cross: 3-vectors along `dim` of two broadcast tensors of
/// one dtype.
LogicalResult cross(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("input"), b = h.tensor("other");
  if (!h.oneDType(a, b))
    return h.stop();
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

/// addbmm: input + the sum over the batch of batch1 @ batch2: (n, p).
LogicalResult addbmm(const BoundCall &call, RuleHelper &h) {
  return scaledProduct(call, h, "batch1", "batch2", 3,
                       "batch1 and batch2 must be 3-D", /*exact=*/true);
}

/// bilinear: (*, out_features) in the operands' dtype.
LogicalResult bilinear(const BoundCall &call, RuleHelper &h) {
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
  // It is a bmm, which has no bool or float16 kernel, unless the batch is
  // empty (the dtype table reads `input`, which bilinear does not have).
  Type e = w.getElementType();
  bool empty = a.hasStaticShape() && a.getNumElements() == 0;
  if (!empty && (e.isInteger(1) || e.isF16()))
    return noCpuKernel(call, e);
  return h.result(shape, e);
}

/// det / slogdet / inv over batches of square floating-point matrices.
LogicalResult squareMatrices(const BoundCall &call, RuleHelper &h) {
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

//===----------------------------------------------------------------------===//
// Products that are formulas of other products (their decompositions and
// kernels call matmul, mm, mul and sum)
//===----------------------------------------------------------------------===//

/// The dtype name torch's messages use (Float, Long, Bool, ...).
static std::string torchTypeName(Type t) {
  std::optional<DType> d = dtypeFromType(t);
  if (!d)
    return "that dtype";
  switch (*d) {
  case DType::Bool: return "Bool";
  case DType::U8: return "Byte";
  case DType::I8: return "Char";
  case DType::I16: return "Short";
  case DType::I32: return "Int";
  case DType::I64: return "Long";
  case DType::F16: return "Half";
  case DType::BF16: return "BFloat16";
  case DType::F32: return "Float";
  case DType::F64: return "Double";
  }
  return "that dtype";
}

/// Tensor.__rmatmul__(input, other): other @ input.
LogicalResult rmatmul(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("other"), b = h.tensor("input");
  if (!a || !b)
    return h.unknown();
  return matmulShapes(call, h.results, a, b);
}

/// addr: beta * input + alpha * outer(vec1, vec2), promoted; the input
/// broadcasts to [len(vec1), len(vec2)].
LogicalResult addr(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input"), v1 = h.tensor("vec1"),
                   v2 = h.tensor("vec2");
  if (!input || !v1 || !v2)
    return h.unknown();
  for (auto [name, v] : {std::pair<StringRef, RankedTensorType>{"vec1", v1},
                         {"vec2", v2}})
    if (v.getRank() != 1)
      return call.emitError() << "addr: Expected 1-D argument " << name
                              << ", but got " << v.getRank() << "-D";
  Type e = resultElementType({input, v1, v2}, call.getContext());
  if (!e)
    return h.unknown();
  if (isa<IntegerType>(e) && !e.isInteger(1))
    for (StringRef name : {"beta", "alpha"})
      if (isa_and_nonnull<FloatAttr>(call.get(name).value))
        return call.emitError() << "For integral input tensors, argument "
                                << name
                                << " must not be a floating point number.";
  if (failed(checkScalesFit(call, e)))
    return failure();
  SmallVector<int64_t> out = {v1.getDimSize(0), v2.getDimSize(0)};
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, input.getShape(), out);
  if (failed(shape))
    return failure();
  if (ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(out))
    return call.emitError() << "input " << input << " does not broadcast to "
                            << shapeStr(out);
  return h.result(out, e);
}

/// The contraction entries' common checks: operands of one dtype, which
/// has a CPU product kernel (not bool, not float16).
static LogicalResult productDType(const BoundCall &call, RankedTensorType a,
                                  RankedTensorType b) {
  if (a.getElementType() != b.getElementType())
    return call.emitError() << "expected scalar type "
                            << torchTypeName(a.getElementType())
                            << " but found "
                            << torchTypeName(b.getElementType());
  Type e = a.getElementType();
  if (e.isInteger(1) || e.isF16())
    return noCpuKernel(call, e);
  return success();
}

/// inner: the last dims contracted (a 0-d operand multiplies).
LogicalResult inner(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("input"), b = h.tensor("other");
  if (!a || !b)
    return h.unknown();
  if (a.getRank() == 0 || b.getRank() == 0)
    return pointwise(call, h.results, {"input", "other"}, false);
  if (dimsDiffer(a.getShape().back(), b.getShape().back()))
    return call.emitError()
           << "inner() the last dimension must match on both input tensors "
              "but got shapes "
           << shapeStr(a.getShape()) << " and " << shapeStr(b.getShape());
  if (failed(productDType(call, a, b)))
    return failure();
  SmallVector<int64_t> out(a.getShape().drop_back());
  llvm::append_range(out, b.getShape().drop_back());
  return h.result(out, a.getElementType());
}

/// kron: the block product, promoted, over the operands' dims padded to
/// one rank with leading ones.
LogicalResult kron(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("input"), b = h.tensor("other");
  if (!a || !b)
    return h.unknown();
  int64_t rank = std::max(a.getRank(), b.getRank());
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t ia = i - (rank - a.getRank()), ib = i - (rank - b.getRank());
    out.push_back(mulDims(ia >= 0 ? a.getDimSize(ia) : 1,
                          ib >= 0 ? b.getDimSize(ib) : 1));
  }
  // (torch reshapes both first: a 0-d operand promotes as a dimensioned one.)
  return h.result(out, resultElementType({RankedTensorType::get({1}, a.getElementType()),
                                          RankedTensorType::get({1}, b.getElementType())},
                                         call.getContext()));
}

/// tensordot: a's free dims then b's, the `dims` contracted.
LogicalResult tensordot(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("a"), b = h.tensor("b");
  if (!a || !b)
    return h.unknown();
  if (isa_and_nonnull<TensorType>(call.getType("dims")))
    return call.emitError() << "takes its dims as ints or int lists here, "
                               "not a tensor";
  std::string error;
  auto dims = tensordotDimsOf(call.get("dims").value, a.getShape(),
                              b.getShape(), error);
  if (!dims)
    return h.unknown();
  if (failed(*dims))
    return call.emitError() << error;
  if (failed(productDType(call, a, b)))
    return failure();
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < a.getRank(); ++i)
    if (!llvm::is_contained((*dims)->first, i))
      out.push_back(a.getDimSize(i));
  for (int64_t i = 0; i < b.getRank(); ++i)
    if (!llvm::is_contained((*dims)->second, i))
      out.push_back(b.getDimSize(i));
  return h.result(out, a.getElementType());
}

/// linalg.vecdot: sum(x * y, dim) over the broadcast shape, floats only.
LogicalResult vecdot(const BoundCall &call, RuleHelper &h) {
  RankedTensorType x = h.tensor("x"), y = h.tensor("y");
  std::optional<int64_t> dim = call.getInt("dim");
  if (!x || !y || !dim)
    return h.unknown();
  if (!isa<FloatType>(x.getElementType()))
    return call.emitError() << "linalg.vecdot: Expected a floating point or "
                               "complex tensor as input. Got "
                            << torchTypeName(x.getElementType());
  if (x.getElementType() != y.getElementType())
    return call.emitError()
           << "linalg.vecdot: Expected x and y to have the same dtype, but "
              "found x of type "
           << torchTypeName(x.getElementType()) << " and y of type "
           << torchTypeName(y.getElementType()) << " instead";
  // (Two vectors are a dot product, which has no float16 kernel.)
  if (x.getElementType().isF16() && x.getRank() == 1 && y.getRank() == 1)
    return noCpuKernel(call, x.getElementType());
  FailureOr<SmallVector<int64_t>> shape =
      broadcastShapes(call, x.getShape(), y.getShape());
  if (failed(shape))
    return failure();
  FailureOr<int64_t> n = h.dim(*dim, shape->size());
  if (failed(n))
    return failure();
  SmallVector<int64_t> out(*shape);
  if (!out.empty())
    out.erase(out.begin() + *n);
  return h.result(out, x.getElementType());
}

/// linalg.multi_dot: the chain of matrix products; the first and the last
/// may be vectors (a row and a column), the others are matrices.
LogicalResult multiDot(const BoundCall &call, RuleHelper &h) {
  SmallVector<RankedTensorType> ts = tensorList(call, "tensors");
  if (ts.empty() && !call.get("tensors").elements.empty())
    return h.unknown();
  if (ts.size() < 2)
    return call.emitError() << "multi_dot(): expected at least 2 tensors but got "
                            << ts.size();
  int64_t n = ts.size();
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = ts[i].getRank();
    bool end = i == 0 || i == n - 1;
    if (end ? (r != 1 && r != 2) : r != 2)
      return call.emitError()
             << "multi_dot(): "
             << (i == 0 ? "the first tensor" : i == n - 1 ? "the last tensor"
                                                          : "tensor")
             << " must be " << (end ? "1D or 2D" : "2D") << " but got " << r
             << "D";
    if (ts[i].getElementType() != ts[0].getElementType())
      return call.emitError()
             << "multi_dot(): all tensors must have be the same dtype but "
                "tensor 0 is "
             << ts[0].getElementType() << " and tensor " << i << " "
             << ts[i].getElementType();
  }
  auto rows = [](RankedTensorType t) {
    return t.getRank() == 1 ? int64_t(1) : t.getDimSize(0);
  };
  for (int64_t i = 0; i + 1 < n; ++i) {
    int64_t k = ts[i].getShape().back(), k2 = i + 1 == n - 1 && ts[i + 1].getRank() == 1
                                                  ? ts[i + 1].getDimSize(0)
                                                  : rows(ts[i + 1]);
    if (dimsDiffer(k, k2))
      return call.emitError() << "multi_dot(): tensors " << i << " and "
                              << i + 1 << " with shapes "
                              << shapeStr(ts[i].getShape()) << " and "
                              << shapeStr(ts[i + 1].getShape())
                              << " cannot be multiplied";
  }
  Type e = ts[0].getElementType();
  if (e.isInteger(1) || e.isF16())
    return noCpuKernel(call, e);
  SmallVector<int64_t> out;
  if (ts[0].getRank() == 2)
    out.push_back(ts[0].getDimSize(0));
  if (ts[n - 1].getRank() == 2)
    out.push_back(ts[n - 1].getDimSize(1));
  return h.result(out, e);
}

/// linalg.matrix_power: batches of square matrices to an int power (a
/// negative one through the inverse, floats only).
LogicalResult matrixPower(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("input");
  std::optional<int64_t> n = call.getInt("n");
  if (!a || !n)
    return h.unknown();
  int64_t r = a.getRank();
  if (r < 2)
    return call.emitError() << "linalg.matrix_power: The input tensor A must "
                               "have at least 2 dimensions.";
  if (dimsDiffer(a.getDimSize(r - 1), a.getDimSize(r - 2)))
    return call.emitError()
           << "linalg.matrix_power: A must be batches of square matrices, but "
              "they are "
           << a.getDimSize(r - 2) << " by " << a.getDimSize(r - 1)
           << " matrices";
  Type e = a.getElementType();
  if (*n < 0 && !isa<FloatType>(e))
    return call.emitError() << "linalg.inv: Expected a floating point or "
                               "complex tensor as input. Got "
                            << torchTypeName(e);
  if (*n < 0 && (e.isF16() || e.isBF16()))
    return call.emitError()
           << "linalg.inv: Low precision dtypes not supported. Got "
           << torchTypeName(e);
  if ((*n >= 2 && (e.isInteger(1) || e.isF16())) || (*n == 0 && e.isBF16()))
    return noCpuKernel(call, e);
  return h.result(a);
}

/// dist: the p-norm of input - other (broadcast, promoted, floats only).
LogicalResult dist(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("input"), b = h.tensor("other");
  if (!a || !b)
    return h.unknown();
  if (a.getElementType().isInteger(1) && b.getElementType().isInteger(1))
    return call.emitError()
           << "Subtraction, the `-` operator, with two bool tensors is not "
              "supported. Use the `^` or `logical_xor()` operator instead.";
  if (failed(broadcastShapes(call, a.getShape(), b.getShape())))
    return failure();
  Type e = resultElementType({a, b}, call.getContext());
  if (!e)
    return h.unknown();
  if (!isa<FloatType>(e))
    return call.emitError() << "norm(): input dtype should be either floating "
                               "point or complex. Got "
                            << torchTypeName(e) << " instead.";
  return h.result(ArrayRef<int64_t>{}, e);
}

//===----------------------------------------------------------------------===//
// Recurrent networks (nn.RNN/LSTM/GRU and their cells)
//===----------------------------------------------------------------------===//

/// The gates of a recurrent mode (4 for LSTM, 3 for GRU, 1 for RNN), or 0
/// for a mode torch does not have.
static int64_t recurrentGates(StringRef mode) {
  return llvm::StringSwitch<int64_t>(mode)
      .Case("LSTM", 4)
      .Case("GRU", 3)
      .Cases("RNN_TANH", "RNN_RELU", "tanh", "relu", 1)
      .Default(0);
}

/// The string argument `name`, or nullopt when it is not a constant.
static std::optional<std::string> stringArg(const BoundCall &call,
                                            StringRef name) {
  if (auto s = dyn_cast_or_null<StringAttr>(call.get(name).value))
    return s.getValue().str();
  return std::nullopt;
}

/// The types `hx` holds: none (None), one tensor, or a tuple's elements;
/// nullopt when its type is not known.
static std::optional<SmallVector<Type>> hiddenTypes(const BoundCall &call) {
  const BoundCall::Arg &arg = call.get("hx");
  if (call.isNone("hx"))
    return SmallVector<Type>{};
  if (isa_and_nonnull<RankedTensorType>(arg.type))
    return SmallVector<Type>{arg.type};
  if (auto tuple = dyn_cast_or_null<TupleType>(arg.type))
    return SmallVector<Type>(tuple.getTypes());
  if (!arg.elements.empty())
    return arg.elements;
  return std::nullopt;
}

/// Checks that a hidden state has `expected` (as torch's check_hidden_size:
/// "Expected hidden size (2, 3, 5), got [2, 3, 4]").
static LogicalResult checkHidden(const BoundCall &call, Type t,
                                 ArrayRef<int64_t> expected, StringRef what) {
  auto type = dyn_cast<RankedTensorType>(t);
  if (!type)
    return call.emitError() << what << " must be a tensor, got " << t;
  bool differs = type.getRank() != static_cast<int64_t>(expected.size());
  for (int64_t i = 0; !differs && i < type.getRank(); ++i)
    differs = dimsDiffer(type.getDimSize(i), expected[i]);
  if (!differs)
    return success();
  InFlightDiagnostic d = call.emitError();
  d << "expected " << what << " of size (";
  llvm::interleaveComma(expected, d);
  d << "), got " << type;
  return d;
}

/// Checks the parameter list of a recurrent module: `layers` x
/// `directions` groups of w_ih, w_hh[, b_ih, b_hh][, w_hr] of the sizes
/// torch creates them with.
static LogicalResult checkRecurrentParams(const BoundCall &call,
                                          int64_t gates, int64_t inputSize,
                                          int64_t hidden, int64_t proj,
                                          int64_t layers, int64_t directions,
                                          bool bias) {
  SmallVector<RankedTensorType> params = tensorList(call, "params");
  int64_t perGroup = 2 + (bias ? 2 : 0) + (proj > 0 ? 1 : 0);
  if (static_cast<int64_t>(params.size()) != perGroup * layers * directions)
    return call.emitError() << "expects " << perGroup * layers * directions
                            << " parameters, got " << params.size();
  int64_t out = proj > 0 ? proj : hidden;
  for (int64_t g = 0; g < layers * directions; ++g) {
    int64_t in = g < directions ? inputSize : out * directions;
    SmallVector<SmallVector<int64_t>> shapes = {{gates * hidden, in},
                                                {gates * hidden, out}};
    if (bias)
      shapes.append({{gates * hidden}, {gates * hidden}});
    if (proj > 0)
      shapes.push_back({proj, hidden});
    for (auto [k, shape] : llvm::enumerate(shapes)) {
      RankedTensorType p = params[g * perGroup + k];
      if (!p || p.getShape() != ArrayRef<int64_t>(shape))
        return call.emitError()
               << "parameter #" << g * perGroup + k << " has type " << p
               << ", expected a tensor of size (" << shape << ")";
    }
  }
  return success();
}

LogicalResult recurrent(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<std::string> mode = stringArg(call, "mode");
  std::optional<int64_t> inputSize = call.getInt("input_size"),
                         hidden = call.getInt("hidden_size"),
                         layers = call.getInt("num_layers"),
                         proj = call.getInt("proj_size");
  std::optional<bool> bias = call.getBool("bias"),
                      batchFirst = call.getBool("batch_first"),
                      training = call.getBool("training"),
                      bidirectional = call.getBool("bidirectional");
  std::optional<double> dropout = call.getFloat("dropout");
  std::optional<SmallVector<Type>> hx = hiddenTypes(call);
  if (!input || !mode || !inputSize || !hidden || !layers || !proj || !bias ||
      !batchFirst || !training || !bidirectional || !dropout || !hx)
    return h.unknown();
  int64_t gates = recurrentGates(*mode);
  bool lstm = *mode == "LSTM";
  if (!gates || *mode == "tanh" || *mode == "relu")
    return call.emitError() << "unknown mode '" << *mode << "'";
  if (*proj < 0 || (*proj > 0 && !lstm) || (*proj > 0 && *proj >= *hidden))
    return call.emitError() << "proj_size " << *proj
                            << " must be 0, or (LSTM only) below hidden_size "
                            << *hidden;
  if (*layers < 1 || *hidden < 1)
    return call.emitError() << "num_layers and hidden_size must be positive";
  if (*training && *dropout > 0 && *layers > 1)
    return call.emitError()
           << "dropout " << *dropout << " between layers in training mode is "
           << "random: put the module in eval mode (module.eval())";
  int64_t rank = input.getRank();
  if (rank != 2 && rank != 3)
    return call.emitError() << "expected input to be 2-D or 3-D, got "
                            << rank << "-D tensor " << input;
  if (dimsDiffer(input.getShape().back(), *inputSize))
    return call.emitError() << "input.size(-1) must be equal to input_size. "
                            << "Expected " << *inputSize << ", got " << input;
  int64_t d = *bidirectional ? 2 : 1, out = *proj > 0 ? *proj : *hidden;
  if (failed(checkRecurrentParams(call, gates, *inputSize, *hidden, *proj,
                                  *layers, d, *bias)))
    return failure();
  bool batched = rank == 3;
  int64_t n = !batched ? 1 : input.getDimSize(*batchFirst ? 0 : 1);
  SmallVector<int64_t> hShape = {d * *layers, n, out},
                       cShape = {d * *layers, n, *hidden};
  if (!batched) {
    hShape.erase(hShape.begin() + 1);
    cShape.erase(cShape.begin() + 1);
  }
  if (!hx->empty()) {
    if (hx->size() != (lstm ? 2u : 1u))
      return call.emitError() << (lstm ? "expects hx as the tuple (h0, c0)"
                                       : "expects hx as one tensor");
    auto h0 = dyn_cast<RankedTensorType>((*hx)[0]);
    if (h0 && h0.getRank() != rank)
      return call.emitError()
             << "for " << (batched ? "batched 3-D" : "unbatched 2-D")
             << " input, hx should also be " << rank << "-D but got "
             << h0.getRank() << "-D tensor";
    if (failed(checkHidden(call, (*hx)[0], hShape, "h0")) ||
        (lstm && failed(checkHidden(call, (*hx)[1], cShape, "c0"))))
      return failure();
  }
  MLIRContext *ctx = call.getContext();
  Type elt = input.getElementType();
  if (!isa<FloatType>(elt))
    return call.emitError() << "expects a floating point input, got " << input;
  SmallVector<int64_t> outShape(input.getShape());
  outShape.back() = d * out;
  Type hType = RankedTensorType::get(hShape, elt);
  Type state = lstm ? TupleType::get(ctx, {hType, RankedTensorType::get(
                                                      cShape, elt)})
                    : hType;
  return h.result(
      TupleType::get(ctx, {RankedTensorType::get(outShape, elt), state}));
}

LogicalResult recurrentCell(const BoundCall &call, RuleHelper &h) {
  RankedTensorType input = h.tensor("input");
  std::optional<std::string> mode = stringArg(call, "mode");
  std::optional<int64_t> inputSize = call.getInt("input_size"),
                         hidden = call.getInt("hidden_size");
  std::optional<bool> bias = call.getBool("bias");
  std::optional<SmallVector<Type>> hx = hiddenTypes(call);
  if (!input || !mode || !inputSize || !hidden || !bias || !hx)
    return h.unknown();
  int64_t gates = recurrentGates(*mode);
  bool lstm = *mode == "LSTM";
  if (!gates || *mode == "RNN_TANH" || *mode == "RNN_RELU")
    return call.emitError() << "unknown mode '" << *mode << "'";
  int64_t rank = input.getRank();
  if (rank != 1 && rank != 2)
    return call.emitError() << "expected input to be 1D or 2D, got " << rank
                            << "D instead";
  if (dimsDiffer(input.getShape().back(), *inputSize))
    return call.emitError() << "input has inconsistent input_size: got "
                            << input.getShape().back() << " expected "
                            << *inputSize;
  if (failed(checkRecurrentParams(call, gates, *inputSize, *hidden, 0, 1, 1,
                                  *bias)))
    return failure();
  SmallVector<int64_t> hShape = {*hidden};
  if (rank == 2)
    hShape.insert(hShape.begin(), input.getDimSize(0));
  if (!hx->empty()) {
    if (hx->size() != (lstm ? 2u : 1u))
      return call.emitError() << (lstm ? "expects hx as the tuple (h0, c0)"
                                       : "expects hx as one tensor");
    for (auto [i, t] : llvm::enumerate(*hx)) {
      auto type = dyn_cast<RankedTensorType>(t);
      if (type && type.getRank() != rank)
        return call.emitError()
               << (rank == 1 ? "Expected hidden to be 1D for 1D input"
                             : "Expected hidden to be 2D for 2D input")
               << ", got " << type.getRank() << "D instead";
      if (failed(checkHidden(call, t, hShape, i ? "c0" : "h0")))
        return failure();
    }
  }
  Type elt = input.getElementType();
  if (!isa<FloatType>(elt))
    return call.emitError() << "expects a floating point input, got " << input;
  Type hType = RankedTensorType::get(hShape, elt);
  if (lstm)
    return h.result(TupleType::get(call.getContext(), {hType, hType}));
  return h.result(hType);
}

//===----------------------------------------------------------------------===//
// LAPACK factorizations (docs/linalg-runtime.md)
//===----------------------------------------------------------------------===//

/// The batch dims and the two matrix dims of a factorized operand, or an
/// error naming `what` (float32 or float64 batches of matrices only, as
/// torch's CPU kernels, which have no float16, bfloat16 or integer kernel).
static FailureOr<RankedTensorType> matrixOperand(const BoundCall &call,
                                                 RankedTensorType t,
                                                 StringRef what, bool square) {
  int64_t r = t.getRank();
  if (r < 2)
    return call.emitError() << what << " must have at least 2 dimensions, got "
                            << t;
  if (square && dimsDiffer(t.getDimSize(r - 1), t.getDimSize(r - 2)))
    return call.emitError() << what << " must be batches of square matrices, "
                                       "got "
                            << t;
  if (!t.getElementType().isF32() && !t.getElementType().isF64())
    return call.emitError() << "expects float32 or float64 matrices (no "
                               "LAPACK kernel for other dtypes), got "
                            << t;
  return t;
}

/// The broadcast of two batch shapes, or an error.
static FailureOr<SmallVector<int64_t>>
broadcastBatch(const BoundCall &call, RankedTensorType a, RankedTensorType b) {
  return broadcastShapes(call, a.getShape().drop_back(2),
                         b.getShape().drop_back(2));
}

static SmallVector<int64_t> concat(ArrayRef<int64_t> batch,
                                   ArrayRef<int64_t> tail) {
  SmallVector<int64_t> shape(batch);
  shape.append(tail.begin(), tail.end());
  return shape;
}

/// The solvers from a factorization (linalg.lu_solve, lu_solve,
/// cholesky_solve) and cholesky_inverse.
static LogicalResult factoredSolve(const BoundCall &call, RuleHelper &h) {
  StringRef t = call.getTarget();
  bool lu = t.contains("lu_solve");
  RankedTensorType f = h.tensor(t == "torch.linalg.lu_solve" ? "LU"
                                : t == "torch.lu_solve"      ? "LU_data"
                                : t == "torch.cholesky_solve" ? "input2"
                                                              : "input");
  if (!f)
    return h.unknown();
  if (failed(matrixOperand(call, f, lu ? "LU" : "A", true)))
    return failure();
  if (t == "torch.cholesky_inverse")
    return h.result(f);
  RankedTensorType b = h.tensor(t == "torch.linalg.lu_solve" ? "B" : "input");
  if (!b)
    return h.unknown();
  if (failed(matrixOperand(call, b, "B", false)))
    return failure();
  if (b.getElementType() != f.getElementType())
    return call.emitError() << "expects B and the factors of one dtype, got "
                            << b << " and " << f;
  bool left = !call.getSignature().lookup("left") ||
              call.getBool("left").value_or(true);
  int64_t n = f.getShape().back();
  if (dimsDiffer(b.getShape()[b.getRank() - (left ? 2 : 1)], n))
    return call.emitError() << "the factors " << f << " and B " << b
                            << " have incompatible sizes";
  FailureOr<SmallVector<int64_t>> bb = broadcastBatch(call, f, b);
  if (failed(bb))
    return failure();
  return h.result(concat(*bb, b.getShape().take_back(2)), f.getElementType());
}

/// lu_unpack, linalg.lu, torch.lu (lu_factor with infos) and symeig.
static LogicalResult unpackedFactors(const BoundCall &call, RuleHelper &h) {
  StringRef t = call.getTarget();
  MLIRContext *ctx = call.getContext();
  bool unpack = t == "torch.lu_unpack";
  RankedTensorType a = h.tensor(unpack ? "LU_data"
                                : t == "torch.symeig" ? "input"
                                                      : "A");
  if (!a)
    return h.unknown();
  if (failed(matrixOperand(call, a, "A", t == "torch.symeig")))
    return failure();
  Type e = a.getElementType(), i32 = IntegerType::get(ctx, 32);
  ArrayRef<int64_t> batch = a.getShape().drop_back(2);
  int64_t m = a.getShape()[a.getRank() - 2], n = a.getShape().back();
  int64_t k = ShapedType::isDynamic(m) || ShapedType::isDynamic(n)
                  ? ShapedType::kDynamic
                  : std::min(m, n);
  Type empty = RankedTensorType::get({0}, e);
  if (t == "torch.symeig") {
    bool vectors = call.getBool("eigenvectors").value_or(false);
    return h.result(TupleType::get(
        ctx, {RankedTensorType::get(concat(batch, {n}), e),
              vectors ? Type(a) : empty}));
  }
  if (!unpack && call.getBool("pivot") != std::optional<bool>(true))
    return call.emitError() << "LU without pivoting is not implemented on "
                               "the CPU (pivot must be True)";
  if (t == "torch.functional.lu") {
    if (!call.isNone("out"))
      return call.emitError() << "the result written into out= is not "
                                 "supported";
    std::optional<bool> infos = call.getBool("get_infos");
    if (!infos)
      return h.unknown();
    SmallVector<Type> types = {a, RankedTensorType::get(concat(batch, {k}), i32)};
    if (*infos)
      types.push_back(RankedTensorType::get(batch, i32));
    return h.result(TupleType::get(ctx, types));
  }
  bool data = !unpack || call.getBool("unpack_data").value_or(true),
       pivots = !unpack || call.getBool("unpack_pivots").value_or(true);
  if (unpack) {
    RankedTensorType p = h.tensor("LU_pivots");
    if (!p)
      return h.unknown();
    if (!p.getElementType().isInteger(32))
      return call.emitError() << "LU_pivots is expected to be a contiguous "
                                 "tensor of torch.int32 dtype, got "
                              << p;
  }
  return h.result(TupleType::get(
      ctx, {pivots ? RankedTensorType::get(concat(batch, {m, m}), e) : empty,
            data ? RankedTensorType::get(concat(batch, {m, k}), e) : empty,
            data ? RankedTensorType::get(concat(batch, {k, n}), e) : empty}));
}

/// geqrf, linalg.householder_product (orgqr) and ormqr.
static LogicalResult householder(const BoundCall &call, RuleHelper &h) {
  StringRef t = call.getTarget();
  MLIRContext *ctx = call.getContext();
  bool product = t == "torch.linalg.householder_product";
  RankedTensorType a = h.tensor(product ? "A" : "input");
  if (!a)
    return h.unknown();
  if (failed(matrixOperand(call, a, product ? "A" : "input", false)))
    return failure();
  Type e = a.getElementType();
  ArrayRef<int64_t> batch = a.getShape().drop_back(2);
  int64_t m = a.getShape()[a.getRank() - 2], n = a.getShape().back();
  if (t == "torch.geqrf") {
    int64_t k = ShapedType::isDynamic(m) || ShapedType::isDynamic(n)
                    ? ShapedType::kDynamic
                    : std::min(m, n);
    return h.result(TupleType::get(
        ctx, {a, RankedTensorType::get(concat(batch, {k}), e)}));
  }
  RankedTensorType tau = h.tensor(product ? "tau" : "input2");
  if (!tau)
    return h.unknown();
  if (tau.getElementType() != e || tau.getRank() != a.getRank() - 1 ||
      tau.getShape().drop_back() != batch)
    return call.emitError() << "tau " << tau << " must hold one vector per "
                               "matrix of " << a << ", in its dtype";
  int64_t k = tau.getShape().back();
  if (product) {
    if (m < n || n < k)
      return call.emitError() << "expects input.shape[-2] >= "
                                 "input.shape[-1] >= tau.shape[-1], got "
                              << a << " and " << tau;
    return h.result(a);
  }
  RankedTensorType c = h.tensor("input3");
  if (!c)
    return h.unknown();
  if (c.getElementType() != e || c.getRank() != a.getRank() ||
      c.getShape().drop_back(2) != batch)
    return call.emitError() << "the matrix " << c << " must have the batch "
                               "dims and dtype of "
                            << a;
  bool left = call.getBool("left").value_or(true);
  int64_t r = c.getShape()[c.getRank() - (left ? 2 : 1)];
  if (r != m || k > n || k > m)
    return call.emitError() << "the reflectors " << a << " and tau " << tau
                            << " do not fit " << c;
  return h.result(c);
}

/// linalg.matrix_rank (int64) and linalg.cond (p None, 2 or -2: the ratio
/// of extreme singular values) over each matrix.
static LogicalResult spectralComposite(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("A");
  if (!a)
    return h.unknown();
  bool rank = call.getTarget() == "torch.linalg.matrix_rank";
  if (failed(matrixOperand(call, a, "A",
                           rank && call.getBool("hermitian").value_or(false))))
    return failure();
  ArrayRef<int64_t> batch = a.getShape().drop_back(2);
  if (rank)
    return h.result(batch, IntegerType::get(call.getContext(), 64));
  if (!call.isNone("p")) {
    std::optional<int64_t> p = call.getInt("p");
    if (!p || (*p != 2 && *p != -2))
      return call.emitError() << "only the orders None, 2 and -2 (singular "
                                 "values) are supported";
  }
  return h.result(batch, a.getElementType());
}

/// Float32 or float64 (torch's LAPACK kernels), else an error naming `t`.
static LogicalResult lapackDType(const BoundCall &call, RankedTensorType t) {
  if (t.getElementType().isF32() || t.getElementType().isF64())
    return success();
  return call.emitError() << "expects float32 or float64 tensors (no LAPACK "
                             "kernel for other dtypes), got "
                          << t;
}

/// linalg.tensorinv and linalg.tensorsolve (decodeTensorInverse).
static LogicalResult tensorInverse(const BoundCall &call, RuleHelper &h) {
  bool solve = call.getTarget() == "torch.linalg.tensorsolve";
  RankedTensorType a = h.tensor("A"), b = solve ? h.tensor("B") : nullptr;
  if (!a || (solve && !b))
    return h.unknown();
  if (failed(lapackDType(call, a)))
    return failure();
  if (solve && b.getElementType() != a.getElementType())
    return call.emitError() << "linalg.solve: Expected A and B to have the "
                               "same dtype, got "
                            << a << " and " << b;
  std::optional<int64_t> ind = solve ? 0 : call.getInt("ind");
  std::optional<SmallVector<int64_t>> dims;
  if (solve && !call.isNone("dims")) {
    dims = call.getInts("dims");
    if (!dims)
      return h.unknown();
  }
  if (!a.hasStaticShape() || (solve && !b.hasStaticShape()) || !ind)
    return h.unknown();
  std::string error;
  std::optional<TensorInverse> d = decodeTensorInverse(
      a.getShape(), *ind,
      solve ? std::optional<ArrayRef<int64_t>>(b.getShape()) : std::nullopt,
      dims ? std::optional<ArrayRef<int64_t>>(*dims) : std::nullopt, error);
  if (!d)
    return call.emitError() << error;
  return h.result(d->resultShape, a.getElementType());
}

/// linalg.lstsq: (solution, residuals, rank, singular_values), each as
/// torch 1.13 shapes it for the driver (gelsy by default; the ranks and
/// singular values over A's batch, the others over the broadcast one):
/// residuals only
/// for m > n and a driver other than gelsy (for gelsd and gelss only when
/// every matrix has rank n, so their shape is the values': unranked),
/// ranks (int64) for all but gels, singular values for gelsd and gelss.
static LogicalResult lstsqRule(const BoundCall &call, RuleHelper &h) {
  RankedTensorType a = h.tensor("A"), b = h.tensor("B");
  if (!a || !b)
    return h.unknown();
  std::string driver = "gelsy";
  if (!call.isNone("driver")) {
    auto s = dyn_cast_or_null<StringAttr>(call.get("driver").value);
    if (!s)
      return h.unknown();
    driver = s.getValue().str();
  }
  if (driver != "gels" && driver != "gelsy" && driver != "gelsd" &&
      driver != "gelss")
    return call.emitError() << "torch.linalg.lstsq: parameter `driver` "
                               "should be one of (gels, gelsy, gelsd, gelss)";
  if (a.getRank() < 2)
    return call.emitError() << "torch.linalg.lstsq: input must have at "
                               "least 2 dimensions.";
  if (b.getRank() < 1)
    return call.emitError() << "torch.linalg.lstsq: other must have at "
                               "least 1 dimension.";
  if (a.getElementType() != b.getElementType())
    return call.emitError() << "torch.linalg.lstsq: Expected input and other "
                               "to have the same dtype, got "
                            << a << " and " << b;
  if (failed(lapackDType(call, a)))
    return failure();
  int64_t diff = a.getRank() - b.getRank();
  if (diff < 0 || diff > 1)
    return call.emitError() << "torch.linalg.lstsq: input.dim() must be "
                               "greater or equal to other.dim() and "
                               "(input.dim() - other.dim()) <= 1";
  if (!a.hasStaticShape() || !b.hasStaticShape())
    return h.unknown();
  SmallVector<int64_t> b2(b.getShape());
  if (diff)
    b2.push_back(1);
  int64_t m = a.getShape()[a.getRank() - 2], n = a.getShape().back(),
          k = b2.back();
  if (b2[b2.size() - 2] != m)
    return call.emitError() << "torch.linalg.lstsq: input.size(-2) should "
                               "match other.size("
                            << (diff ? -1 : -2) << ")";
  FailureOr<SmallVector<int64_t>> batch = broadcastShapes(
      call, a.getShape().drop_back(2), ArrayRef<int64_t>(b2).drop_back(2));
  if (failed(batch))
    return failure();
  MLIRContext *ctx = call.getContext();
  Type e = a.getElementType(), i64 = IntegerType::get(ctx, 64);
  Type empty = RankedTensorType::get({0}, e);
  Type solution = RankedTensorType::get(
      diff ? concat(*batch, {n}) : concat(*batch, {n, k}), e);
  Type residuals = empty;
  if (m > n && driver != "gelsy")
    residuals = driver == "gels"
                    ? Type(RankedTensorType::get(concat(*batch, {k}), e))
                    : Type(UnrankedTensorType::get(e));
  // (The ranks and singular values are A's: its batch, not the broadcast
  // one.)
  ArrayRef<int64_t> aBatch = a.getShape().drop_back(2);
  Type rank = driver == "gels" ? RankedTensorType::get({0}, i64)
                               : RankedTensorType::get(aBatch, i64);
  Type values = driver == "gelsd" || driver == "gelss"
                    ? RankedTensorType::get(concat(aBatch, {std::min(m, n)}),
                                            e)
                    : empty;
  return h.result(TupleType::get(ctx, {solution, residuals, rank, values}));
}

/// linalg.ldl_factor(_ex) (LD, pivots[, info]), linalg.ldl_solve and
/// matrix_exp.
static LogicalResult ldlRule(const BoundCall &call, RuleHelper &h) {
  StringRef t = call.getTarget();
  MLIRContext *ctx = call.getContext();
  RankedTensorType a = h.tensor(t == "torch.linalg.ldl_solve" ? "LD" : "A");
  if (!a)
    return h.unknown();
  if (failed(matrixOperand(call, a, t == "torch.linalg.ldl_solve" ? "LD" : "A",
                           true)))
    return failure();
  if (t == "torch.linalg.matrix_exp")
    return h.result(a);
  Type i32 = IntegerType::get(ctx, 32);
  ArrayRef<int64_t> batch = a.getShape().drop_back(2);
  int64_t n = a.getShape().back();
  if (t != "torch.linalg.ldl_solve") {
    Type pivots = RankedTensorType::get(concat(batch, {n}), i32);
    if (t.ends_with("_ex"))
      return h.result(TupleType::get(
          ctx, {a, pivots, RankedTensorType::get(batch, i32)}));
    return h.result(TupleType::get(ctx, {a, pivots}));
  }
  RankedTensorType p = h.tensor("pivots"), b = h.tensor("B");
  if (!p || !b)
    return h.unknown();
  if (!p.getElementType().isInteger(32))
    return call.emitError() << "torch.linalg.ldl_solve: Expected pivots to "
                               "be integers. Got "
                            << p;
  if (p.getRank() != a.getRank() - 1 ||
      (p.hasStaticShape() && a.hasStaticShape() &&
       p.getShape() != a.getShape().drop_back()))
    return call.emitError() << "torch.linalg.ldl_solve: expected pivots of "
                               "shape LD.shape[:-1], got "
                            << p << " for " << a;
  if (b.getRank() < 2)
    return call.emitError() << "torch.linalg.ldl_solve: The input tensor B "
                               "must have at least 2 dimensions.";
  if (b.getElementType() != a.getElementType())
    return call.emitError() << "torch.linalg.ldl_solve: Expected LD and B to "
                               "have the same dtype, got "
                            << a << " and " << b;
  if (dimsDiffer(b.getShape()[b.getRank() - 2], n))
    return call.emitError() << "torch.linalg.ldl_solve: Incompatible shapes "
                               "of A and B for the equation AX = B ("
                            << a << " and " << b << ")";
  FailureOr<SmallVector<int64_t>> bb = broadcastBatch(call, a, b);
  if (failed(bb))
    return failure();
  return h.result(concat(*bb, b.getShape().take_back(2)), a.getElementType());
}

/// The factorizations and solvers over LAPACK: cholesky, lu_factor, solve,
/// inv_ex, qr, svd, eigh, solve_triangular and their torch.* spellings.
LogicalResult lapack(const BoundCall &call, RuleHelper &h) {
  StringRef t = call.getTarget();
  if (t == "torch.linalg.tensorinv" || t == "torch.linalg.tensorsolve")
    return tensorInverse(call, h);
  if (t == "torch.linalg.lstsq")
    return lstsqRule(call, h);
  if (t.starts_with("torch.linalg.ldl_") || t == "torch.linalg.matrix_exp")
    return ldlRule(call, h);
  if (t.contains("lu_solve") || t == "torch.cholesky_solve" ||
      t == "torch.cholesky_inverse")
    return factoredSolve(call, h);
  if (t == "torch.lu_unpack" || t == "torch.linalg.lu" ||
      t == "torch.functional.lu" || t == "torch.symeig")
    return unpackedFactors(call, h);
  if (t == "torch.geqrf" || t == "torch.linalg.householder_product" ||
      t == "torch.ormqr")
    return householder(call, h);
  if (t == "torch.linalg.matrix_rank" || t == "torch.linalg.cond")
    return spectralComposite(call, h);
  if (t == "torch.linalg.pinv" || t == "torch.pinverse") {
    // The pseudo-inverse: (*, n, m).
    RankedTensorType a = h.tensor(t == "torch.pinverse" ? "input" : "A");
    if (!a)
      return h.unknown();
    bool hermitian = t == "torch.linalg.pinv" &&
                     call.getBool("hermitian").value_or(false);
    if (failed(matrixOperand(call, a, "A", hermitian)))
      return failure();
    SmallVector<int64_t> shape(a.getShape());
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    return h.result(shape, a.getElementType());
  }
  MLIRContext *ctx = call.getContext();
  bool linalg = t.starts_with("torch.linalg.");
  RankedTensorType a = h.tensor(call.getSignature().lookup("A") ? "A" : "input");
  if (!a)
    return h.unknown();
  bool square = !t.contains("lu_factor") && !t.contains("qr") &&
                !t.contains("svd");
  if (failed(matrixOperand(call, a, "A", square)))
    return failure();
  Type e = a.getElementType(), i32 = IntegerType::get(ctx, 32);
  ArrayRef<int64_t> batch = a.getShape().drop_back(2);
  int64_t m = a.getShape()[a.getRank() - 2], n = a.getShape().back();
  int64_t k = ShapedType::isDynamic(m) || ShapedType::isDynamic(n)
                  ? ShapedType::kDynamic
                  : std::min(m, n);
  auto tensor = [&](ArrayRef<int64_t> shape, Type type) -> Type {
    return RankedTensorType::get(shape, type);
  };
  auto tuple = [&](ArrayRef<Type> types) {
    return h.result(TupleType::get(ctx, types));
  };
  Type info = tensor(batch, i32);
  if (t.contains("cholesky")) {
    if (t.ends_with("_ex"))
      return tuple({a, info});
    return h.result(a);
  }
  if (t.contains("lu_factor")) {
    if (call.getBool("pivot") != std::optional<bool>(true))
      return call.emitError() << "LU without pivoting is not implemented on "
                                 "the CPU (pivot must be True)";
    Type pivots = tensor(concat(batch, {k}), i32);
    if (t.ends_with("_ex"))
      return tuple({a, pivots, info});
    return tuple({a, pivots});
  }
  if (t == "torch.linalg.inv_ex")
    return tuple({a, info});
  if (t.contains("solve")) {
    RankedTensorType b = h.tensor(t == "torch.triangular_solve" ? "input" : "B");
    if (!b)
      return h.unknown();
    if (t == "torch.triangular_solve") {
      // (input is B (*, m, k), A (*, m, m).)
      if (failed(matrixOperand(call, a, "A", true)) ||
          failed(matrixOperand(call, b, "input", false)))
        return failure();
      if (b.getElementType() != e)
        return call.emitError() << "expects b and A of one dtype, got " << b
                                << " and " << a;
      if (dimsDiffer(a.getShape().back(), b.getShape()[b.getRank() - 2]))
        return call.emitError() << "A " << a << " and input " << b
                                << " have incompatible sizes";
      FailureOr<SmallVector<int64_t>> bb = broadcastBatch(call, a, b);
      if (failed(bb))
        return failure();
      return tuple({tensor(concat(*bb, b.getShape().take_back(2)), e),
                    tensor(concat(*bb, a.getShape().take_back(2)), e)});
    }
    bool vector = t == "torch.linalg.solve" || t == "torch.linalg.solve_ex"
                      ? solveTakesVector(a.getShape(), b.getShape())
                      : false;
    bool left = call.getBool("left").value_or(true);
    if (vector && !left)
      return call.emitError() << "vector broadcasting of the left hand side "
                                 "is not supported for left=False";
    RankedTensorType bm =
        vector ? RankedTensorType::get(concat(b.getShape(), {1}), e) : b;
    // (solve_triangular computes B in A's dtype; the others refuse a B of
    // another dtype, as torch does.)
    bool anyB = t == "torch.linalg.solve_triangular";
    if (bm.getRank() < 2)
      return call.emitError() << "B must have at least 2 dimensions, got " << b;
    if (!anyB && failed(matrixOperand(call, bm, "B", false)))
      return failure();
    if (!anyB && bm.getElementType() != e)
      return call.emitError() << "expects A and B of one dtype, got " << a
                              << " and " << b;
    int64_t rows = bm.getShape()[bm.getRank() - (left ? 2 : 1)];
    if (dimsDiffer(rows, n))
      return call.emitError() << "A " << a << " and B " << b
                              << " have incompatible sizes";
    FailureOr<SmallVector<int64_t>> bb = broadcastBatch(call, a, bm);
    if (failed(bb))
      return failure();
    Type x = tensor(vector ? concat(*bb, {n})
                           : concat(*bb, bm.getShape().take_back(2)),
                    e);
    if (t == "torch.linalg.solve_ex")
      return tuple({x, info});
    return h.result(x);
  }
  if (t.contains("qr")) {
    std::string mode = "reduced";
    if (linalg) {
      auto s = dyn_cast_or_null<StringAttr>(call.get("mode").value);
      if (!s)
        return h.unknown();
      mode = s.getValue().str();
    } else if (!call.getBool("some").value_or(true)) {
      mode = "complete";
    }
    if (mode != "reduced" && mode != "complete" && mode != "r")
      return call.emitError() << "qr received unrecognized mode '" << mode
                              << "' but expected one of 'reduced' (default), "
                                 "'r', or 'complete'";
    int64_t rows = mode == "complete" ? m : k;
    Type q = mode == "r" ? tensor({0}, e) : tensor(concat(batch, {m, rows}), e);
    return tuple({q, tensor(concat(batch, {rows, n}), e)});
  }
  if (t.contains("svd")) {
    Type s = tensor(concat(batch, {k}), e);
    if (t == "torch.linalg.svdvals")
      return h.result(s);
    if (linalg) {
      bool full = call.getBool("full_matrices").value_or(true);
      return tuple({tensor(concat(batch, {m, full ? m : k}), e), s,
                    tensor(concat(batch, {full ? n : k, n}), e)});
    }
    bool some = call.getBool("some").value_or(true),
         uv = call.getBool("compute_uv").value_or(true);
    bool reduced = some && uv;
    return tuple({tensor(concat(batch, {m, reduced ? k : m}), e), s,
                  tensor(concat(batch, {n, reduced ? k : n}), e)});
  }
  if (t.contains("eigh") || t.contains("eigvalsh")) {
    auto uplo = dyn_cast_or_null<StringAttr>(call.get("UPLO").value);
    if (!uplo)
      return h.unknown();
    if (uplo.getValue() != "L" && uplo.getValue() != "U")
      return call.emitError() << "Expected UPLO argument to be 'L' or 'U', "
                                 "but got "
                              << uplo.getValue();
    Type w = tensor(concat(batch, {n}), e);
    if (t == "torch.linalg.eigvalsh")
      return h.result(w);
    return tuple({w, a});
  }
  return call.emitError() << "no LAPACK rule for this entry";
}


//===----------------------------------------------------------------------===//
// Complex-to-real FFTs of real input, scaled dot-product attention
//===----------------------------------------------------------------------===//

/// torch.fft.irfft/irfft2/irfftn (hfft*: `hermitian`) of a real input:
/// decodeFftC2R's shape, in float64 for float64 and the default float32
/// for bool and integers (float16 and bfloat16 are refused by the table).
static LogicalResult fftC2R(const BoundCall &call, RuleHelper &h,
                            bool hermitian) {
  RankedTensorType input = h.tensor("input");
  if (!input)
    return h.unknown();
  FftC2R fft;
  std::string error;
  ConvDecode status = withArgReader(call, [&](const ArgReader &reader) {
    return decodeFftC2R(call.getSignature(), reader, input.getShape(),
                        hermitian, hermitian ? "hfftn" : "irfftn", fft, error);
  });
  if (!h.decoded(status, error))
    return h.stop();
  std::optional<DType> d = dtypeFromType(input.getElementType());
  if (!d)
    return h.unknown();
  return h.result(fft.resultShape,
                  typeFromDType(call.getContext(), toFloatingDType(*d)));
}

LogicalResult irfft(const BoundCall &call, RuleHelper &h) {
  return fftC2R(call, h, /*hermitian=*/false);
}

LogicalResult hfft(const BoundCall &call, RuleHelper &h) {
  return fftC2R(call, h, /*hermitian=*/true);
}

/// torch.stft and torch.istft of real tensors (decodeStft, decodeIstft): a
/// real result of the input's dtype, float64 when the window is float64
/// (torch promotes the signal times the window); istft refuses windows that
/// are not float32 or float64 (col2im_out_cpu).
static LogicalResult stftRule(const BoundCall &call, RuleHelper &h,
                              bool inverse) {
  RankedTensorType input = h.tensor("input");
  RankedTensorType window =
      call.isNone("window") ? RankedTensorType() : h.tensor("window");
  if (!input || (!call.isNone("window") && !window))
    return h.unknown();
  std::optional<ArrayRef<int64_t>> windowShape;
  if (window)
    windowShape = window.getShape();
  Stft stft;
  std::string error;
  ConvDecode status = withArgReader(call, [&](const ArgReader &reader) {
    return inverse ? decodeIstft(reader, input.getShape(), windowShape, stft,
                                 error)
                   : decodeStft(reader, input.getShape(), windowShape, stft,
                                error);
  });
  if (!h.decoded(status, error))
    return h.stop();
  std::optional<DType> d = dtypeFromType(input.getElementType());
  std::optional<DType> w;
  if (window && !(w = dtypeFromType(window.getElementType())))
    return h.unknown();
  if (!d)
    return h.unknown();
  if (w && inverse && *w != DType::F32 && *w != DType::F64) {
    h.error() << "istft: the window must be float32 or float64 (torch's "
              << "overlap-add is not implemented for " << dtypeName(*w) << ")";
    return h.stop();
  }
  DType out = (w == DType::F64) ? DType::F64 : *d;
  return h.result(stft.resultShape, typeFromDType(call.getContext(), out));
}

LogicalResult stft(const BoundCall &call, RuleHelper &h) {
  return stftRule(call, h, /*inverse=*/false);
}

LogicalResult istft(const BoundCall &call, RuleHelper &h) {
  return stftRule(call, h, /*inverse=*/true);
}

/// torch 1.13's nn.functional._scaled_dot_product_attention: (output,
/// attention weights), softmax(q k^T / sqrt(E) + mask) and its product
/// with v; both results always (need_attn_weights only names the wish).
/// Dropout is random for 0 < dropout_p < 1, refused.
LogicalResult scaledDotProductAttention(const BoundCall &call, RuleHelper &h) {
  RankedTensorType q = h.tensor("query"), k = h.tensor("key"),
                   v = h.tensor("value");
  std::optional<double> p = call.getFloat("dropout_p");
  std::optional<bool> causal = call.getBool("is_causal");
  if (!q || !k || !v || !p || !causal)
    return h.unknown();
  for (RankedTensorType t : {q, k, v})
    if (t.getRank() < 2)
      return call.emitError() << "query, key and value must have at least "
                                 "2 dims (batch..., length, embedding), got "
                              << t;
  // The scaled query (query * (1 / sqrt(E))) is floating: bool and
  // integer queries become float32; key and value must be of its dtype.
  std::optional<DType> qd = dtypeFromType(q.getElementType());
  if (!qd)
    return h.unknown();
  Type e = typeFromDType(call.getContext(), toFloatingDType(*qd));
  if (k.getElementType() != e || v.getElementType() != e)
    return call.emitError() << "expects key and value of the scaled query's "
                               "dtype "
                            << e << ", got " << k << " and " << v;
  if (e.isF16())
    return noCpuKernel(call, e);
  q = q.clone(e);
  std::string shown;
  llvm::raw_string_ostream(shown) << llvm::format("%g", *p);
  if (*p < 0 || *p > 1)
    return call.emitError()
           << "dropout probability has to be between 0 and 1, but got "
           << shown;
  // (dropout_p = 1 drops every weight: zeros, deterministic.)
  if (*p > 0 && *p < 1)
    return call.emitError()
           << "dropout_p=" << shown
           << " drops attention weights at random (torch's generator): only "
              "dropout_p=0.0 and 1.0 are supported";
  RankedTensorType mask = h.tensor("attn_mask");
  if (*causal && !call.isNone("attn_mask"))
    return call.emitError() << "_scaled_dot_product_attention: Explicit "
                               "attn_mask should not be set when is_causal=True";
  SmallVector<int64_t> kt(k.getShape());
  std::swap(kt[kt.size() - 1], kt[kt.size() - 2]);
  SmallVector<Type> scores;
  if (failed(matmulShapes(call, scores, q, k.clone(kt))))
    return failure();
  auto attn = dyn_cast_or_null<RankedTensorType>(
      scores.empty() ? Type() : scores[0]);
  if (!attn)
    return h.unknown();
  if (mask) {
    // attn.add_(mask): the mask broadcasts to the weights' shape.
    FailureOr<SmallVector<int64_t>> both =
        broadcastShapes(call, attn.getShape(), mask.getShape());
    if (failed(both))
      return failure();
    if (*both != SmallVector<int64_t>(attn.getShape()))
      return call.emitError() << "attn_mask " << mask
                              << " does not broadcast to the attention "
                                 "weights' shape "
                              << attn;
  } else if (!call.isNone("attn_mask")) {
    return h.unknown();
  }
  SmallVector<Type> output;
  if (failed(matmulShapes(call, output, attn, v)))
    return failure();
  if (output.empty() || !output[0])
    return h.unknown();
  return h.result(TupleType::get(call.getContext(), {output[0], attn}));
}

} // namespace mlir::traced::rules

using namespace mlir::traced::rules;

std::optional<TensorInverse> mlir::traced::decodeTensorInverse(
    ArrayRef<int64_t> a, int64_t ind, std::optional<ArrayRef<int64_t>> other,
    std::optional<ArrayRef<int64_t>> dims, std::string &error) {
  llvm::raw_string_ostream err(error);
  int64_t rank = a.size();
  auto prod = [](ArrayRef<int64_t> s) {
    int64_t p = 1;
    for (int64_t v : s)
      p *= v;
    return p;
  };
  TensorInverse r;
  SmallVector<int64_t> moved;
  if (other && dims) {
    for (int64_t d : *dims) {
      int64_t nd = d < 0 ? d + rank : d;
      if (nd < 0 || nd >= rank) {
        err << "Dimension out of range (expected to be in range of [" << -rank
            << ", " << rank - 1 << "], but got " << d << ")";
        return std::nullopt;
      }
      if (llvm::is_contained(moved, nd)) {
        err << "movedim: repeated dim in `source` (" << d << ")";
        return std::nullopt;
      }
      moved.push_back(nd);
    }
  }
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(moved, d))
      r.perm.push_back(d);
  r.perm.append(moved.begin(), moved.end());
  SmallVector<int64_t> shape;
  for (int64_t d : r.perm)
    shape.push_back(a[d]);
  if (other)
    ind = other->size();
  else if (ind <= 0) {
    err << "Expected a strictly positive integer for 'ind', but got " << ind;
    return std::nullopt;
  }
  if (ind > rank) {
    err << (other ? "B" : "'ind'") << " must not have more dims than A ("
        << ind << " > " << rank << ")";
    return std::nullopt;
  }
  ArrayRef<int64_t> head = ArrayRef<int64_t>(shape).take_front(ind),
                    tail = ArrayRef<int64_t>(shape).drop_front(ind);
  int64_t h = prod(head), t = prod(tail);
  if (other ? prod(*other) != t : h != t) {
    err << "Expected self to satisfy the requirement prod(self.shape["
        << (other ? "other.ndim" : "ind") << ":]) == prod(self.shape[:"
        << (other ? "other.ndim" : "ind") << "]), but got " << t << " != "
        << (other ? prod(*other) : h);
    return std::nullopt;
  }
  if (h != t) {
    err << "shape '[" << t << ", " << t << "]' is invalid for input of size "
        << h * t;
    return std::nullopt;
  }
  r.size = t;
  r.resultShape.assign(tail.begin(), tail.end());
  if (!other)
    r.resultShape.append(head.begin(), head.end());
  return r;
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

//===----------------------------------------------------------------------===//
// einsum
//===----------------------------------------------------------------------===//

EinsumSides traced::splitEinsum(StringRef equation) {
  std::string eq = equation.str();
  llvm::erase(eq, ' ');
  size_t arrow = StringRef(eq).find("->");
  if (arrow == StringRef::npos)
    return {eq, std::nullopt};
  return {eq.substr(0, arrow), eq.substr(arrow + 2)};
}

FailureOr<EinsumPlan>
traced::planEinsum(StringRef equation, ArrayRef<ArrayRef<int64_t>> shapes,
                   std::string &error) {
  EinsumSides sides = splitEinsum(equation);
  SmallVector<StringRef> terms;
  StringRef(sides.inputs).split(terms, ',');
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
  if (sides.output) {
    StringRef rhs = *sides.output;
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

/// Whether linalg.solve's B is a batch of vectors (torch's rule: 1-D, or
/// A's shape without its last dim).
bool mlir::traced::solveTakesVector(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  return b.size() == 1 ||
         (b.size() + 1 == a.size() && b == a.drop_back());
}

