//===- LowerQuantized.cpp - quantized graphs as integer and float calls ---===//
//
// Rewrites a module's quantized tensors (docs/quantization.md) as their
// storage integers and its quantized ops as calls of ordinary op-library
// entries on integers and floats, computing what the interpreter's
// quantized kernels compute (lib/Interpreter/Kernels/Quantized.cpp), so
// that the compilers need nothing quantized of their own:
//
// - every value of a quantized tensor type takes its storage type (the
//   ops that only move elements, QuantizedUse::Storage, stay as they are);
// - the parameters each quantized type holds become constants of the calls
//   that replace the quantized ops: quantize is round(x * (1 / scale)) +
//   zero_point, clamped and cast; dequantize (q - zero_point) * scale;
//   conv and linear sum the centered integers in float64 (exact) and scale
//   them in float32.
//
// The entry graph's quantized inputs and outputs become their storage
// integers too: the Python call converts torch's quantized tensors.
//
//===----------------------------------------------------------------------===//

#include "Decompose.h"

#include "TracedIR/Interpreter/Value.h"
#include "TracedIR/Support/QuantParams.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDLOWERQUANTIZED
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

namespace {
using QParams = QuantParams;


/// What the rewrite of one call reads: the call, and the quantized type
/// each value had before the module was retyped.
struct Lowering {
  Decomposer &d;
  const llvm::DenseMap<Value, Type> &quantized;
  SymbolTableCollection &symbols;
  /// Whether conv2d and linear may become traced.int8 entries.
  bool int8Kernels = true;
  /// Calls the rewrite made dead besides the one it replaces (a traced.int8
  /// contraction whose add it fused); the driver erases them after it.
  SmallVector<Operation *> dead = {};

  Type f32() const { return Float32Type::get(d.ctx); }
  /// The quantized element type value `v` had, or null.
  Type qtype(Value v) const { return v ? quantized.lookup(v) : Type(); }

  /// A float32 tensor of one value per index along `axis` of `like`,
  /// shaped to broadcast against it ([1, C, 1, 1] for axis 1 of a 4-D
  /// tensor).
  Value perAxis(RankedTensorType like, int64_t axis, ArrayRef<float> values) {
    SmallVector<int64_t> shape(like.getRank(), 1);
    shape[axis] = values.size();
    return d.tensorConstant(RankedTensorType::get(shape, f32()),
                            [&](ArrayRef<int64_t> i) { return values[i[axis]]; });
  }

  /// `x` (float32) as the quantized type `q`'s storage integers:
  /// round(x * (1 / scale)) + zero_point, saturated (as quantize_val: a
  /// NaN or infinite product, whose int64 conversion is INT64_MIN on x86,
  /// gives the lowest value).
  Value quantize(Value x, const QParams &q, bool nonFinite) {
    Value y;
    if (q.perTensor()) {
      float inverse = 1.0f / static_cast<float>(q.scale());
      y = d.binary("torch.mul", x, d.f64(inverse));
    } else {
      SmallVector<float> inverses;
      for (double s : q.scales)
        inverses.push_back(1.0f / static_cast<float>(s));
      y = d.binary("torch.mul", x, perAxis(typeOf(x), q.axis, inverses));
    }
    return requantize(y, q, /*relu=*/false, nonFinite);
  }

  /// y (float32, the value in steps) as q's storage integers: round to
  /// nearest even, plus the zero point, saturated (ReLU: at least the zero
  /// point), cast. `zeroPointFirst` (oneDNN's conv and linear, per tensor):
  /// the zero point added in float32 before the rounding.
  Value requantize(Value y, const QParams &q, bool relu, bool nonFinite,
                   bool zeroPointFirst = false) {
    // The zero point: one number, or one per index along the axis.
    Value zp;
    if (!q.perTensor()) {
      SmallVector<float> zps(q.zeroPoints.begin(), q.zeroPoints.end());
      zp = perAxis(typeOf(y), q.axis, zps);
    }
    auto addZeroPoint = [&](Value v) {
      return zp ? d.binary("torch.add", v, zp)
                : d.binary("torch.add", v, d.f64(double(q.zeroPoint())));
    };
    Value r = d.unary("torch.round", zeroPointFirst ? addZeroPoint(y) : y);
    if (nonFinite) {
      // The lowest value, in the units r holds.
      double lowest = double(q.lo - (zeroPointFirst ? 0 : q.zeroPoint()));
      r = d.call("torch.nan_to_num", {{"input", r},
                                      {"nan", d.f64(lowest)},
                                      {"posinf", d.f64(lowest)},
                                      {"neginf", d.f64(lowest)}});
    }
    if (!zeroPointFirst)
      r = addZeroPoint(r);
    int64_t lo = q.perTensor() && relu ? q.zeroPoint() : q.lo;
    r = d.call("torch.clamp",
               {{"input", r}, {"min", d.f64(double(lo))}, {"max", d.f64(double(q.hi))}});
    return d.cast(r, q.storage);
  }

