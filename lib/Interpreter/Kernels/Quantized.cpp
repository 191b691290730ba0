//===- Quantized.cpp - kernels of the quantized ops -----------------------===//
//
// Quantized tensors hold their storage integers and the quant dialect's
// element type (Tensor::quantType). These kernels compute what torch
// 1.13's QuantizedCPU kernels compute, step for step where the step
// decides a rounding (docs/quantization.md, "Numerics"):
//
// - quantize: zero_point + nearbyint(x * (1.0f / float(scale))) in
//   float32, converted to int64 as x86 does (out of range: the lowest
//   value) and clamped to the storage range (at::native::quantize_val);
// - dequantize: fma(float(scale), q, float(scale) * -zero_point), as
//   torch's vectorized dequantize computes it;
// - conv and linear (the oneDNN engine): the products of (q - zero_point)
//   summed exactly in integers, times the output scale over the input's
//   and the weight's, plus the float bias over the output scale, in
//   float32 (oneDNN's reciprocal scales), rounded to nearest even. Measured
//   against torch on resnet18's layers, 0 to 4 elements in 100,000 differ
//   by one step (oneDNN's own order of float operations); the bias
//   quantized into the integer sum instead differs in 0.04%;
// - add: both operands dequantized (as above), added in float32 and
//   quantized; mul: the integer product scaled by sa * sb / s.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "TracedIR/Interpreter/Kernels.h"
#include "TracedIR/Runtime/Int8Runtime.h"
#include "TracedIR/Support/QuantParams.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Traits.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::traced;

namespace {
using QParams = QuantParams;

/// The index along `axis` of element `i` of a tensor of `shape`.
int64_t axisIndex(ArrayRef<int64_t> shape, int64_t axis, int64_t i) {
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
    inner *= shape[d];
  return (i / inner) % shape[axis];
}

/// A new quantized tensor of `quant` and `shape`.
Tensor quantizedTensor(Type quant, ArrayRef<int64_t> shape) {
  return Tensor(*storageDTypeFromType(quant), shape).withQuantType(quant);
}

/// A quantized tensor argument, or an error.
FailureOr<Tensor> quantizedArg(const KernelArgs &args, StringRef name) {
  FailureOr<Tensor> t = args.tensor(name);
  if (failed(t))
    return failure();
  if (!t->isQuantized())
    return args.emitError() << "expects a quantized tensor for '" << name
                            << "'";
  return t;
}

/// A scale or zero point given as a number or a one-element tensor
/// (torch.fx's converted models pass buffers).
FailureOr<double> numberArg(const KernelArgs &args, StringRef name) {
  const RtValue &v = args.get(name);
  if (v.isTensor()) {
    if (v.tensor().numel() != 1)
      return args.emitError() << "expects one " << name << ", got a tensor of "
                              << v.tensor().numel() << " elements";
    return v.tensor().getDouble(0);
  }
  if (std::optional<double> d = v.number())
    return *d;
  return args.emitError() << "expects a number for '" << name << "'";
}

/// The per-tensor type of the `dtype`'s storage (a quantized type) at the
/// call's `scale` and `zero_point` arguments.
FailureOr<Type> resultType(const KernelArgs &args, Type dtype) {
  FailureOr<double> scale = numberArg(args, "scale"),
                    zp = numberArg(args, "zero_point");
  if (failed(scale) || failed(zp))
    return failure();
  Type t = uniformQuantizedType(dtype, *scale, int64_t(*zp),
                                [&]() { return args.emitError(); });
  if (!t)
    return failure();
  return t;
}

/// The quantized dtype a `dtype` argument names.
FailureOr<Type> quantizedDType(const KernelArgs &args) {
  const RtValue &v = args.get("dtype");
  auto *a = std::get_if<Attribute>(&v.v);
  auto d = a ? dyn_cast<DTypeAttr>(*a) : DTypeAttr();
  if (!d || !isQuantizedDType(d.getType()))
    return args.emitError() << "expects a quantized dtype";
  return d.getType();
}

FailureOr<RtValue> quantizePerTensor(const KernelArgs &args) {
  FailureOr<Tensor> x = args.tensor("input");
  FailureOr<Type> dtype = quantizedDType(args);
  if (failed(x) || failed(dtype))
    return failure();
  if (x->dtype() != DType::F32 || x->isQuantized())
    return args.emitError() << "quantizes float32 tensors only";
  FailureOr<Type> type = resultType(args, *dtype);
  if (failed(type))
    return failure();
  QParams p(*type);
  Tensor out = quantizedTensor(*type, x->shape());
  const float *in = x->data<float>();
  int64_t *o = out.data<int64_t>();
  for (int64_t i = 0; i < out.numel(); ++i)
    o[i] = p.quantize(in[i]);
  return RtValue(out);
}

FailureOr<RtValue> quantizePerChannel(const KernelArgs &args) {
  FailureOr<Tensor> x = args.tensor("input"), scales = args.tensor("scales"),
                    zps = args.tensor("zero_points");
  FailureOr<Type> dtype = quantizedDType(args);
  FailureOr<int64_t> axisArg = args.getInt("axis");
  if (failed(x) || failed(scales) || failed(zps) || failed(dtype) ||
      failed(axisArg))
    return failure();
  if (x->dtype() != DType::F32 || x->isQuantized())
    return args.emitError() << "quantizes float32 tensors only";
  FailureOr<int64_t> axis = normalizeDim(args, *axisArg, x->rank());
  if (failed(axis))
    return failure();
  int64_t n = x->dim(*axis);
  if (scales->rank() != 1 || scales->numel() != n || zps->rank() != 1 ||
      zps->numel() != n)
    return args.emitError() << "expects " << n
                            << " scales and zero points, one per index "
                               "along axis "
                            << *axis;
  SmallVector<double> s;
  SmallVector<int64_t> z;
  for (int64_t i = 0; i < n; ++i) {
    s.push_back(scales->getDouble(i));
    z.push_back(zps->getInt(i));
    // The checks of the per-tensor type, channel by channel.
    if (!uniformQuantizedType(*dtype, s.back(), z.back(),
                              [&]() { return args.emitError(); }))
      return failure();
  }
  auto q = cast<quant::QuantizedType>(*dtype);
  QParams range(uniformQuantizedType(*dtype, s[0], z[0], nullptr));
  Type type = quant::UniformQuantizedPerAxisType::get(
      q.getFlags(), q.getStorageType(),
      Float32Type::get(q.getContext()), s, z, int32_t(*axis), range.lo,
      range.hi);
  QParams p(type);
  Tensor out = quantizedTensor(type, x->shape());
  const float *in = x->data<float>();
  int64_t *o = out.data<int64_t>();
  for (int64_t i = 0; i < out.numel(); ++i)
    o[i] = p.quantize(in[i], axisIndex(x->shape(), *axis, i));
  return RtValue(out);
}

/// The float32 values of a quantized tensor.
Tensor dequantized(const Tensor &q) {
  QParams p(q.quantType());
  Tensor out(DType::F32, q.shape());
  const int64_t *in = q.data<int64_t>();
  float *o = out.data<float>();
  for (int64_t i = 0; i < out.numel(); ++i)
    o[i] = p.dequantize(in[i], p.axis < 0 ? 0 : axisIndex(q.shape(), p.axis, i));
  return out;
}

FailureOr<RtValue> dequantize(const KernelArgs &args) {
  FailureOr<Tensor> x = args.tensor("input");
  if (failed(x))
    return failure();
  if (!x->isQuantized())
    return RtValue(x->to(DType::F32));
  return RtValue(dequantized(*x));
}

/// torch.ops.quantized.add/add_relu/mul/mul_relu (qadd_kernel,
/// qmul_kernel), broadcasting their operands.
template <bool Mul, bool Relu>
FailureOr<RtValue> quantizedBinary(const KernelArgs &args) {
  FailureOr<Tensor> a = quantizedArg(args, "qa"), b = quantizedArg(args, "qb");
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Type> type = resultType(args, a->quantType());
  if (failed(type))
    return failure();
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(a->shape(), b->shape(), shape))
    return args.emitError() << "operands do not broadcast";
  Tensor x = broadcastTo(*a, shape), y = broadcastTo(*b, shape);
  QParams pa(a->quantType()), pb(b->quantType()), po(*type);
  if (pa.axis >= 0 || pb.axis >= 0)
    return args.emitError() << "takes tensors quantized per tensor only";
  Tensor out = quantizedTensor(*type, shape);
  const int64_t *xa = x.data<int64_t>(), *yb = y.data<int64_t>();
  int64_t *o = out.data<int64_t>();
  // qmul_kernel's multiplier: sa * sb * (1.0f / s), in double.
  float multiplier = static_cast<float>(
      pa.scale() * pb.scale() * double(1.0f / static_cast<float>(po.scale())));
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t q;
    if constexpr (Mul) {
      int64_t c = (xa[i] - pa.zeroPoint()) * (yb[i] - pb.zeroPoint());
      q = po.clamp(po.zeroPoint() +
                   static_cast<int64_t>(std::nearbyint(float(c) * multiplier)));
    } else {
      q = po.quantize(pa.dequantize(xa[i]) + pb.dequantize(yb[i]));
    }
    o[i] = Relu ? std::max(q, po.zeroPoint()) : q;
  }
  return RtValue(out);
}

