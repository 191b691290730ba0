//===- FuseConvBN.cpp - fold eval batch_norm into the preceding conv ------===//

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <cmath>

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDFUSECONVBN
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
/// A call bound to its canonical target's signature.
struct BoundOp {
  const OpSpec *spec = nullptr;
  SmallVector<Attribute> slots;
  CallFunctionOp op;

  /// The traced value bound to `name`, or null.
  Value value(StringRef name) const {
    auto marker =
        dyn_cast_or_null<OperandAttr>(slots[*spec->signature.lookup(name)]);
    return marker
               ? const_cast<CallFunctionOp &>(op).getArgs()[marker.getIndex()]
               : Value();
  }
  Attribute slot(StringRef name) const {
    return slots[*spec->signature.lookup(name)];
  }
};

std::optional<BoundOp> bind(Operation *op, ArrayRef<StringRef> canonical) {
  auto call = dyn_cast_or_null<CallFunctionOp>(op);
  if (!call)
    return std::nullopt;
  const OpSpec *spec = OpLibrary::get().lookupFunction(call.getCallee());
  if (!spec || !llvm::is_contained(canonical, spec->name))
    return std::nullopt;
  BoundOp bound{spec, {}, call};
  SmallVector<StringRef> keywords;
  for (Attribute k : call.getKeywordsAttr())
    keywords.push_back(cast<StringAttr>(k).getValue());
  MLIRContext *ctx = op->getContext();
  ScopedDiagnosticHandler silence(ctx, [](Diagnostic &) { return success(); });
  if (failed(bindArguments(
          ctx, spec->signature, 0, call.getArgumentsAttr().getValue(), keywords,
          [&] { return mlir::emitError(op->getLoc()); }, bound.slots)))
    return std::nullopt;
  return bound;
}

struct FuseConvBNPass : traced::impl::TracedFuseConvBNBase<FuseConvBNPass> {
  unsigned blobCounter = 0;

  void runOnOperation() override {
    SymbolTableCollection symbols;
    // Leaf-module convs feeding leaf-module batch norms become functional.
    SmallVector<CallMethodOp> leafNorms;
    getOperation().walk([&](CallMethodOp call) { leafNorms.push_back(call); });
    for (CallMethodOp call : leafNorms) {
      auto conv = call.getArgs().empty()
                      ? CallMethodOp()
                      : call.getArgs()[0].getDefiningOp<CallMethodOp>();
      if (!conv || !conv->hasOneUse() ||
          !isLeafOf(call, "batch_norm", symbols) ||
          !isLeafOf(conv, "conv", symbols))
        continue;
      (void)makeLeafCallFunctional(conv, symbols);
      (void)makeLeafCallFunctional(call, symbols);
    }
    SmallVector<CallFunctionOp> norms;
    getOperation().walk([&](CallFunctionOp call) { norms.push_back(call); });
    for (CallFunctionOp norm : norms)
      if (succeeded(fuse(norm, symbols)))
        ++numFused;
  }

  static bool isLeafOf(CallMethodOp call, StringRef functionalPart,
                       SymbolTableCollection &symbols) {
    auto type = dyn_cast<ModuleType>(call.getReceiver().getType());
    if (!type)
      return false;
    auto top = call->getParentOfType<mlir::ModuleOp>();
    auto m =
        symbols.lookupSymbolIn<traced::ModuleOp>(top, type.getModuleName());
    if (!m || !m.isLeaf())
      return false;
    const ModuleSpec *spec = OpLibrary::get().lookupModule(m.getClassName());
    return spec && spec->functional.contains(functionalPart);
  }

