//===- FoldScale.cpp - absorb positive scales into the conv ---------------===//

#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"
#include "Utils.h"

#include "mlir/IR/Builders.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDFOLDSCALE
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
/// The per-output-channel values of a scale operand: a Python number, or a
/// constant tensor with one value or one per channel (shape [C], [C, 1, 1]
/// or [1, C, 1, 1]).
FailureOr<std::vector<double>> channelFactors(const BoundOp &op, StringRef name,
                                              int64_t channels,
                                              SymbolTableCollection &symbols) {
  Attribute slot = op.slot(name);
  if (auto i = dyn_cast_or_null<IntegerAttr>(slot); i && !isa<BoolAttr>(slot))
    return std::vector<double>(channels, static_cast<double>(i.getInt()));
  if (auto f = dyn_cast_or_null<FloatAttr>(slot))
    return std::vector<double>(channels, f.getValueAsDouble());
  Value v = op.value(name);
  if (!v)
    return failure();
  FailureOr<Tensor> t = constantTensor(v, symbols);
  if (failed(t))
    return failure();
  if (t->numel() == 1)
    return std::vector<double>(channels, t->getDouble(0));
  // One value per channel, laid out along the channel dimension.
  ArrayRef<int64_t> shape = t->shape();
  bool perChannel =
      t->numel() == channels &&
      ((shape.size() == 1) ||
       (shape.size() == 3 && shape[1] == 1 && shape[2] == 1) ||
       (shape.size() == 4 && shape[0] == 1 && shape[2] == 1 && shape[3] == 1));
  if (!perChannel)
    return failure();
  std::vector<double> out(channels);
  for (int64_t c = 0; c < channels; ++c)
    out[c] = t->getDouble(c);
  return out;
}

struct FoldScalePass : traced::impl::TracedFoldScaleBase<FoldScalePass> {
  unsigned blobCounter = 0;

  void runOnOperation() override {
    SymbolTableCollection symbols;
    SmallVector<Operation *> divs;
    getOperation().walk([&](Operation *op) {
      if (isa<CallFunctionOp, CallMethodOp>(op))
        divs.push_back(op);
    });
    for (Operation *op : divs)
      if (succeeded(fold(op, symbols)))
        ++numFolded;
  }

  LogicalResult fold(Operation *divOp, SymbolTableCollection &symbols) {
    std::optional<BoundOp> div = bindCall(divOp, {"torch.div"});
    if (!div || !isa_and_nonnull<NoneAttr>(div->slot("rounding_mode")))
      return failure();
    Value reluOut = div->value("input");
    if (!reluOut || !reluOut.hasOneUse())
      return failure();
    std::optional<BoundOp> relu =
        bindCall(reluOut.getDefiningOp(), {"torch.nn.functional.relu"});
    if (!relu || !isa_and_nonnull<BoolAttr>(relu->slot("inplace")) ||
        cast<BoolAttr>(relu->slot("inplace")).getValue())
      return failure();
    Value mulOut = relu->value("input");
    if (!mulOut || !mulOut.hasOneUse())
      return failure();
    std::optional<BoundOp> mul =
        bindCall(mulOut.getDefiningOp(), {"torch.mul"});
    if (!mul)
      return failure();
    Value convOut = mul->value("input");
    if (!convOut || !convOut.hasOneUse())
      return failure();
    // A leaf-module conv becomes functional first.
    if (auto leaf = convOut.getDefiningOp<CallMethodOp>()) {
      FailureOr<CallFunctionOp> fn = makeLeafCallFunctional(leaf, symbols);
      if (failed(fn))
        return failure();
      convOut = fn->getResult(0);
    }
    std::optional<BoundOp> conv =
        bindCall(convOut.getDefiningOp(),
                 {"torch.nn.functional.conv2d", "torch.nn.functional.conv1d"});
    if (!conv || !isa<CallFunctionOp>(conv->op))
      return failure();
    FailureOr<Tensor> w = constantTensor(conv->value("weight"), symbols);
    if (failed(w) || !isFloatingPoint(w->dtype()))
      return failure();
    int64_t channels = w->dim(0);
    FailureOr<std::vector<double>> s =
        channelFactors(*mul, "other", channels, symbols);
    FailureOr<std::vector<double>> t =
        channelFactors(*div, "other", channels, symbols);
    if (failed(s) || failed(t))
      return failure();
    std::vector<double> bias(channels, 0.0);
    if (Value b = conv->value("bias")) {
      FailureOr<Tensor> bt = constantTensor(b, symbols);
      if (failed(bt) || bt->numel() != channels)
        return failure();
      for (int64_t c = 0; c < channels; ++c)
        bias[c] = bt->getDouble(c);
    } else if (!isa_and_nonnull<NoneAttr>(conv->slot("bias"))) {
      return failure();
    }
    // relu(a * k) == relu(a) * k needs k > 0.
    std::vector<double> k(channels);
    for (int64_t c = 0; c < channels; ++c) {
      k[c] = (*s)[c] / (*t)[c];
      if (!(k[c] > 0))
        return failure();
    }
    // The folded values must keep the op's types: the scales may not widen
    // the result (a f64 scale on a f32 conv would).
    if (mulOut.getType() != convOut.getType() ||
        divOp->getResult(0).getType() != reluOut.getType())
      return failure();
    Tensor newW(w->dtype(), w->shape()), newB(w->dtype(), {channels});
    int64_t inner = w->numel() / channels;
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t i = 0; i < inner; ++i)
        newW.setDouble(c * inner + i, w->getDouble(c * inner + i) * k[c]);
      newB.setDouble(c, bias[c] * k[c]);
    }
    CallFunctionOp newConv = rebuildConv(
        *conv, newW, newB, "folded_scale_" + std::to_string(blobCounter++));
    mul->op->getResult(0).replaceAllUsesWith(newConv.getResult(0));
    divOp->getResult(0).replaceAllUsesWith(reluOut);
    divOp->erase();
    mul->op->erase();
    conv->op->erase();
    return success();
  }
};
} // namespace
