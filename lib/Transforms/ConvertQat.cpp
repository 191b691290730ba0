//===- ConvertQat.cpp - a QAT graph as the int8 graph torch converts it to -===//
//
// traced-convert-qat: a quantization-aware-training model (torch.fx's
// prepare_qat_fx, or eager mode's prepare_qat), its observers off, becomes
// the int8 model that torch's convert makes of it:
//
//  1. BatchNorm folds into each QAT ConvBn convolution. Such a module
//     computes `batch_norm(conv(x, fake_quant(w * s)) / s + b)` with
//     `s = gamma / sqrt(running_var + eps)`, which is
//     `conv(x, fake_quant(w * s)) + (b - running_mean) * s + beta`: the
//     weight the training saw, and the bias torch's fuse_conv_bn_weights
//     computes. The divisor must be the norm's scale (checked by value).
//  2. Each fake quantization becomes quantize / dequantize, of the dtype its
//     range names, at the parameters torch's convert computes (its
//     observer's calculate_qparams over the running min and max); one that
//     is off goes. The quantization of a value computed from parameters
//     alone (a weight) folds to a constant.
//  3. Ops that take quantized tensors run on the quantized tensor before
//     the dequantize, as torch's convert runs them; the dequantize / float
//     op / quantize islands left become int8 ops, as traced-fuse-quantized
//     makes them.
//
// Run traced-flatten and traced-normalize first; traced-dce after.
//
//===----------------------------------------------------------------------===//

#include "Decompose/Decompose.h"
#include "Utils.h"

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Support/DType.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDCONVERTQAT
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;
using namespace mlir::traced::decompose;

namespace {
/// Evaluates the values that parameters, buffers and constants determine
/// (a weight times a per-channel factor) with the interpreter's kernels:
/// each pure call of such values is cloned over constants, evaluated and
/// erased again, and the results are remembered.
class ExpressionEvaluator {
public:
  ExpressionEvaluator(SymbolTableCollection &symbols) : symbols(symbols) {}

  /// `v`'s value, or failure when it depends on a graph input, an impure
  /// call, or a call the kernels do not fold.
  FailureOr<Tensor> evaluate(Value v, unsigned depth = 0) {
    if (auto it = known.find(v); it != known.end())
      return it->second;
    FailureOr<Tensor> leaf = constantTensor(v, symbols);
    if (succeeded(leaf))
      return leaf;
    std::optional<BoundOp> call = definingCall(v);
    if (!call || !call->spec->pure || depth > 32)
      return failure();
    auto elements = dyn_cast_or_null<ElementsAttr>(evaluateCall(call->op, depth));
    if (!elements)
      return failure();
    FailureOr<Tensor> result = tensorFromElements(elements);
    if (succeeded(result))
      known.try_emplace(v, *result);
    return result;
  }

  /// The value of `call` (left in place) over its operands' values, or
  /// null when one of them is not known or the kernels do not fold it: a
  /// clone over scratch constants is evaluated and erased again.
  Attribute evaluateCall(Operation *call, unsigned depth = 0) {
    OpBuilder b(call);
    SmallVector<Operation *> scratch;
    IRMapping map;
    bool ok = true;
    for (Value operand : call->getOperands()) {
      FailureOr<Tensor> t = isa<TensorType>(operand.getType())
                                ? evaluate(operand, depth + 1)
                                : FailureOr<Tensor>(failure());
      if (failed(t)) {
        ok = false;
        break;
      }
      ConstantOp c = createTensorConstant(b, call->getLoc(), *t, "qat_scratch");
      scratch.push_back(c);
      map.map(operand, c.getResult());
    }
    Attribute value;
    if (ok) {
      Operation *clone = b.clone(*call, map);
      scratch.push_back(clone);
      value = evaluateConstantCall(clone, int64_t(1) << 28);
    }
    for (Operation *op : llvm::reverse(scratch))
      eraseScratch(op);
    return value;
  }

  /// Forgets the values remembered so far: a rewrite that erases ops may
  /// let a new op reuse an erased one's address, and so its values'.
  void forget() { known.clear(); }