/// torch.ops.quantized.cat: the tensors requantized to the result's
/// parameters (dequantize_val then quantize_val), then concatenated.
/// torch.cat of quantized tensors: requantized to the first one's
/// parameters (cat_quantized_cpu), as torch.ops.quantized.cat does given
/// them. `list` names the list argument.
template <bool Functional>
FailureOr<RtValue> quantizedCat(const KernelArgs &args) {
  const RtValue::List *l = args.get(Functional ? "qx" : "tensors").list();
  FailureOr<int64_t> dimArg = args.getInt("dim");
  if (!l || l->items.empty() || failed(dimArg))
    return args.emitError() << "expects a non-empty list of tensors";
  SmallVector<Tensor> parts;
  for (const RtValue &v : l->items) {
    if (!v.isTensor() || !v.tensor().isQuantized())
      return args.emitError() << "expects quantized tensors";
    parts.push_back(v.tensor());
  }
  Type type = parts[0].quantType();
  if (Functional && (!args.isNone("scale") || !args.isNone("zero_point"))) {
    FailureOr<Type> given = resultType(args, type);
    if (failed(given))
      return failure();
    type = *given;
  }
  FailureOr<int64_t> dim = normalizeDim(args, *dimArg, parts[0].rank());
  if (failed(dim))
    return failure();
  SmallVector<int64_t> shape(parts[0].shape());
  shape[*dim] = 0;
  for (const Tensor &t : parts) {
    if (t.rank() != int64_t(shape.size()))
      return args.emitError() << "expects tensors of one rank";
    for (int64_t d = 0; d < t.rank(); ++d)
      if (d != *dim && t.dim(d) != shape[d])
        return args.emitError() << "sizes of tensors must match except in "
                                   "dimension "
                                << *dim;
    shape[*dim] += t.dim(*dim);
  }
  QParams po(type);
  Tensor out = quantizedTensor(type, shape);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < *dim; ++d)
    outer *= shape[d];
  for (int64_t d = *dim + 1; d < int64_t(shape.size()); ++d)
    inner *= shape[d];
  int64_t *o = out.data<int64_t>();
  int64_t offset = 0;
  for (const Tensor &t : parts) {
    QParams pi(t.quantType());
    if (pi.axis >= 0)
      return args.emitError() << "takes tensors quantized per tensor only";
    int64_t block = t.dim(*dim) * inner;
    const int64_t *in = t.data<int64_t>();
    for (int64_t r = 0; r < outer; ++r)
      for (int64_t i = 0; i < block; ++i) {
        int64_t q = in[r * block + i];
        float value = static_cast<float>(pi.scale()) *
                      static_cast<float>(q - pi.zeroPoint());
        o[r * shape[*dim] * inner + offset + i] =
            t.quantType() == type ? q : po.quantize(value);
      }
    offset += block;
  }
  return RtValue(out);
}