  /// The float32 values of storage integers `q` of quantized type `type`:
  /// q * scale + scale * -zero_point (compiled code fuses it into one
  /// multiply-add, as the interpreter computes it).
  Value dequantize(Value q, Type type) {
    QParams p(type);
    Value x = d.cast(q, f32());
    if (p.perTensor()) {
      float s = static_cast<float>(p.scale());
      Value y = d.binary("torch.mul", x, d.f64(s));
      return d.binary("torch.add", y,
                      d.f64(double(s * static_cast<float>(-p.zeroPoint()))));
    }
    SmallVector<float> s, c;
    for (auto [scale, zp] : llvm::zip(p.scales, p.zeroPoints)) {
      s.push_back(static_cast<float>(scale));
      c.push_back(s.back() * static_cast<float>(-zp));
    }
    RankedTensorType t = typeOf(x);
    Value y = d.binary("torch.mul", x, perAxis(t, p.axis, s));
    return d.binary("torch.add", y, perAxis(t, p.axis, c));
  }
};

Results lowerQuantize(Lowering &l) {
  Decomposer &d = l.d;
  Type out = l.qtype(d.bound.op->getResult(0));
  if (!out)
    return d.decline("its result is not quantized");
  return one(l.quantize(d.cast(d.tensor("input"), l.f32()), QParams(out),
                        /*nonFinite=*/true));
}

Results lowerDequantize(Lowering &l) {
  Decomposer &d = l.d;
  Value input = d.tensor("input");
  Type q = l.qtype(input);
  if (!q)
    return one(d.cast(input, l.f32()));
  return one(l.dequantize(input, q));
}

/// relu, relu6, hardtanh of quantized tensors: the storage integers
/// clamped to the quantized bounds.
Results lowerClamp(Lowering &l) {
  Decomposer &d = l.d;
  Value input = d.tensor("input");
  QParams p(l.qtype(input));
  if (!p.perTensor())
    return d.decline("a tensor quantized per channel");
  auto quantizeVal = [&](double v) { return p.quantize(float(v)); };
  int64_t lo = p.zeroPoint(), hi = p.hi;
  StringRef target = d.target();
  if (target == "torch.nn.functional.relu6") {
    hi = quantizeVal(6.0);
  } else if (target == "torch.nn.functional.hardtanh") {
    std::optional<double> mn = d.getFloat("min_val"), mx = d.getFloat("max_val");
    if (!mn || !mx)
      return d.decline("its bounds are not constants");
    lo = quantizeVal(*mn);
    hi = quantizeVal(*mx);
  }
  return one(d.call("torch.clamp",
                    {{"input", input}, {"min", d.i64(lo)}, {"max", d.i64(hi)}}));
}

/// adaptive_avg_pool2d of a quantized tensor to 1x1: the window's sum less
/// its zero points, times 1.0f / size, rounded.
Results lowerAdaptiveAvgPool(Lowering &l) {
  Decomposer &d = l.d;
  Value input = d.tensor("input");
  RankedTensorType t = typeOf(input), r = d.resultTensorType();
  QParams p(l.qtype(input));
  if (!t || !r || !t.hasStaticShape() || t.getRank() < 2 ||
      r.getShape().take_back(2) != ArrayRef<int64_t>{1, 1})
    return d.decline("pooling quantized tensors to sizes other than 1x1 is "
                     "not compiled yet");
  int64_t n = t.getDimSize(t.getRank() - 1) * t.getDimSize(t.getRank() - 2);
  Value sum = d.call("torch.sum",
                     {{"input", d.cast(input, IntegerType::get(d.ctx, 64))},
                      {"dim", d.ints({-2, -1})},
                      {"keepdim", d.boolean(true)}});
  Value centered = d.binary("torch.sub", sum, d.i64(p.zeroPoint() * n));
  Value y = d.binary("torch.mul", d.cast(centered, l.f32()),
                     d.f64(1.0f / static_cast<float>(n)));
  return one(l.requantize(y, p, /*relu=*/false, /*nonFinite=*/false));
}

/// torch.ops.quantized.add / add_relu of a traced.int8 contraction's
/// result that nothing else reads and a residual of its shape and storage
/// type (quint8 throughout): the contraction again with the add in its
/// epilogue (Int8Runtime.h, the `_add` forms), which computes what the
/// float path below computes of the contraction's stored integers. Null
/// when the add is not one.
Value fuseResidualAdd(Lowering &l, Value a, Value b, bool relu) {
  Decomposer &d = l.d;
  QParams po(l.qtype(d.bound.op->getResult(0)));
  if (!l.int8Kernels || po.lo != 0 || po.hi != 255)
    return {};
  for (auto [self, other] : {std::pair{a, b}, std::pair{b, a}}) {
    auto call = self.getDefiningOp<CallFunctionOp>();
    if (!call || !self.hasOneUse() || typeOf(self) != typeOf(other))
      continue;
    std::optional<BoundOp> bound = bindCall(call, {});
    if (!bound || !bound->spec->name.starts_with("traced.int8."))
      continue;
    Decomposer contraction(*bound, d.b, l.symbols);
    QParams ps(l.qtype(self)), pr(l.qtype(other));
    if (!contraction.isNone("residual") || pr.lo != 0 || pr.hi != 255)
      continue;
    // The contraction's arguments up to relu, then the add's.
    SmallVector<KwArg> args;
    for (const Param &param : bound->spec->signature.params) {
      if (param.name == "residual")
        break;
      if (bound->slot(param.name))
        args.push_back({param.name, contraction.arg(param.name)});
    }
    args.append({{"residual", other},
                 {"output_scale", d.f64(ps.scale())},
                 {"residual_scale", d.f64(pr.scale())},
                 {"residual_zero_point", d.i64(pr.zeroPoint())},
                 {"sum_scale", d.f64(po.scale())},
                 {"sum_zero_point", d.i64(po.zeroPoint())},
                 {"sum_relu", d.boolean(relu)}});
    l.dead.push_back(call);
    return d.call(bound->spec->name, args);
  }
  return {};
}

/// torch.ops.quantized.add / add_relu / mul / mul_relu.
Results lowerBinary(Lowering &l) {
  Decomposer &d = l.d;
  Value a = d.tensor("qa"), b = d.tensor("qb");
  Type out = l.qtype(d.bound.op->getResult(0));
  QParams pa(l.qtype(a)), pb(l.qtype(b)), po(out);
  if (!pa.perTensor() || !pb.perTensor())
    return d.decline("a tensor quantized per channel");
  bool relu = d.target().ends_with("_relu");
  if (d.target().starts_with("torch.ops.quantized.mul")) {
    Type i32 = IntegerType::get(d.ctx, 32);
    Value ca = d.binary("torch.sub", d.cast(a, i32), d.i64(pa.zeroPoint()));
    Value cb = d.binary("torch.sub", d.cast(b, i32), d.i64(pb.zeroPoint()));
    Value c = d.binary("torch.mul", ca, cb);
    float multiplier = static_cast<float>(
        pa.scale() * pb.scale() * double(1.0f / static_cast<float>(po.scale())));
    Value y = d.binary("torch.mul", d.cast(c, l.f32()), d.f64(multiplier));
    return one(l.requantize(y, po, relu, /*nonFinite=*/false));
  }
  if (Value fused = fuseResidualAdd(l, a, b, relu))
    return one(fused);
  Value sum = d.binary("torch.add", l.dequantize(a, l.qtype(a)),
                       l.dequantize(b, l.qtype(b)));
  float inverse = 1.0f / static_cast<float>(po.scale());
  Value y = d.binary("torch.mul", sum, d.f64(inverse));
  return one(l.requantize(y, po, relu, /*nonFinite=*/false));
}

/// torch.ops.quantized.cat: each tensor requantized to the result's
/// parameters (unless it has them), then concatenated.
Results lowerCat(Lowering &l) {
  Decomposer &d = l.d;
  Type out = l.qtype(d.bound.op->getResult(0));
  QParams po(out);
  SmallVector<Value> parts;
  for (Value v : d.bound.op->getOperands()) {
    Type q = l.qtype(v);
    if (!q)
      continue;
    if (q == out) {
      parts.push_back(v);
      continue;
    }
    QParams pi(q);
    if (!pi.perTensor())
      return d.decline("a tensor quantized per channel");
    // dequantize_val: float(scale) * float(q - zero_point).
    Value c = d.binary("torch.sub", d.cast(v, l.f32()), d.f64(pi.zeroPoint()));
    Value x = d.binary("torch.mul", c, d.f64(static_cast<float>(pi.scale())));
    parts.push_back(l.quantize(x, po, /*nonFinite=*/false));
  }
  return one(d.call("torch.cat", {{"tensors", Arg::list(d.ctx, parts)},
                                  {"dim", d.arg("dim")}}));
}

/// Chunks [begin, end) of the input channels (dim 1 of the weight) over
/// which the float32 sums of a quantized conv or linear are exact: no
/// partial sum of |x - zx| * |w - zw| products can reach 2^24, the input's
/// largest |x - zx| being `xmax`. Empty when one channel alone could (or the
/// weight is not a constant): then the sums are taken in float64.
SmallVector<std::pair<int64_t, int64_t>>
exactChunks(const Tensor &w, const QParams &pw, int64_t xmax) {
  int64_t outs = w.dim(0), ins = w.dim(1);
  int64_t taps = w.numel() / std::max<int64_t>(outs * ins, 1);
  const double limit = 16777216.0; // 2^24
  SmallVector<double> running(outs, 0.0);
  SmallVector<std::pair<int64_t, int64_t>> chunks;
  int64_t begin = 0;
  for (int64_t c = 0; c < ins; ++c) {
    SmallVector<double> add(outs, 0.0);
    bool overflow = false;
    for (int64_t o = 0; o < outs; ++o) {
      int64_t zp = pw.zeroPoints[pw.perTensor() ? 0 : o];
      for (int64_t t = 0; t < taps; ++t)
        add[o] += std::abs(w.getInt((o * ins + c) * taps + t) - zp);
      if (add[o] * xmax >= limit)
        return {};
      overflow |= (running[o] + add[o]) * xmax >= limit;
    }
    if (overflow) {
      chunks.push_back({begin, c});
      begin = c;
      running.assign(outs, 0.0);
    }
    for (int64_t o = 0; o < outs; ++o)
      running[o] += add[o];
  }
  chunks.push_back({begin, ins});
  return chunks;
}

/// The products of the centered integers `cx` (float32, exact) and the
/// weight `w` (storage integers of quantization `pw`) summed by the float
/// op exactly: in float32 over chunks of input channels whose sums stay
/// below 2^24 (the chunks added in float64), in float64 where one channel
/// could pass it. `xmax` bounds |cx|. Null after a failed call.
Value exactSums(Lowering &l, Value cx, Value w, const QParams &pw,
                int64_t xmax) {
  Decomposer &d = l.d;
  RankedTensorType wt = typeOf(w);
  int64_t channels = wt.getDimSize(0);
  bool linear = d.target().contains("linear");
  std::optional<int64_t> groups = linear ? 1 : d.getInt("groups");
  // Exact float32 chunks, when the weight is a constant (a grouped
  // convolution, whose weight holds each output's channels, in one chunk).
  SmallVector<std::pair<int64_t, int64_t>> chunks;
  if (FailureOr<Tensor> wv = constantTensor(w, l.symbols);
      succeeded(wv) && groups && wt.getRank() >= 2)
    chunks = exactChunks(*wv, pw, xmax);
  if (groups != 1 && chunks.size() > 1)
    chunks.clear();
  Type sumType = chunks.empty() ? Type(Float64Type::get(d.ctx)) : l.f32();
  cx = d.cast(cx, sumType);
  Value cw = d.cast(w, sumType);
  if (llvm::any_of(pw.zeroPoints, [](int64_t z) { return z != 0; })) {
    SmallVector<float> zps;
    for (int64_t c = 0; c < channels; ++c)
      zps.push_back(float(pw.zeroPoint(c)));
    cw = d.binary("torch.sub", cw, d.cast(l.perAxis(wt, 0, zps), sumType));
  }
  std::string floatEntry =
      linear ? std::string("torch.nn.functional.linear")
             : ("torch.nn.functional.conv" + d.target().take_back(2)).str();
  auto contract = [&](Value xs, Value ws) {
    SmallVector<KwArg> args{{"input", xs}, {"weight", ws}};
    if (!linear)
      for (StringRef p : {"stride", "padding", "dilation", "groups"})
        args.push_back({p, d.arg(p)});
    return d.call(floatEntry, args);
  };
  if (chunks.size() <= 1)
    return contract(cx, cw);
  RankedTensorType xt = typeOf(cx);
  if (!xt)
    return {};
  int64_t xdim = linear ? xt.getRank() - 1 : 1;
  Type f64 = Float64Type::get(d.ctx);
  Value acc;
  for (auto [begin, end] : chunks) {
    Value part = contract(window(d, cx, xdim, sliceOf(d, begin, end, 1)),
                          window(d, cw, 1, sliceOf(d, begin, end, 1)));
    part = d.cast(part, f64);
    acc = acc ? d.binary("torch.add", acc, part) : part;
  }
  return acc;
}

/// A quint8 conv2d (groups 1) or linear with a constant qint8 weight whose
/// zero points are 0 and a quint8 result over [0, 255], as
/// traced.int8.conv2d or traced.int8.linear (the int8 runtime: exact int32
/// sums, then the same float32 requantization as the float path below);
/// null when the call is not one. The weight is packed here, once, as the
/// runtime reads it: one row per output, k in (kernel row, kernel column,
/// channel) order, the channels padded to 4 and the row to 64 with zeros
/// (a linear: its K features padded to 64).
std::optional<Results> lowerInt8(Lowering &l, const QParams &px, const QParams &pw,
                                 const QParams &po, ArrayRef<float> multipliers) {
  Decomposer &d = l.d;
  if (!l.int8Kernels)
    return std::nullopt;
  Value x = d.tensor("input"), w = d.tensor("weight");
  bool linear = d.target().contains("linear");
  bool conv2d = d.target().ends_with("2d");
  RankedTensorType xt = typeOf(x), wt = typeOf(w);
  if (!xt || !wt || !xt.hasStaticShape() || !wt.hasStaticShape() ||
      xt.getNumElements() == 0 || (!linear && !conv2d) || xt.getRank() < 2)
    return std::nullopt;
  // Groups: 1, or depthwise (each channel its own one-channel filter).
  std::optional<int64_t> groups = linear ? 1 : d.getInt("groups");
  int64_t channels = xt.getDimSize(linear ? xt.getRank() - 1 : 1);
  if (!groups || (*groups != 1 && (*groups != channels || wt.getDimSize(0) != channels)))
    return std::nullopt;
  if (px.storage.isSignlessInteger(8) || po.storage.isSignlessInteger(8) ||
      !po.perTensor() || po.lo != 0 || po.hi != 255 || px.lo != 0 || px.hi != 255 ||
      llvm::any_of(pw.zeroPoints, [](int64_t z) { return z != 0; }))
    return std::nullopt;
  FailureOr<Tensor> wv = constantTensor(w, l.symbols);
  if (failed(wv) || (linear ? wt.getRank() != 2 : wt.getRank() != 4))
    return std::nullopt;
  int64_t oc = wt.getDimSize(0), c = wt.getDimSize(1);
  int64_t kh = linear ? 1 : wt.getDimSize(2), kw = linear ? 1 : wt.getDimSize(3);
  int64_t cp = (c + 3) / 4 * 4, row = int8PackedRow(kh * kw, c);
  if (c == 0 || row > kInt8MaxReduction)
    return std::nullopt;
  Type i8 = IntegerType::get(d.ctx, 8);
  // Row o: k = (kernel row, kernel column, channel), zeros after.
  Value packed = d.tensorConstant(
      RankedTensorType::get({oc, row}, i8), [&](ArrayRef<int64_t> i) -> double {
        int64_t tap = i[1] / cp, ch = i[1] % cp;
        if (tap >= kh * kw || ch >= c)
          return 0.0;
        int64_t at = ((i[0] * c + ch) * kh + tap / kw) * kw + tap % kw;
        return double(wv->getInt(at));
      });
  // zx * sum_k w[o][k]: the sum of x * w less it is the centered sum.
  Value compensation = d.tensorConstant(
      RankedTensorType::get({oc}, IntegerType::get(d.ctx, 32)), [&](ArrayRef<int64_t> i) {
        int64_t sum = 0;
        for (int64_t k = 0; k < c * kh * kw; ++k)
          sum += wv->getInt(i[0] * c * kh * kw + k);
        return double(px.zeroPoint() * sum);
      });
  auto f32 = RankedTensorType::get({oc}, l.f32());
  Value mult = d.tensorConstant(f32, [&](ArrayRef<int64_t> i) {
    return double(multipliers[i[0]]);
  });
  float inverseOut = static_cast<float>(1.0 / po.scale());
  Value offset = d.isNone("bias")
                     ? d.tensorConstant(f32, [](ArrayRef<int64_t>) { return 0.0; })
                     : d.binary("torch.mul", d.tensor("bias"), d.f64(inverseOut));
  SmallVector<KwArg> args{{"input", x},
                          {"weight", packed},
                          {"multiplier", mult},
                          {"offset", offset},
                          {"compensation", compensation},
                          {"input_zero_point", d.i64(px.zeroPoint())},
                          {"output_zero_point", d.i64(po.zeroPoint())},
                          {"relu", d.boolean(d.target().contains("relu"))}};
  if (!linear) {
    args.push_back({"kernel_size", d.ints({kh, kw})});
    args.push_back({"groups", d.i64(*groups)});
    for (StringRef p : {"stride", "padding", "dilation"})
      args.push_back({p, d.arg(p)});
  }
  return one(d.call(linear ? "traced.int8.linear" : "traced.int8.conv2d", args));
}

/// The quantized modules' conv and linear: exactSums of the centered
/// integers, then times s_in * s_w[c] / s_out plus bias / s_out plus the
/// zero point in float32, rounded and saturated (as oneDNN).
Results lowerContraction(Lowering &l) {
  Decomposer &d = l.d;
  Value x = d.tensor("input"), w = d.tensor("weight");
  Type out = l.qtype(d.bound.op->getResult(0));
  QParams px(l.qtype(x)), pw(l.qtype(w)), po(out);
  if (!px.perTensor())
    return d.decline("an input quantized per channel");
  RankedTensorType wt = typeOf(w);
  int64_t channels = wt ? wt.getDimSize(0) : 0;
  if (!wt || !wt.hasStaticShape())
    return d.decline("its weight's shape is not static");
  bool linear = d.target().contains("linear");
  int64_t xmax = std::max(px.zeroPoint() - px.lo, px.hi - px.zeroPoint());
  auto perChannel = [&](auto fn) {
    SmallVector<float> v;
    for (int64_t c = 0; c < channels; ++c)
      v.push_back(fn(pw.perTensor() ? 0 : c));
    return v;
  };
  float inverseOut = static_cast<float>(1.0 / po.scale());
  SmallVector<float> multipliers = perChannel([&](int64_t c) {
    float inverseIn = static_cast<float>(1.0 / px.scale()) *
                      static_cast<float>(1.0 / pw.scales[c]);
    return inverseOut / inverseIn;
  });
  if (std::optional<Results> int8 = lowerInt8(l, px, pw, po, multipliers))
    return *int8;
  Value cx = d.binary("torch.sub", d.cast(x, l.f32()), d.f64(px.zeroPoint()));
  Value acc = exactSums(l, cx, w, pw, xmax);
  RankedTensorType at = typeOf(acc);
  if (!at)
    return failure();
  int64_t channelDim = linear ? at.getRank() - 1 : (at.getRank() == wt.getRank() ? 1 : 0);
  RankedTensorType af = RankedTensorType::get(at.getShape(), l.f32());
  Value y = d.binary("torch.mul", d.cast(acc, l.f32()),
                     l.perAxis(af, channelDim, multipliers));
  if (!d.isNone("bias")) {
    Value bias = d.tensor("bias");
    Value scaled = d.binary("torch.mul", bias, d.f64(inverseOut));
    SmallVector<int64_t> shape(at.getRank(), 1);
    shape[channelDim] = channels;
    y = d.binary("torch.add", y, reshape(d, scaled, shape));
  }
  bool relu = d.target().contains("relu");
  return one(l.requantize(y, po, relu, /*nonFinite=*/false, /*zeroPointFirst=*/true));
}

/// Max pooling of storage integers, which the compilers pool in floats
/// only: the integers as float32 (exactly), pooled, cast back.
/// max_pool2d of storage integers as the elementwise maximum of its
/// window's taps: the input padded with the storage's lowest value (which
/// never wins: each window holds an input element), each tap a strided
/// slice of the output's shape. The integers stay integers (a float pool
/// would test every element for NaN). Null when the shapes are not static.
Value maxPoolByTaps(Decomposer &d, Value input, const QParams &p) {
  RankedTensorType in = typeOf(input), out = d.resultTensorType();
  auto kernel = d.getInts("kernel_size", 2), padding = d.getInts("padding", 2),
       dilation = d.getInts("dilation", 2);
  std::optional<SmallVector<int64_t>> stride =
      d.isNone("stride") ? kernel : d.getInts("stride", 2);
  if (stride && stride->empty())
    stride = kernel; // (torch's stride=[]: the kernel size)
  if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape() || in.getRank() < 3 ||
      !kernel || !padding || !dilation || !stride || stride->size() != 2)
    return {};
  int64_t rank = in.getRank();
  SmallVector<int64_t> pads; // F.pad's order: last dim first
  for (int e = 1; e >= 0; --e) {
    int64_t size = in.getDimSize(rank - 2 + e), o = out.getDimSize(rank - 2 + e);
    int64_t need = (o - 1) * (*stride)[e] + ((*kernel)[e] - 1) * (*dilation)[e] + 1;
    pads.push_back((*padding)[e]);
    pads.push_back(std::max<int64_t>(need - size - (*padding)[e], 0));
  }
  Value padded = input;
  if (llvm::any_of(pads, [](int64_t v) { return v != 0; }))
    padded = d.call("torch.nn.functional.pad",
                    {{"input", input}, {"pad", d.ints(pads)}, {"value", d.f64(double(p.lo))}});
  Value result;
  for (int64_t i = 0; i < (*kernel)[0]; ++i)
    for (int64_t j = 0; j < (*kernel)[1]; ++j) {
      Value tap = padded;
      for (int e = 0; e < 2; ++e) {
        int64_t start = (e ? j : i) * (*dilation)[e];
        int64_t o = out.getDimSize(rank - 2 + e);
        tap = window(d, tap, rank - 2 + e,
                     sliceOf(d, start, start + (o - 1) * (*stride)[e] + 1, (*stride)[e]));
      }
      result = result ? d.binary("torch.maximum", result, tap) : tap;
    }
  return result;
}