  /// Erases a scratch op, and a scratch constant's bytes with it (the
  /// context's resource manager would keep a copy of each weight).
  static void eraseScratch(Operation *op) {
    if (auto c = dyn_cast<ConstantOp>(op))
      if (auto blob = dyn_cast<DenseResourceElementsAttr>(c.getValue()))
        if (auto *entry = blob.getRawHandle().getResource())
          entry->setBlob(AsmResourceBlob());
    op->erase();
  }

private:
  SymbolTableCollection &symbols;
  DenseMap<Value, Tensor> known;
};

/// Whether `v` is a zero bias: None's absence is checked by the caller;
/// here a zeros/zeros_like call or a constant of zeros.
bool isZero(Value v, ExpressionEvaluator &eval) {
  FailureOr<Tensor> t = eval.evaluate(v);
  if (failed(t))
    return false;
  for (int64_t i = 0, e = t->numel(); i < e; ++i)
    if (t->getDouble(i) != 0)
      return false;
  return true;
}

/// The per-channel values of `t` that broadcasts along dim `channelDim` of
/// a rank-`rank` tensor with `channels` channels (shape [1, C, 1, ...] or
/// [C] at the end); failure for any other shape.
FailureOr<std::vector<double>> perChannel(const Tensor &t, int64_t channels,
                                          int64_t channelDim, int64_t rank) {
  ArrayRef<int64_t> shape = t.shape();
  int64_t offset = rank - static_cast<int64_t>(shape.size());
  if (offset < 0)
    return failure();
  for (auto [i, d] : llvm::enumerate(shape)) {
    int64_t dim = static_cast<int64_t>(i) + offset;
    if (d != (dim == channelDim ? channels : 1) && !(d == 1 && channels == 1))
      return failure();
  }
  std::vector<double> out(channels);
  for (int64_t c = 0; c < channels; ++c)
    out[c] = t.getDouble(t.numel() == 1 ? 0 : c);
  return out;
}

/// What torch 1.13's observers' calculate_qparams gives for running
/// minima and maxima `lo`/`hi` (per tensor: one element each), in its
/// float32 arithmetic: the range widened to hold 0; symmetric: scale
/// max(-lo, hi) / ((qmax - qmin) / 2), zero point 0; affine: scale
/// (hi - lo) / (qmax - qmin), zero point qmin - round(lo / scale), clamped;
/// scales at least float32's epsilon. A per-tensor observer that has seen
/// nothing (+inf, -inf) gives scale 1, zero point 0.
void observerQParams(const Tensor &lo, const Tensor &hi, int64_t qmin,
                     int64_t qmax, bool symmetric, SmallVector<double> &scales,
                     SmallVector<int64_t> &zeroPoints) {
  const float eps = std::numeric_limits<float>::epsilon();
  int64_t n = lo.numel();
  if (n == 1 && std::isinf(lo.getDouble(0)) && lo.getDouble(0) > 0 &&
      std::isinf(hi.getDouble(0)) && hi.getDouble(0) < 0) {
    scales.push_back(1.0);
    zeroPoints.push_back(0);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    float minNeg = std::min(float(lo.getDouble(i)), 0.0f);
    float maxPos = std::max(float(hi.getDouble(i)), 0.0f);
    float scale;
    int64_t zeroPoint = 0;
    if (symmetric) {
      maxPos = std::max(-minNeg, maxPos);
      scale = std::max(maxPos / float(double(qmax - qmin) / 2), eps);
    } else {
      scale = std::max((maxPos - minNeg) / float(qmax - qmin), eps);
      zeroPoint = qmin - static_cast<int64_t>(std::nearbyint(minNeg / scale));
      zeroPoint = std::clamp(zeroPoint, qmin, qmax);
    }
    scales.push_back(scale);
    zeroPoints.push_back(zeroPoint);
  }
}

/// `op(dequantize(x))` as `dequantize(op(x))` for ops that take quantized
/// tensors (views, max pooling, relu, average pooling at x's parameters):
/// torch's convert runs them on the quantized tensor, so the islands
/// around them join (eager mode's maxpool between a ConvBnReLU and the
/// next conv has no fake quantization after it). Returns how many moved.
unsigned sinkDequantizes(mlir::ModuleOp top, SymbolTableCollection &symbols) {
  MLIRContext *ctx = top.getContext();
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  unsigned moved = 0;
  for (bool changed = true; changed;) {
    changed = false;
    SmallVector<Operation *> calls;
    top.walk([&](Operation *op) {
      if (isa<CallFunctionOp, CallMethodOp>(op) && op->getNumResults() == 1)
        calls.push_back(op);
    });
    for (Operation *op : calls) {
      std::optional<BoundOp> bound = bindCall(op, {});
      if (!bound || (bound->spec->quantized != QuantizedUse::Storage &&
                     bound->spec->quantized != QuantizedUse::SameQParams))
        continue;
      // (An op writing its input in place would write the quantized
      // tensor's other readers' value.)
      if (bound->spec->inplace || passesInplaceTrue(op))
        continue;
      Value operand;
      unsigned tensors = 0;
      for (Value v : op->getOperands())
        if (isa<TensorType>(v.getType()) && ++tensors == 1)
          operand = v;
      std::optional<BoundOp> dq = definingCall(operand, {"torch.dequantize"});
      Value x = dq ? dq->value("input") : Value();
      // (A dequantized tensor read elsewhere stays one tensor: a view of it
      // written in place must still write what the other readers see.)
      if (tensors != 1 || !x || !isQuantizedTensor(x.getType()) ||
          !operand.hasOneUse())
        continue;
      OpBuilder b(op);
      IRMapping map;
      map.map(operand, x);
      Operation *clone = b.clone(*op, map);
      FailureOr<SmallVector<Type>> types = inferCallResultTypes(clone, symbols);
      if (failed(types) || types->size() != 1 || !(*types)[0] ||
          !isQuantizedTensor((*types)[0])) {
        clone->erase();
        continue;
      }
      clone->getResult(0).setType((*types)[0]);
      LibraryCall back(ctx, "torch.dequantize", {{"input", clone->getResult(0)}});
      FailureOr<SmallVector<Type>> backTypes = back.inferTypes(b, op->getLoc(), symbols);
      if (failed(backTypes) || backTypes->size() != 1 ||
          (*backTypes)[0] != op->getResult(0).getType()) {
        clone->erase();
        continue;
      }
      Operation *result = back.build(b, op->getLoc(), *backTypes);
      op->getResult(0).replaceAllUsesWith(result->getResult(0));
      op->erase();
      if (dq->op->use_empty())
        dq->op->erase();
      changed = true;
      ++moved;
    }
  }
  return moved;
}

struct ConvertQatPass : traced::impl::TracedConvertQatBase<ConvertQatPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    ExpressionEvaluator eval(symbols);
    SmallVector<Operation *> norms, fakeQuants;
    getOperation().walk([&](Operation *op) {
      std::optional<BoundOp> b = bindCall(op, {});
      if (!b)
        return;
      if (b->spec->name == "torch.nn.functional.batch_norm")
        norms.push_back(op);
      else if (b->spec->name == "torch.fused_moving_avg_obs_fake_quant" ||
               b->spec->name == "torch.fake_quantize_per_tensor_affine")
        fakeQuants.push_back(op);
    });
    for (Operation *norm : norms) {
      if (succeeded(foldConvBn(*bindCall(norm, {}), eval)))
        ++numFolded;
      eval.forget();
    }
    for (Operation *fq : fakeQuants) {
      FailureOr<bool> done = convertFakeQuant(*bindCall(fq, {}), eval, symbols);
      if (failed(done))
        return signalPassFailure();
      numConverted += *done;
      eval.forget();
    }
    numSunk += sinkDequantizes(getOperation(), symbols);
    FailureOr<unsigned> fused = fuseQuantizedIslands(getOperation());
    if (failed(fused))
      return signalPassFailure();
    numFused += *fused;
  }

  /// Step 1: `batch_norm(add?(div(conv(x, w, zero), s), bias), ...)` in
  /// eval mode, s the norm's scale: `conv(x, w, bias')`.
  LogicalResult foldConvBn(const BoundOp &norm, ExpressionEvaluator &eval) {
    auto training = dyn_cast_or_null<BoolAttr>(norm.slot("training"));
    std::optional<double> eps = getPyFloat(norm.slot("eps"));
    if (!training || training.getValue() || !eps)
      return failure();
    Value z = norm.value("input");
    if (!z || !z.hasOneUse())
      return failure();
    // The conv's own bias, added after the division (ConvBn with bias).
    Value convBias;
    std::optional<BoundOp> add = definingCall(z, {"torch.add"});
    if (add) {
      std::optional<double> alpha = getPyFloat(add->knownValue("alpha"));
      if ((add->slot("alpha") && alpha != 1.0) || !add->value("other"))
        return failure();
      convBias = add->value("other");
      z = add->value("input");
      if (!z.hasOneUse())
        return failure();
    }
    std::optional<BoundOp> div = definingCall(z, {"torch.div"});
    if (!div || !div->value("other") ||
        (div->slot("rounding_mode") && !isa<NoneAttr>(div->slot("rounding_mode"))))
      return failure();
    Value convOut = div->value("input");
    std::optional<BoundOp> conv =
        definingCall(convOut, {"torch.nn.functional.conv1d", "torch.nn.functional.conv2d",
                         "torch.nn.functional.conv3d"});
    if (!conv || !convOut.hasOneUse() || !isa<CallFunctionOp>(conv->op))
      return failure();
    auto type = dyn_cast<RankedTensorType>(convOut.getType());
    auto wType = dyn_cast_or_null<RankedTensorType>(
        conv->value("weight") ? conv->value("weight").getType() : Type());
    if (!type || !wType || !wType.hasStaticShape() || type.getRank() < 2 ||
        !type.getElementType().isF32())
      return failure();
    int64_t channels = wType.getDimSize(0), rank = type.getRank();
    if (Value zeroBias = conv->value("bias"); zeroBias && !isZero(zeroBias, eval))
      return failure();
    // The norm's statistics and affine parameters, and the divisor.
    auto vec = [&](Value v, double fallback) -> FailureOr<std::vector<double>> {
      if (!v)
        return std::vector<double>(channels, fallback);
      FailureOr<Tensor> t = eval.evaluate(v);
      if (failed(t))
        return failure();
      return perChannel(*t, channels, t->shape().size() == 1 ? 0 : 1,
                        t->shape().size() == 1 ? 1 : rank);
    };
    if (!norm.value("running_mean") || !norm.value("running_var"))
      return failure();
    auto mean = vec(norm.value("running_mean"), 0), var = vec(norm.value("running_var"), 1),
         gamma = vec(norm.value("weight"), 1), beta = vec(norm.value("bias"), 0),
         bias = vec(convBias, 0);
    FailureOr<Tensor> divisor = eval.evaluate(div->value("other"));
    if (failed(mean) || failed(var) || failed(gamma) || failed(beta) ||
        failed(bias) || failed(divisor))
      return failure();
    FailureOr<std::vector<double>> s = perChannel(*divisor, channels, 1, rank);
    if (failed(s))
      return failure();
    // b' as torch's fuse_conv_bn_weights computes it, in float32:
    // (b - mean) * rsqrt(var + eps) * gamma + beta.
    Tensor folded(DType::F32, {channels});
    for (int64_t c = 0; c < channels; ++c) {
      float rsqrt = 1.0f / std::sqrt(float((*var)[c]) + float(*eps));
      float scale = float((*gamma)[c]) * rsqrt;
      // The division must undo the norm's scale for the fold to hold.
      if (!(std::abs((*s)[c] - scale) <= 1e-5 * std::abs(scale)))
        return failure();
      folded.setDouble(c, (float((*bias)[c]) - float((*mean)[c])) * rsqrt *
                                  float((*gamma)[c]) +
                              float((*beta)[c]));
    }
    OpBuilder b(conv->op);
    Value newBias = createTensorConstant(b, conv->op->getLoc(), folded,
                                         "qat_folded_bias");
    CallFunctionOp rebuilt = rebuildConv(*conv, conv->value("weight"), newBias);
    norm.op->getResult(0).replaceAllUsesWith(rebuilt->getResult(0));
    norm.op->erase();
    if (add)
      add->op->erase();
    div->op->erase();
    conv->op->erase();
    return success();
  }

  /// Step 2: one fake quantization as quantize/dequantize (true), left
  /// (false, with a warning saying why), or an error (failure).
  FailureOr<bool> convertFakeQuant(const BoundOp &fq, ExpressionEvaluator &eval,
                                   SymbolTableCollection &symbols) {
    Operation *op = fq.op;
    bool fused = fq.spec->name == "torch.fused_moving_avg_obs_fake_quant";
    auto leave = [&](const Twine &why) -> FailureOr<bool> {
      op->emitWarning() << "traced-convert-qat left this fake quantization "
                           "in float: "
                        << why;
      return false;
    };
    auto flag = [&](StringRef name) -> std::optional<bool> {
      FailureOr<Tensor> t = eval.evaluate(fq.value(name));
      if (failed(t) || t->numel() != 1)
        return std::nullopt;
      return t->getDouble(0) == 1;
    };
    Value input = fq.value("input");
    if (fused) {
      std::optional<bool> observer = flag("observer_on"),
                          on = flag("fake_quant_on");
      if (!observer || !on)
        return leave("its observer_on and fake_quant_on flags are not constants");
      if (*observer) {
        op->emitError("traced-convert-qat: this fake quantization's observer "
                      "is on, so its scale would still change; disable "
                      "observers before tracing "
                      "(model.apply(torch.ao.quantization.disable_observer))");
        return failure();
      }
      if (!*on) {
        op->getResult(0).replaceAllUsesWith(input);
        op->erase();
        return true;
      }
    }
    std::optional<int64_t> qmin = getPyInt(fq.knownValue("quant_min")),
                           qmax = getPyInt(fq.knownValue("quant_max"));
    if (!qmin || !qmax)
      return leave("its quant_min and quant_max are not constants");
    // torch's convert quantizes to the observer's dtype, whose full range
    // the stored integers take (a reduced range only changed the scale).
    StringRef dtypeName;
    if (*qmin >= *qmax)
      return leave("its range [" + Twine(*qmin) + ", " + Twine(*qmax) +
                   "] is empty");
    if (*qmin >= 0 && *qmax <= 255)
      dtypeName = "quint8";
    else if (*qmin >= -128 && *qmax <= 127)
      dtypeName = "qint8";
    else if (*qmin >= INT32_MIN && *qmax <= INT32_MAX)
      dtypeName = "qint32";
    else
      return leave("its range [" + Twine(*qmin) + ", " + Twine(*qmax) +
                   "] is not one of a quantized dtype");
    bool perChannel = fused && getPyBool(fq.knownValue("per_row_fake_quant"))
                                   .value_or(false);
    OpBuilder b(op);
    Decomposer d(fq, b, symbols);
    Type quantized = quantizedDTypeFromName(b.getContext(), dtypeName);
    Attribute dtype = d.dtype(quantized);
    // The parameters torch's convert quantizes with: its observer's
    // calculate_qparams over the running min and max (the scale buffer the
    // QAT forward uses can lag behind them); a plain fake quantization's
    // own scale and zero point.
    SmallVector<double> scales;
    SmallVector<int64_t> zeroPoints;
    if (fused) {
      bool symmetric = getPyBool(fq.knownValue("symmetric_quant")).value_or(false);
      if (symmetric && dtypeName == "quint8")
        return leave("a symmetric quint8 observer's zero point (128, or the "
                     "range's midpoint) is not in the graph");
      FailureOr<Tensor> lo = eval.evaluate(fq.value("running_min")),
                        hi = eval.evaluate(fq.value("running_max"));
      if (failed(lo) || failed(hi) || lo->numel() != hi->numel() || lo->numel() == 0)
        return leave("its running min and max are not constants");
      observerQParams(*lo, *hi, *qmin, *qmax, symmetric, scales, zeroPoints);
    } else {
      std::optional<double> scale = getPyFloat(fq.knownValue("scale"));
      std::optional<int64_t> zeroPoint = getPyInt(fq.knownValue("zero_point"));
      if (!scale || !zeroPoint)
        return leave("its scale and zero point are not constants");
      scales.push_back(*scale);
      zeroPoints.push_back(*zeroPoint);
    }
    for (auto [scale, zeroPoint] : llvm::zip(scales, zeroPoints))
      if (!uniformQuantizedType(quantized, scale, zeroPoint, [&]() {
            return op->emitError("traced-convert-qat: ");
          }))
        return failure();
    Value q;
    if (perChannel) {
      std::optional<int64_t> axis = getPyInt(fq.knownValue("ch_axis"));
      auto inputType = dyn_cast<RankedTensorType>(input.getType());
      if (!axis || !inputType || *axis < -inputType.getRank() ||
          *axis >= inputType.getRank())
        return leave("its ch_axis is not a dim of its input");
      if (*axis < 0)
        *axis += inputType.getRank();
      if (inputType.isDynamicDim(*axis) ||
          inputType.getDimSize(*axis) != static_cast<int64_t>(scales.size()))
        return leave("it has not one scale per index along its ch_axis");
      // The per-channel type, which the result rule leaves to the trace,
      // and the parameters as constants (float64 scales, int64 zero
      // points, as torch's convert passes them).
      auto qtype = cast<quant::QuantizedType>(quantized);
      auto range = cast<quant::UniformQuantizedType>(
          uniformQuantizedType(quantized, scales[0], zeroPoints[0], nullptr));
      Type resultType = RankedTensorType::get(
          inputType.getShape(),
          quant::UniformQuantizedPerAxisType::get(
              qtype.getFlags(), qtype.getStorageType(), b.getF32Type(), scales,
              zeroPoints, int32_t(*axis), range.getStorageTypeMin(),
              range.getStorageTypeMax()));
      int64_t n = scales.size();
      Tensor scaleTensor(DType::F64, {n}), zeroPointTensor(DType::I64, {n});
      for (int64_t i = 0; i < n; ++i) {
        scaleTensor.setDouble(i, scales[i]);
        zeroPointTensor.setDouble(i, zeroPoints[i]);
      }
      Location loc = op->getLoc();
      Value scalesValue = createTensorConstant(b, loc, scaleTensor, "qat_scales");
      Value zeroPointsValue =
          createTensorConstant(b, loc, zeroPointTensor, "qat_zero_points");
      q = d.call("torch.quantize_per_channel",
                 {{"input", input},
                  {"scales", scalesValue},
                  {"zero_points", zeroPointsValue},
                  {"axis", d.i64(*axis)},
                  {"dtype", dtype}},
                 resultType);
    } else {
      if (scales.size() != 1)
        return leave("it has more than one scale but quantizes per tensor");
      q = d.call("torch.quantize_per_tensor",
                 {{"input", input}, {"scale", d.f64(scales[0])},
                  {"zero_point", d.i64(zeroPoints[0])}, {"dtype", dtype}});
    }
    if (d.failed || !q)
      return failure();
    foldQuantize(q, eval);
    Value dq = d.call("torch.dequantize", {{"input", q}});
    if (d.failed || !dq)
      return failure();
    op->getResult(0).replaceAllUsesWith(dq);
    op->erase();
    return true;
  }

  /// The quantization `q` of a value parameters determine (a weight), as
  /// a constant of its quantized type; `q` unchanged otherwise.
  void foldQuantize(Value &q, ExpressionEvaluator &eval) {
    Operation *call = q.getDefiningOp();
    Attribute value = eval.evaluateCall(call);
    if (!value)
      return;
    OpBuilder b(call);
    q = ConstantOp::create(b, call->getLoc(), q.getType(), value).getResult();
    call->erase();
  }
};
} // namespace