  LogicalResult fuse(CallFunctionOp normOp, SymbolTableCollection &symbols) {
    std::optional<BoundOp> norm =
        bind(normOp, {"torch.nn.functional.batch_norm"});
    if (!norm)
      return failure();
    auto training = dyn_cast_or_null<BoolAttr>(norm->slot("training"));
    auto epsAttr = norm->slot("eps");
    Value input = norm->value("input");
    if (!training || training.getValue() || !input || !input.hasOneUse())
      return failure();
    std::optional<BoundOp> conv =
        bind(input.getDefiningOp(),
             {"torch.nn.functional.conv2d", "torch.nn.functional.conv1d"});
    if (!conv || !norm->value("running_mean") || !norm->value("running_var"))
      return failure();
    double eps;
    if (auto f = dyn_cast_or_null<FloatAttr>(epsAttr))
      eps = f.getValueAsDouble();
    else if (auto i = dyn_cast_or_null<IntegerAttr>(epsAttr))
      eps = i.getInt();
    else
      return failure();
    FailureOr<Tensor> w = constantTensor(conv->value("weight"), symbols);
    FailureOr<Tensor> mean =
        constantTensor(norm->value("running_mean"), symbols);
    FailureOr<Tensor> var = constantTensor(norm->value("running_var"), symbols);
    if (failed(w) || failed(mean) || failed(var) ||
        (w->dtype() != DType::F32 && w->dtype() != DType::F64))
      return failure();
    int64_t channels = w->dim(0);
    auto optional = [&](const BoundOp &b, StringRef name,
                        double fallback) -> FailureOr<std::vector<double>> {
      Value v = b.value(name);
      if (!v) {
        if (!isa_and_nonnull<NoneAttr>(b.slot(name)))
          return failure();
        return std::vector<double>(channels, fallback);
      }
      FailureOr<Tensor> t = constantTensor(v, symbols);
      if (failed(t) || t->numel() != channels)
        return failure();
      std::vector<double> out(channels);
      for (int64_t i = 0; i < channels; ++i)
        out[i] = t->getDouble(i);
      return out;
    };
    FailureOr<std::vector<double>> gamma = optional(*norm, "weight", 1),
                                   beta = optional(*norm, "bias", 0),
                                   bias = optional(*conv, "bias", 0);
    if (failed(gamma) || failed(beta) || failed(bias) ||
        mean->numel() != channels || var->numel() != channels)
      return failure();
    // w' = w * gamma / sqrt(var + eps); b' = (b - mean) * that + beta.
    Tensor newW(w->dtype(), w->shape());
    Tensor newB(w->dtype(), {channels});
    int64_t inner = w->numel() / channels;
    for (int64_t c = 0; c < channels; ++c) {
      double scale = (*gamma)[c] / std::sqrt(var->getDouble(c) + eps);
      for (int64_t i = 0; i < inner; ++i)
        newW.setDouble(c * inner + i, w->getDouble(c * inner + i) * scale);
      newB.setDouble(c, ((*bias)[c] - mean->getDouble(c)) * scale + (*beta)[c]);
    }
    OpBuilder b(conv->op);
    MLIRContext *ctx = b.getContext();
    std::string hint = "fused_conv_bn_" + std::to_string(blobCounter++);
    Value wValue =
        createTensorConstant(b, normOp.getLoc(), newW, hint + "_weight");
    Value bValue =
        createTensorConstant(b, normOp.getLoc(), newB, hint + "_bias");
    // The conv again, every argument by keyword, with the new weight and bias.
    SmallVector<Value> operands;
    SmallVector<Attribute> arguments;
    SmallVector<StringRef> names;
    const Signature &sig = conv->spec->signature;
    for (auto [i, param] : llvm::enumerate(sig.params)) {
      Attribute slot = conv->slots[i];
      if (param.name == "weight" || param.name == "bias") {
        operands.push_back(param.name == "weight" ? wValue : bValue);
        slot = OperandAttr::get(ctx, operands.size() - 1);
      } else {
        slot = replaceOperandMarkers(slot, [&](OperandAttr m) {
          operands.push_back(conv->op.getArgs()[m.getIndex()]);
          return OperandAttr::get(ctx, operands.size() - 1);
        });
      }
      arguments.push_back(slot);
      names.push_back(param.name);
    }
    auto fused = CallFunctionOp::create(
        b, conv->op.getLoc(), conv->op.getResultTypes(),
        b.getStringAttr(conv->op.getCallee()), operands,
        b.getArrayAttr(arguments), b.getStrArrayAttr(names));
    (void)normalizeCallInPlace(fused);
    normOp->replaceAllUsesWith(fused);
    normOp->erase();
    conv->op->erase();
    return success();
  }
};
} // namespace