Results lowerMaxPool(Lowering &l) {
  Decomposer &d = l.d;
  Value input = d.tensor("input");
  QParams p(l.qtype(input));
  if (d.target() == "torch.nn.functional.max_pool2d" &&
      d.bound.op->getNumResults() == 1 && d.getBool("return_indices") != true)
    if (Value taps = maxPoolByTaps(d, input, p))
      return one(taps);
  SmallVector<KwArg> args{{"input", d.cast(input, l.f32())}};
  for (const Param &param : d.bound.spec->signature.params)
    if (param.name != "input" && d.bound.slot(param.name))
      args.push_back({param.name, d.arg(param.name)});
  if (d.bound.op->getNumResults() != 1)
    return d.decline("max pooling with indices of quantized tensors");
  Value pooled = d.call(d.target(), args);
  return one(d.cast(pooled, p.storage));
}

/// An elementwise function of the dequantized input, quantized to the
/// result's parameters: quantized hardswish, hardsigmoid, sigmoid.
Results lowerActivation(Lowering &l) {
  Decomposer &d = l.d;
  Value input = d.tensor("input");
  Type in = l.qtype(input), out = l.qtype(d.bound.op->getResult(0));
  if (!in || !out)
    return d.decline("its input or result is not quantized");
  if (!QParams(in).perTensor())
    return d.decline("a tensor quantized per channel");
  StringRef floatEntry = d.target() == "torch.ops.quantized.hardswish"
                             ? StringRef("torch.nn.functional.hardswish")
                             : d.target();
  Value y = d.unary(floatEntry, l.dequantize(input, in));
  return one(l.quantize(y, QParams(out), /*nonFinite=*/false));
}