/// The storage integers of `t` less their zero points, as float64 (exact:
/// the conv and linear kernels sum their products exactly in float64).
Tensor centered(const Tensor &t) {
  QParams p(t.quantType());
  Tensor out(DType::F64, t.shape());
  const int64_t *in = t.data<int64_t>();
  double *o = out.data<double>();
  for (int64_t i = 0; i < out.numel(); ++i)
    o[i] = double(in[i] - p.zeroPoint(p.axis < 0 ? 0 : axisIndex(t.shape(), p.axis, i)));
  return out;
}

/// The kernel of float entry `entry` on the call's arguments, those named
/// in `replaced` replaced (the centered integers of a quantized input, in
/// float64, for a float kernel to sum exactly).
FailureOr<RtValue>
floatKernel(const KernelArgs &args, StringRef entry,
            ArrayRef<std::pair<StringRef, RtValue>> replaced) {
  std::vector<RtValue> values;
  for (const Param &p : args.signature().params) {
    auto it = llvm::find_if(replaced, [&](const auto &r) { return r.first == p.name; });
    values.push_back(it != replaced.end() ? it->second : args.get(p.name));
  }
  KernelArgs floatArgs(args.signature(), std::move(values),
                       [&]() { return args.emitError(); });
  return lookupKernel(entry)(floatArgs);
}

/// The quantized modules' conv and linear (oneDNN's int8 kernels): the
/// exact integer sums of the float op `floatEntry` on the centered values,
/// times s_in * s_w[c] / s_out plus bias / s_out plus the zero point in
/// float32, rounded to nearest even (ReLU: at least the zero point) and
/// saturated.
template <bool Relu>
FailureOr<RtValue> quantizedContraction(const KernelArgs &args,
                                        StringRef floatEntry) {
  FailureOr<Tensor> x = quantizedArg(args, "input"),
                    w = quantizedArg(args, "weight");
  if (failed(x) || failed(w))
    return failure();
  std::optional<Tensor> bias;
  if (!args.isNone("bias")) {
    FailureOr<Tensor> b = args.tensor("bias");
    if (failed(b))
      return failure();
    if (b->dtype() != DType::F32 || b->rank() != 1 || b->numel() != w->dim(0))
      return args.emitError() << "expects a float32 bias of " << w->dim(0)
                              << " elements";
    bias = *b;
  }
  Type type = x->quantType();
  if (!args.isNone("scale") || !args.isNone("zero_point")) {
    FailureOr<Type> given = resultType(args, type);
    if (failed(given))
      return failure();
    type = *given;
  }
  QParams px(x->quantType()), pw(w->quantType()), po(type);
  if (px.axis >= 0)
    return args.emitError() << "takes an input quantized per tensor only";
  // The float op's kernel on the centered values, bias left out.
  FailureOr<RtValue> sums =
      floatKernel(args, floatEntry,
                  {{"input", RtValue(centered(*x))},
                   {"weight", RtValue(centered(*w))},
                   {"bias", RtValue()}});
  if (failed(sums))
    return failure();
  const Tensor &acc = sums->tensor();
  Tensor out = quantizedTensor(type, acc.shape());
  // Output channels: dim 1 of a batched conv's result, the last of linear's.
  bool conv = floatEntry != "torch.nn.functional.linear";
  int64_t channelDim = conv ? (acc.rank() == w->rank() ? 1 : 0) : acc.rank() - 1;
  const double *a = acc.data<double>();
  int64_t *o = out.data<int64_t>();
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t c = axisIndex(acc.shape(), channelDim, i);
    // oneDNN's scales are the reciprocals of torch's, in float32. (Separate
    // statements: no contraction into a fused multiply-add.)
    float inverseOut = static_cast<float>(1.0 / po.scale());
    float inverseIn = static_cast<float>(1.0 / px.scale()) *
                      static_cast<float>(1.0 / pw.scale(c));
    float multiplier = inverseOut / inverseIn;
    float y = static_cast<float>(a[i]) * multiplier;
    if (bias) {
      float b = bias->data<float>()[c] * inverseOut;
      y = y + b;
    }
    // oneDNN adds the output zero point before rounding, in float32 (a
    // tie of y itself can round the other way: -21.5 + 57 gives 36).
    float v = std::nearbyint(y + static_cast<float>(po.zeroPoint()));
    int64_t lo = Relu ? po.zeroPoint() : po.lo;
    o[i] = v <= static_cast<float>(lo)      ? lo
           : v >= static_cast<float>(po.hi) ? po.hi
                                            : static_cast<int64_t>(v);
  }
  return RtValue(out);
}

template <bool Relu> FailureOr<RtValue> quantizedConv(const KernelArgs &args) {
  return quantizedContraction<Relu>(args, "torch.nn.functional.conv2d");
}
template <bool Relu>
FailureOr<RtValue> quantizedLinear(const KernelArgs &args) {
  return quantizedContraction<Relu>(args, "torch.nn.functional.linear");
}