/// torch.ops.quantized.leaky_relu and elu: the float op of the dequantized
/// input, quantized to the result's parameters.
Results lowerPiecewise(Lowering &l) {
  Decomposer &d = l.d;
  bool elu = d.target() == "torch.ops.quantized.elu";
  Value input = d.tensor(elu ? "self" : "qx");
  Type in = l.qtype(input), out = l.qtype(d.bound.op->getResult(0));
  if (!in || !out)
    return d.decline("its input or result is not quantized");
  if (!QParams(in).perTensor())
    return d.decline("a tensor quantized per channel");
  Value x = l.dequantize(input, in), y;
  if (elu) {
    if (d.getFloat("scale").value_or(1.0) != 1.0 ||
        d.getFloat("input_scale").value_or(1.0) != 1.0)
      return d.decline("an ELU scale or input_scale other than 1");
    y = d.call("torch.nn.functional.elu",
               {{"input", x}, {"alpha", d.f64(d.getFloat("alpha").value_or(1.0))}});
  } else {
    y = d.call("torch.nn.functional.leaky_relu",
               {{"input", x}, {"negative_slope", d.arg("negative_slope")}});
  }
  return one(l.quantize(y, QParams(out), /*nonFinite=*/false));
}

/// avg_pool2d and mean of quantized tensors: the centered integers (exact
/// in float32) averaged by the float op, rounded.
Results lowerAvgPool(Lowering &l) {
  Decomposer &d = l.d;
  Value input = d.tensor("input");
  QParams p(l.qtype(input));
  if (!p.perTensor())
    return d.decline("a tensor quantized per channel");
  Value centered = d.binary("torch.sub", d.cast(input, l.f32()),
                            d.f64(double(p.zeroPoint())));
  SmallVector<KwArg> args{{"input", centered}};
  for (const Param &param : d.bound.spec->signature.params)
    if (param.name != "input" && d.bound.slot(param.name))
      args.push_back({param.name, d.arg(param.name)});
  Value avg = d.call(d.target(), args);
  return one(l.requantize(avg, p, /*relu=*/false, /*nonFinite=*/false));
}

/// traced.quantized.linear_dynamic: the input's quint8 parameters chosen
/// from its range when the code runs (as the interpreter's
/// chooseQuantizationParams), the input quantized, exactSums with the
/// weight, times s_x * s_w[c] plus the bias.
Results lowerLinearDynamic(Lowering &l) {
  Decomposer &d = l.d;
  Value x = d.tensor("input"), w = d.tensor("weight");
  QParams pw(l.qtype(w));
  RankedTensorType wt = typeOf(w);
  std::optional<bool> reduce = d.getBool("reduce_range");
  if (!wt || !wt.hasStaticShape() || !reduce)
    return d.decline("its weight's shape or reduce_range is not known");
  double qmax = *reduce ? 127 : 255;
  Type f64 = Float64Type::get(d.ctx);
  Value lo = d.cast(d.call("torch.clamp", {{"input", d.unary("torch.min", x)},
                                            {"max", d.f64(0.0)}}), f64);
  Value hi = d.cast(d.call("torch.clamp", {{"input", d.unary("torch.max", x)},
                                            {"min", d.f64(0.0)}}), f64);
  Value scale = d.binary("torch.div", d.binary("torch.sub", hi, lo), d.f64(qmax));
  // A scale whose float32 is 0 (or whose reciprocal overflows) is 0.1.
  Value scale32 = d.cast(scale, l.f32());
  Value degenerate = d.unary("torch.isinf", d.unary("torch.reciprocal", scale32));
  scale = d.call("torch.where", {{"condition", degenerate}, {"input", d.f64(0.1)},
                                 {"other", scale}});
  Value loSteps = d.binary("torch.div", lo, scale),
        hiSteps = d.binary("torch.div", hi, scale);
  Value fromMin = d.binary("torch.sub", d.f64(0.0), loSteps);
  Value fromMax = d.binary("Tensor.__rsub__", hiSteps, d.f64(qmax));
  Value errorMin = d.binary("Tensor.__rsub__", d.unary("torch.abs", loSteps), d.f64(0.0));
  Value errorMax =
      d.binary("Tensor.__rsub__", d.unary("torch.abs", hiSteps), d.f64(qmax));
  Value initial = d.call("torch.where", {{"condition", d.binary("torch.lt", errorMin, errorMax)},
                                         {"input", fromMin}, {"other", fromMax}});
  Value zp = d.call("torch.clamp", {{"input", d.unary("torch.round", initial)},
                                    {"min", d.f64(0.0)}, {"max", d.f64(qmax)}});
  scale32 = d.cast(scale, l.f32());
  Value zp32 = d.cast(zp, l.f32());
  // quantize_val: float(zero_point) + round(x * (1.0f / scale)), clamped.
  Value inverse = d.unary("torch.reciprocal", scale32);
  Value q = d.binary("torch.add", d.unary("torch.round", d.binary("torch.mul", x, inverse)), zp32);
  q = d.call("torch.clamp", {{"input", q}, {"min", d.f64(0.0)}, {"max", d.f64(255.0)}});
  Value cx = d.binary("torch.sub", q, zp32);
  Value acc = exactSums(l, cx, w, pw, 255);
  RankedTensorType at = typeOf(acc);
  if (!at)
    return failure();
  SmallVector<float> sw;
  for (int64_t c = 0; c < wt.getDimSize(0); ++c)
    sw.push_back(static_cast<float>(pw.scale(c)));
  RankedTensorType af = RankedTensorType::get(at.getShape(), l.f32());
  Value multiplier = d.binary("torch.mul", l.perAxis(af, at.getRank() - 1, sw), scale32);
  Value y = d.binary("torch.mul", d.cast(acc, l.f32()), multiplier);
  if (!d.isNone("bias"))
    y = d.binary("torch.add", y, d.tensor("bias"));
  return one(y);
}