/// relu, relu6 and hardtanh of a quantized tensor (qrelu, qrelu6, qclamp):
/// the storage integers clamped to the quantized bounds (relu: the zero
/// point and above).
template <int Kind> // 0 relu, 1 relu6, 2 hardtanh
FailureOr<RtValue> quantizedClamp(const KernelArgs &args) {
  FailureOr<Tensor> x = quantizedArg(args, "input");
  if (failed(x))
    return failure();
  QParams p(x->quantType());
  if (p.axis >= 0)
    return args.emitError() << "takes a tensor quantized per tensor only";
  int64_t lo = p.zeroPoint(), hi = p.hi;
  if (Kind == 1)
    hi = p.quantize(6.0f);
  if (Kind == 2) {
    FailureOr<double> mn = args.getFloat("min_val"), mx = args.getFloat("max_val");
    if (failed(mn) || failed(mx))
      return failure();
    lo = p.quantize(float(*mn));
    hi = p.quantize(float(*mx));
  }
  Tensor out = quantizedTensor(x->quantType(), x->shape());
  const int64_t *in = x->data<int64_t>();
  int64_t *o = out.data<int64_t>();
  for (int64_t i = 0; i < out.numel(); ++i)
    o[i] = std::min(std::max(in[i], lo), hi);
  return RtValue(out);
}

/// adaptive_avg_pool2d of a quantized tensor, of the input's parameters:
/// each window's sum less its zero points, scaled by 1 / size in float32
/// and rounded (torch's channels-last kernel, which the outputs of
/// quantized convolutions take).
FailureOr<RtValue> quantizedAdaptiveAvgPool2d(const KernelArgs &args) {
  FailureOr<Tensor> x = quantizedArg(args, "input");
  FailureOr<SmallVector<int64_t>> size = args.getInts("output_size", 2);
  if (failed(x) || failed(size))
    return failure();
  QParams p(x->quantType());
  if (p.axis >= 0)
    return args.emitError() << "takes a tensor quantized per tensor only";
  if (x->rank() != 3 && x->rank() != 4)
    return args.emitError() << "expects a 3-D or 4-D input";
  int64_t h = x->dim(x->rank() - 2), w = x->dim(x->rank() - 1);
  int64_t oh = (*size)[0] < 0 ? h : (*size)[0], ow = (*size)[1] < 0 ? w : (*size)[1];
  SmallVector<int64_t> shape(x->shape());
  shape[shape.size() - 2] = oh;
  shape[shape.size() - 1] = ow;
  int64_t planes = x->numel() / std::max<int64_t>(h * w, 1);
  Tensor out = quantizedTensor(x->quantType(), shape);
  const int64_t *in = x->data<int64_t>();
  int64_t *o = out.data<int64_t>();
  for (int64_t c = 0; c < planes; ++c)
    for (int64_t i = 0; i < oh; ++i) {
      auto [h0, h1] = adaptiveWindow(i, h, oh);
      for (int64_t j = 0; j < ow; ++j) {
        auto [w0, w1] = adaptiveWindow(j, w, ow);
        int64_t n = (h1 - h0) * (w1 - w0), acc = -p.zeroPoint() * n;
        for (int64_t r = h0; r < h1; ++r)
          for (int64_t s = w0; s < w1; ++s)
            acc += in[(c * h + r) * w + s];
        float multiplier = 1.0f / float(n);
        o[(c * oh + i) * ow + j] = p.clamp(
            p.zeroPoint() +
            static_cast<int64_t>(std::nearbyint(float(acc) * multiplier)));
      }
    }
  return RtValue(out);
}
/// A quantized elementwise function of the dequantized input (torch's
/// qhardswish, qhardsigmoid and qsigmoid kernels): fn of the value, then
/// quantized to `out`.
template <typename Fn>
Tensor quantizedMap(const Tensor &x, Type out, Fn fn) {
  QParams pi(x.quantType()), po(out);
  Tensor result = quantizedTensor(out, x.shape());
  const int64_t *in = x.data<int64_t>();
  int64_t *o = result.data<int64_t>();
  for (int64_t i = 0; i < result.numel(); ++i)
    o[i] = po.quantize(fn(pi.dequantize(in[i])));
  return result;
}