using LowerFn = Results (*)(Lowering &);

const llvm::StringMap<LowerFn> &lowerings() {
  static const llvm::StringMap<LowerFn> table = [] {
    llvm::StringMap<LowerFn> t;
    t["torch.quantize_per_tensor"] = lowerQuantize;
    t["torch.quantize_per_channel"] = lowerQuantize;
    t["torch.dequantize"] = lowerDequantize;
    t["torch.ops.quantized.add"] = lowerBinary;
    t["torch.ops.quantized.add_relu"] = lowerBinary;
    t["torch.ops.quantized.mul"] = lowerBinary;
    t["torch.ops.quantized.mul_relu"] = lowerBinary;
    t["torch.ops.quantized.cat"] = lowerCat;
    t["torch.cat"] = lowerCat;
    t["torch.nn.functional.relu"] = lowerClamp;
    t["torch.nn.functional.relu6"] = lowerClamp;
    t["torch.nn.functional.hardtanh"] = lowerClamp;
    t["torch.nn.functional.adaptive_avg_pool2d"] = lowerAdaptiveAvgPool;
    t["torch.nn.functional.avg_pool2d"] = lowerAvgPool;
    t["torch.mean"] = lowerAvgPool;
    t["torch.ops.quantized.hardswish"] = lowerActivation;
    t["torch.ops.quantized.leaky_relu"] = lowerPiecewise;
    t["torch.ops.quantized.elu"] = lowerPiecewise;
    t["torch.nn.functional.hardsigmoid"] = lowerActivation;
    t["torch.sigmoid"] = lowerActivation;
    t["torch.nn.functional.max_pool1d"] = lowerMaxPool;
    t["torch.nn.functional.max_pool2d"] = lowerMaxPool;
    t["torch.nn.functional.max_pool3d"] = lowerMaxPool;
    for (const char *n : {"1d", "2d", "3d"}) {
      t[(Twine("torch.ao.nn.quantized.functional.conv") + n).str()] =
          lowerContraction;
      t[(Twine("traced.quantized.conv_relu") + n).str()] = lowerContraction;
    }
    t["torch.ao.nn.quantized.functional.linear"] = lowerContraction;
    t["traced.quantized.linear_relu"] = lowerContraction;
    t["traced.quantized.linear_dynamic"] = lowerLinearDynamic;
    return t;
  }();
  return table;
}
} // namespace