/// torch.ops.quantized.hardswish: x * min(max(x + 3, 0), 6) / 6.
FailureOr<RtValue> quantizedHardswish(const KernelArgs &args) {
  FailureOr<Tensor> x = quantizedArg(args, "input");
  FailureOr<double> scale = args.getFloat("output_scale");
  FailureOr<int64_t> zp = args.getInt("output_zero_point");
  if (failed(x) || failed(scale) || failed(zp))
    return failure();
  if (QParams(x->quantType()).axis >= 0)
    return args.emitError() << "takes a tensor quantized per tensor only";
  Type out = uniformQuantizedType(x->quantType(), *scale, *zp,
                                  [&]() { return args.emitError(); });
  if (!out)
    return failure();
  // (Measured against torch: its qhardswish dequantizes as scale * (q -
  // zero_point), unfused, and quantizes with float(1.0 / scale) computed
  // in double.)
  QParams pi(x->quantType()), po(out);
  float si = static_cast<float>(pi.scale()),
        inverse = static_cast<float>(1.0 / po.scale());
  Tensor result = quantizedTensor(out, x->shape());
  const int64_t *in = x->data<int64_t>();
  int64_t *o = result.data<int64_t>();
  for (int64_t i = 0; i < result.numel(); ++i) {
    float v = si * static_cast<float>(in[i] - pi.zeroPoint());
    float y = v * std::min(std::max(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    float q = static_cast<float>(po.zeroPoint()) + std::nearbyint(y * inverse);
    o[i] = std::fabs(q) < 9.2233720368547758e18f
               ? po.clamp(static_cast<int64_t>(q))
               : po.lo;
  }
  return RtValue(result);
}

/// torch.ops.quantized.leaky_relu and torch.ops.quantized.elu: of the
/// dequantized input (fused multiply-add), quantized to the given
/// parameters. ELU: x * scale where x > 0, else
/// (exp(x * input_scale) - 1) * alpha * scale.
template <bool Elu>
FailureOr<RtValue> quantizedPiecewise(const KernelArgs &args) {
  FailureOr<Tensor> x =
      quantizedArg(args, args.signature().params.front().name);
  FailureOr<double> scale = numberArg(args, "output_scale"),
                    zp = numberArg(args, "output_zero_point");
  if (failed(x) || failed(scale) || failed(zp))
    return failure();
  if (QParams(x->quantType()).axis >= 0)
    return args.emitError() << "takes a tensor quantized per tensor only";
  Type out = uniformQuantizedType(x->quantType(), *scale,
                                  static_cast<int64_t>(*zp),
                                  [&]() { return args.emitError(); });
  if (!out)
    return failure();
  // (torch's vectorized loop, which takes a contiguous run 64 elements at
  // a time, dequantizes with a fused multiply-add; its scalar loop, which
  // takes the rest, unfused: a step apart, rarely. This is the first.)
  auto map = [&](auto fn) { return RtValue(quantizedMap(*x, out, fn)); };
  if (!Elu) {
    FailureOr<double> slope = args.getFloat("negative_slope");
    if (failed(slope))
      return failure();
    float s = static_cast<float>(*slope);
    return map([s](float v) { return v > 0 ? v : v * s; });
  }
  FailureOr<double> alpha = args.getFloat("alpha"), coef = args.getFloat("scale"),
                    inputCoef = args.getFloat("input_scale");
  if (failed(alpha) || failed(coef) || failed(inputCoef))
    return failure();
  float a = static_cast<float>(*alpha), c = static_cast<float>(*coef),
        ic = static_cast<float>(*inputCoef);
  return map([=](float v) {
    return v >= 0 ? v * c : (std::exp(v * ic) - 1.0f) * a * c;
  });
}

/// hardsigmoid and sigmoid of a quantized tensor, at torch's fixed output
/// parameters (fixedQParamsType).
template <bool Sigmoid>
FailureOr<RtValue> quantizedFixed(const KernelArgs &args) {
  FailureOr<Tensor> x = quantizedArg(args, "input");
  if (failed(x))
    return failure();
  if (QParams(x->quantType()).axis >= 0)
    return args.emitError() << "takes a tensor quantized per tensor only";
  Type out = fixedQParamsType(x->quantType());
  return RtValue(quantizedMap(*x, out, [](float v) {
    if (Sigmoid)
      return 1.0f / (1.0f + std::exp(-v));
    return std::min(std::max(v + 3.0f, 0.0f), 6.0f) / 6.0f;
  }));
}

/// avg_pool2d of a quantized tensor, of the input's parameters: the
/// window's average of the centered integers (the float kernel on them,
/// in float64), rounded to nearest even.
FailureOr<RtValue> quantizedAvgPool2d(const KernelArgs &args) {
  FailureOr<Tensor> x = quantizedArg(args, "input");
  if (failed(x))
    return failure();
  QParams p(x->quantType());
  if (p.axis >= 0)
    return args.emitError() << "takes a tensor quantized per tensor only";
  FailureOr<RtValue> avg = floatKernel(args, "torch.nn.functional.avg_pool2d",
                                       {{"input", RtValue(centered(*x))}});
  if (failed(avg))
    return failure();
  const Tensor &a = avg->tensor();
  Tensor out = quantizedTensor(x->quantType(), a.shape());
  for (int64_t i = 0; i < out.numel(); ++i)
    out.data<int64_t>()[i] = p.clamp(
        p.zeroPoint() +
        static_cast<int64_t>(std::nearbyint(a.data<double>()[i])));
  return RtValue(out);
}
/// torch.mean of a quantized tensor, of the input's parameters: the mean
/// of the storage integers (the float kernel on them, in float64), rounded
/// to nearest even.
FailureOr<RtValue> quantizedMean(const KernelArgs &args) {
  FailureOr<Tensor> x = quantizedArg(args, "input");
  if (failed(x))
    return failure();
  QParams p(x->quantType());
  if (p.axis >= 0)
    return args.emitError() << "takes a tensor quantized per tensor only";
  if (args.has("dtype") && !args.isNone("dtype"))
    return args.emitError() << "takes no dtype for a quantized tensor";
  FailureOr<RtValue> mean = floatKernel(
      args, "torch.mean",
      {{"input", RtValue(x->withQuantType(nullptr).to(DType::F64))}});
  if (failed(mean))
    return failure();
  const Tensor &m = mean->tensor();
  Tensor out = quantizedTensor(x->quantType(), m.shape());
  for (int64_t i = 0; i < out.numel(); ++i)
    out.data<int64_t>()[i] =
        p.clamp(static_cast<int64_t>(std::nearbyint(m.data<double>()[i])));
  return RtValue(out);
}
/// fbgemm's ChooseQuantizationParams (torch's dynamic quantization of an
/// activation): quint8 parameters covering [min(xmin, 0), max(xmax, 0)]
/// over [0, 255] (reduce_range: [0, 127]), the zero point nudged to an
/// integer.
std::pair<float, int64_t> chooseQuantizationParams(float xmin, float xmax,
                                                   bool reduceRange) {
  int64_t qmin = 0, qmax = reduceRange ? 127 : 255;
  double lo = std::min(xmin, 0.0f), hi = std::max(xmax, 0.0f);
  double scale = (hi - lo) / double(qmax - qmin);
  if (float(scale) == 0.0f || std::isinf(1.0f / float(scale)))
    scale = 0.1;
  double fromMin = qmin - lo / scale, fromMax = qmax - hi / scale;
  double errorMin = std::abs(double(qmin)) - std::abs(lo / scale),
         errorMax = std::abs(double(qmax)) - std::abs(hi / scale);
  double initial = errorMin < errorMax ? fromMin : fromMax;
  int64_t zp = initial < qmin   ? qmin
               : initial > qmax ? qmax
                                : static_cast<int64_t>(std::nearbyint(initial));
  return {static_cast<float>(scale), zp};
}

/// traced.quantized.linear_dynamic (torch.ops.quantized.linear_dynamic,
/// oneDNN): the input quantized to quint8 at parameters chosen from its
/// range, the exact integer products summed, times s_x * s_w[c] plus the
/// bias, in float32.
FailureOr<RtValue> quantizedLinearDynamic(const KernelArgs &args) {
  FailureOr<Tensor> x = args.tensor("input"), w = quantizedArg(args, "weight");
  FailureOr<bool> reduceRange = args.getBool("reduce_range");
  if (failed(x) || failed(w) || failed(reduceRange))
    return failure();
  if (x->dtype() != DType::F32 || x->isQuantized())
    return args.emitError() << "expects a float32 input";
  float xmin = 0, xmax = 0;
  for (int64_t i = 0; i < x->numel(); ++i) {
    float v = x->data<float>()[i];
    xmin = i ? std::min(xmin, v) : v;
    xmax = i ? std::max(xmax, v) : v;
  }
  auto [scale, zp] = chooseQuantizationParams(xmin, xmax, *reduceRange);
  Type qtype = uniformQuantizedType(
      quantizedDTypeFromName(w->quantType().getContext(), "quint8"), scale, zp,
      [&]() { return args.emitError(); });
  if (!qtype)
    return failure();
  QParams px(qtype), pw(w->quantType());
  Tensor xq = quantizedTensor(qtype, x->shape());
  for (int64_t i = 0; i < x->numel(); ++i)
    xq.data<int64_t>()[i] = px.quantize(x->data<float>()[i]);
  FailureOr<RtValue> sums =
      floatKernel(args, "torch.nn.functional.linear",
                  {{"input", RtValue(centered(xq))},
                   {"weight", RtValue(centered(*w))},
                   {"bias", RtValue()}});
  if (failed(sums))
    return failure();
  const Tensor &acc = sums->tensor();
  std::optional<Tensor> bias;
  if (!args.isNone("bias")) {
    FailureOr<Tensor> b = args.tensor("bias");
    if (failed(b))
      return failure();
    bias = b->to(DType::F32);
  }
  Tensor out(DType::F32, acc.shape());
  int64_t outs = acc.rank() ? acc.dim(acc.rank() - 1) : 1;
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t c = i % outs;
    float multiplier = scale * static_cast<float>(pw.scale(c));
    float y = static_cast<float>(acc.data<double>()[i]) * multiplier;
    if (bias)
      y = y + bias->data<float>()[c];
    out.data<float>()[i] = y;
  }
  return RtValue(out);
}
/// torch.fused_moving_avg_obs_fake_quant with its observer off: the input
/// fake-quantized per tensor or per channel (per_row_fake_quant, along
/// ch_axis) at the module's scale and zero point, as torch's CPU kernels:
/// q = zero_point + nearbyint(x * (1.0f / scale)) in float32, converted to
/// int64 (x86: out of range is INT64_MIN), clamped, then (q - zero_point)
/// * scale. An observer that is on updates the module's statistics in
/// place, which a traced graph does not: it is refused.
FailureOr<RtValue> fusedFakeQuant(const KernelArgs &args) {
  FailureOr<Tensor> x = args.tensor("input"), on = args.tensor("observer_on"),
                    fq = args.tensor("fake_quant_on"), sc = args.tensor("scale"),
                    zpt = args.tensor("zero_point");
  FailureOr<int64_t> lo = args.getInt("quant_min"), hi = args.getInt("quant_max"),
                     axisArg = args.getInt("ch_axis");
  FailureOr<bool> perRow = args.getBool("per_row_fake_quant");
  if (failed(x) || failed(on) || failed(fq) || failed(sc) || failed(zpt) ||
      failed(lo) || failed(hi) || failed(axisArg) || failed(perRow))
    return failure();
  // (torch reads each flag with item(): one element, compared with 1.)
  if (on->numel() != 1 || fq->numel() != 1)
    return args.emitError() << "expects one-element observer_on and "
                               "fake_quant_on flags";
  if (on->getInt(0) == 1)
    return args.emitError()
           << "runs its observer, which updates the module's statistics in "
              "place; disable observers before tracing "
              "(model.apply(torch.ao.quantization.disable_observer))";
  if (x->dtype() != DType::F32)
    return args.emitError() << "fake-quantizes float32 tensors only";
  if (fq->getInt(0) != 1)
    return RtValue(*x);
  int64_t axis = -1;
  if (*perRow) {
    FailureOr<int64_t> a = normalizeDim(args, *axisArg, x->rank());
    if (failed(a))
      return failure();
    axis = *a;
  }
  int64_t n = axis < 0 ? 1 : x->dim(axis);
  if (sc->numel() < n || zpt->numel() < n)
    return args.emitError() << "expects " << n << " scales and zero points";
  Tensor out(DType::F32, x->shape());
  for (int64_t i = 0; i < x->numel(); ++i) {
    int64_t c = axis < 0 ? 0 : axisIndex(x->shape(), axis, i);
    float s = static_cast<float>(sc->getDouble(c)), inv = 1.0f / s;
    int64_t zp = zpt->getInt(c);
    float v = static_cast<float>(zp) + std::nearbyint(x->data<float>()[i] * inv);
    int64_t q = std::fabs(v) < 9.2233720368547758e18f
                    ? static_cast<int64_t>(v)
                    : std::numeric_limits<int64_t>::min();
    q = std::min(std::max(q, *lo), *hi);
    out.data<float>()[i] = static_cast<float>(q - zp) * s;
  }
  return RtValue(out);
}

static_assert(kInt8MaxReduction == TRACED_INT8_MAX_REDUCTION,
              "the op library's and the int8 runtime's bounds differ");

/// The int8 runtime's operands of traced.int8.conv2d and .linear: the
/// input and weight bytes, the multiplier and offset floats, the
/// compensation.
struct Int8Operands {
  std::vector<uint8_t> x;
  std::vector<int8_t> w;
  std::vector<float> mult, off;
  std::vector<int32_t> comp;
  int64_t zx = 0, zo = 0;
  bool relu = false;
  /// The fused add (Int8Runtime.h, `_add`), when there is a residual: its
  /// bytes, the output's, residual's and sum's scales, then zr, zs, relu.
  bool hasResidual = false;
  std::vector<uint8_t> residual;
  float scales[3] = {1.0f, 1.0f, 1.0f};
  int64_t add[TRACED_INT8_ADD_GEOMETRY] = {0, 0, 0};

  const uint8_t *residualData() const {
    static const uint8_t none = 0;
    return !hasResidual ? nullptr : residual.empty() ? &none : residual.data();
  }
};

/// The fused add's operands of `args` into `r` (none when `residual` is
/// None); its result rule checked them.
LogicalResult int8Residual(const KernelArgs &args, Int8Operands &r) {
  if (args.isNone("residual"))
    return success();
  FailureOr<Tensor> res = args.tensor("residual");
  FailureOr<double> so = args.getFloat("output_scale"), sr = args.getFloat("residual_scale"),
                    ss = args.getFloat("sum_scale");
  FailureOr<int64_t> zr = args.getInt("residual_zero_point"),
                     zs = args.getInt("sum_zero_point");
  FailureOr<bool> relu = args.getBool("sum_relu");
  if (failed(res) || failed(so) || failed(sr) || failed(ss) || failed(zr) || failed(zs) ||
      failed(relu))
    return failure();
  if (res->dtype() != DType::U8)
    return args.emitError() << "expects a uint8 residual";
  r.hasResidual = true;
  for (int64_t i = 0; i < res->numel(); ++i)
    r.residual.push_back(static_cast<uint8_t>(res->getInt(i)));
  r.scales[0] = static_cast<float>(*so);
  r.scales[1] = static_cast<float>(*sr);
  r.scales[2] = static_cast<float>(*ss);
  r.add[0] = *zr;
  r.add[1] = *zs;
  r.add[2] = *relu;
  return success();
}

FailureOr<Int8Operands> int8Operands(const KernelArgs &args, Tensor &input,
                                     Tensor &weight) {
  FailureOr<Tensor> x = args.tensor("input"), w = args.tensor("weight"),
                    m = args.tensor("multiplier"), o = args.tensor("offset"),
                    comp = args.tensor("compensation");
  FailureOr<int64_t> zx = args.getInt("input_zero_point"),
                     zo = args.getInt("output_zero_point");
  FailureOr<bool> relu = args.getBool("relu");
  if (failed(x) || failed(w) || failed(m) || failed(o) || failed(comp) || failed(zx) ||
      failed(zo) || failed(relu))
    return failure();
  if (x->dtype() != DType::U8 || w->dtype() != DType::I8 ||
      m->dtype() != DType::F32 || o->dtype() != DType::F32)
    return args.emitError() << "expects a uint8 input, an int8 weight and "
                               "float32 multiplier and offset";
  if (*zx < 0 || *zx > 255 || *zo < 0 || *zo > 255)
    return args.emitError() << "expects zero points in [0, 255]";
  Int8Operands r;
  for (int64_t i = 0; i < x->numel(); ++i)
    r.x.push_back(static_cast<uint8_t>(x->getInt(i)));
  for (int64_t i = 0; i < w->numel(); ++i)
    r.w.push_back(static_cast<int8_t>(w->getInt(i)));
  r.mult.assign(m->data<float>(), m->data<float>() + m->numel());
  r.off.assign(o->data<float>(), o->data<float>() + o->numel());
  if (comp->dtype() != DType::I32 || comp->numel() != m->numel() ||
      o->numel() != m->numel())
    return args.emitError() << "expects one multiplier, offset and int32 "
                               "compensation per output channel";
  for (int64_t i = 0; i < comp->numel(); ++i)
    r.comp.push_back(static_cast<int32_t>(comp->getInt(i)));
  r.zx = *zx;
  r.zo = *zo;
  r.relu = *relu;
  if (failed(int8Residual(args, r)))
    return failure();
  input = *x;
  weight = *w;
  return r;
}

/// The runtime's answer as a uint8 tensor of `shape`.
FailureOr<RtValue> int8Result(const KernelArgs &args, int32_t status,
                              ArrayRef<int64_t> shape,
                              const std::vector<uint8_t> &bytes) {
  if (status == -2)
    return args.emitError() << "could not allocate its scratch memory";
  if (status != 0)
    return args.emitError() << "has a reduction too long for exact int32 sums or "
                               "add parameters out of range";
  Tensor out(DType::U8, shape);
  for (int64_t i = 0; i < out.numel(); ++i)
    out.data<int64_t>()[i] = bytes[i];
  return RtValue(out);
}

/// traced.int8.conv2d: the int8 runtime's convolution (Int8Runtime.h).
FailureOr<RtValue> int8Conv2d(const KernelArgs &args) {
  Tensor x, w;
  FailureOr<Int8Operands> ops = int8Operands(args, x, w);
  FailureOr<SmallVector<int64_t>> kernel = args.getInts("kernel_size", 2);
  FailureOr<int64_t> groups = args.getInt("groups");
  if (failed(ops) || failed(kernel) || failed(groups))
    return failure();
  int64_t kh = (*kernel)[0], kw = (*kernel)[1];
  int64_t perGroup = *groups == 1 ? x.dim(1) : 1;
  if (x.rank() != 4 || w.rank() != 2 || kh <= 0 || kw <= 0 ||
      (*groups != 1 && (*groups != x.dim(1) || w.dim(0) != x.dim(1))) ||
      w.dim(1) != int8PackedRow(kh * kw, perGroup))
    return args.emitError() << "expects a 4-D input, a packed 2-D weight and "
                               "groups 1 or depthwise";
  // The float convolution's parameters and shape, over the weight unpacked.
  SmallVector<int64_t> unpacked{w.dim(0), perGroup, kh, kw};
  ConvParams p;
  if (failed(kernels::decodeArgs(args, "convolution",
                                 [&](const ArgReader &reader, std::string &error) {
                                   return decodeConv(args.signature(), reader, x.shape(),
                                                     unpacked, std::nullopt, p, error);
                                 })))
    return failure();
  ArrayRef<int64_t> shape = p.resultShape;
  int64_t g[TRACED_INT8_CONV_GEOMETRY + TRACED_INT8_ADD_GEOMETRY] = {
      x.dim(0), x.dim(1), x.dim(2), x.dim(3), w.dim(0), kh,
      kw, p.stride[0], p.stride[1], p.padBefore[0], p.padBefore[1],
      p.dilation[0], p.dilation[1], shape[2], shape[3], ops->zx, ops->zo,
      ops->relu, *groups, ops->add[0], ops->add[1], ops->add[2]};
  std::vector<uint8_t> bytes(shape[0] * shape[1] * shape[2] * shape[3]);
  if (ops->hasResidual && ops->residual.size() != bytes.size())
    return args.emitError() << "expects a residual of the result's shape";
  int32_t status = traced_int8_conv2d_add(ops->x.data(), ops->w.data(), ops->mult.data(),
                                          ops->off.data(), ops->comp.data(),
                                          ops->residualData(), ops->scales, bytes.data(), g);
  return int8Result(args, status, shape, bytes);
}

/// traced.int8.linear: the int8 runtime's linear (Int8Runtime.h).
FailureOr<RtValue> int8Linear(const KernelArgs &args) {
  Tensor x, w;
  FailureOr<Int8Operands> ops = int8Operands(args, x, w);
  if (failed(ops))
    return failure();
  if (x.rank() < 1 || w.rank() != 2 || w.dim(1) != int8PackedRow(1, x.dim(x.rank() - 1)))
    return args.emitError() << "expects an input of at least one dim and a packed "
                               "2-D weight";
  int64_t k = x.dim(x.rank() - 1), rows = k ? x.numel() / k : 0;
  int64_t g[TRACED_INT8_LINEAR_GEOMETRY + TRACED_INT8_ADD_GEOMETRY] = {
      rows, k, w.dim(0), ops->zx, ops->zo, ops->relu, ops->add[0], ops->add[1], ops->add[2]};
  SmallVector<int64_t> shape(x.shape());
  shape.back() = w.dim(0);
  std::vector<uint8_t> bytes(rows * w.dim(0));
  if (ops->hasResidual && ops->residual.size() != bytes.size())
    return args.emitError() << "expects a residual of the result's shape";
  int32_t status = traced_int8_linear_add(ops->x.data(), ops->w.data(), ops->mult.data(),
                                          ops->off.data(), ops->comp.data(),
                                          ops->residualData(), ops->scales, bytes.data(), g);
  return int8Result(args, status, shape, bytes);
}
} // namespace

void kernels::populateQuantizedKernels(KernelTable &table) {
  table["torch.fused_moving_avg_obs_fake_quant"] = fusedFakeQuant;
  table["traced.quantized.linear_dynamic"] = quantizedLinearDynamic;
  table["traced.int8.conv2d"] = int8Conv2d;
  table["traced.int8.linear"] = int8Linear;
  table["torch.ops.quantized.hardswish"] = quantizedHardswish;
  table["torch.ops.quantized.leaky_relu"] = quantizedPiecewise<false>;
  table["torch.ops.quantized.elu"] = quantizedPiecewise<true>;
  table["torch.quantize_per_tensor"] = quantizePerTensor;
  table["torch.quantize_per_channel"] = quantizePerChannel;
  table["torch.dequantize"] = dequantize;
  table["torch.ops.quantized.add"] = quantizedBinary<false, false>;
  table["torch.ops.quantized.add_relu"] = quantizedBinary<false, true>;
  table["torch.ops.quantized.mul"] = quantizedBinary<true, false>;
  table["torch.ops.quantized.mul_relu"] = quantizedBinary<true, true>;
  table["torch.ops.quantized.cat"] = quantizedCat<true>;
  for (const char *n : {"1d", "2d", "3d"}) {
    table[(Twine("torch.ao.nn.quantized.functional.conv") + n).str()] =
        quantizedConv<false>;
    table[(Twine("traced.quantized.conv_relu") + n).str()] =
        quantizedConv<true>;
  }
  table["torch.ao.nn.quantized.functional.linear"] = quantizedLinear<false>;
  table["traced.quantized.linear_relu"] = quantizedLinear<true>;
}

void kernels::populateSameQParamsKernels(KernelTable &table) {
  table["torch.nn.functional.relu"] = quantizedClamp<0>;
  table["torch.nn.functional.relu6"] = quantizedClamp<1>;
  table["torch.nn.functional.hardtanh"] = quantizedClamp<2>;
  table["torch.nn.functional.adaptive_avg_pool2d"] = quantizedAdaptiveAvgPool2d;
  table["torch.nn.functional.avg_pool2d"] = quantizedAvgPool2d;
  table["torch.mean"] = quantizedMean;
  table["torch.cat"] = quantizedCat<false>;
  table["torch.nn.functional.hardsigmoid"] = quantizedFixed<false>;
  table["torch.sigmoid"] = quantizedFixed<true>;
}