LogicalResult traced::lowerQuantized(mlir::ModuleOp top, Operation *,
                                     bool int8Kernels) {
  // The quantized type of every value, before any is retyped.
  llvm::DenseMap<Value, Type> quantized;
  auto note = [&](Value v) {
    if (auto t = dyn_cast<TensorType>(v.getType());
        t && isQuantizedElement(t.getElementType()))
      quantized[v] = t.getElementType();
  };
  top.walk([&](Operation *op) {
    for (Value r : op->getResults())
      note(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument a : block.getArguments())
          note(a);
  });
  // The calls to rewrite, in order, before retyping.
  SmallVector<Operation *> calls;
  top.walk([&](Operation *op) {
    if (!isa<CallFunctionOp, CallMethodOp>(op))
      return;
    std::optional<BoundOp> bound = bindCall(op, {});
    if (!bound || !lowerings().count(bound->spec->name))
      return;
    // The quantized entries always (dequantize takes float tensors too);
    // the others when they take or make quantized tensors.
    if (bound->spec->quantized == QuantizedUse::Native ||
        llvm::any_of(op->getOperands(), [&](Value v) { return quantized.count(v); }) ||
        llvm::any_of(op->getResults(), [&](Value v) { return quantized.count(v); }))
      calls.push_back(op);
  });
  // Every value takes its storage type; declarations and graphs too.
  for (auto &[v, t] : quantized)
    v.setType(quantStorageType(v.getType()));
  top.walk([&](Operation *op) {
    if (auto graph = dyn_cast<GraphOp>(op)) {
      FunctionType type = graph.getFunctionType();
      SmallVector<Type> ins, outs;
      for (Type t : type.getInputs())
        ins.push_back(quantStorageType(t));
      for (Type t : type.getResults())
        outs.push_back(quantStorageType(t));
      graph.setFunctionTypeAttr(
          TypeAttr::get(FunctionType::get(op->getContext(), ins, outs)));
    } else if (auto p = dyn_cast<ParameterOp>(op)) {
      p.setType(cast<TensorType>(quantStorageType(p.getType())));
    } else if (auto b = dyn_cast<BufferOp>(op)) {
      b.setType(cast<TensorType>(quantStorageType(b.getType())));
    } else if (auto c = dyn_cast<ConstantOp>(op);
               c && isQuantizedTensor(c.getType())) {
      c.getResult().setType(quantStorageType(c.getType()));
    }
  });
  SymbolTableCollection symbols;
  for (Operation *op : calls) {
    std::optional<BoundOp> bound = bindCall(op, {});
    OpBuilder b(op);
    Decomposer d(*bound, b, symbols);
    Lowering l{d, quantized, symbols, int8Kernels};
    Results results = lowerings().lookup(bound->spec->name)(l);
    if (d.failed || failed(results)) {
      if (!d.declined.empty())
        return op->emitError() << "cannot compile this quantized call: "
                               << d.declined;
      return op->emitError("cannot compile this quantized call");
    }
    for (auto [from, to] : llvm::zip(op->getResults(), *results)) {
      // Later calls read the replaced value's quantization from its
      // replacement.
      if (Type q = quantized.lookup(from))
        quantized[to] = q;
      from.replaceAllUsesWith(to);
    }
    op->erase();
    for (Operation *dead : l.dead)
      dead->erase();
  }
  return success();
}

std::vector<std::string> traced::getQuantizedLoweringTargets() {
  std::vector<std::string> names;
  for (const auto &entry : lowerings())
    if (OpLibrary::get().lookupFunction(entry.getKey())->quantized ==
        QuantizedUse::Native)
      names.push_back(entry.getKey().str());
  return names;
}

namespace {
struct LowerQuantizedPass
    : traced::impl::TracedLowerQuantizedBase<LowerQuantizedPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(lowerQuantized(getOperation(), nullptr, int8Kernels)))
      signalPassFailure();
  }
};
} // namespace
