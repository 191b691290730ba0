//===- FuseAddMul.cpp - fold chains of constant adds and muls -------------===//

#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"
#include "Utils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDFUSEADDMUL
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
/// A constant operand of an add or a mul: a Python number or a constant
/// tensor.
struct Constant {
  std::optional<double> number;
  bool isFloat = false;
  std::optional<Tensor> tensor;
};

std::optional<Constant> constantOf(const BoundOp &op, StringRef name,
                                   SymbolTableCollection &symbols) {
  Attribute slot = op.slot(name);
  if (auto i = dyn_cast_or_null<IntegerAttr>(slot); i && !isa<BoolAttr>(slot))
    return Constant{static_cast<double>(i.getInt()), false, std::nullopt};
  if (auto f = dyn_cast_or_null<FloatAttr>(slot))
    return Constant{f.getValueAsDouble(), true, std::nullopt};
  if (Value v = op.value(name))
    if (FailureOr<Tensor> t = constantTensor(v, symbols); succeeded(t))
      return Constant{std::nullopt, false, *t};
  return std::nullopt;
}

bool isOne(Attribute alpha) {
  auto i = dyn_cast_or_null<IntegerAttr>(alpha);
  return i && !isa<BoolAttr>(alpha) && i.getInt() == 1;
}

struct FuseChain : RewritePattern {
  FuseChain(MLIRContext *ctx, StringRef target, unsigned &counter)
      : RewritePattern(MatchAnyOpTypeTag(), 1, ctx), target(target),
        counter(counter) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    std::optional<BoundOp> outer = bindCall(op, {target});
    if (!outer || (target == "torch.add" && !isOne(outer->slot("alpha"))))
      return failure();
    Value mid = outer->value("input");
    if (!mid || !mid.hasOneUse())
      return failure();
    std::optional<BoundOp> inner = bindCall(mid.getDefiningOp(), {target});
    if (!inner || (target == "torch.add" && !isOne(inner->slot("alpha"))))
      return failure();
    Value x = inner->value("input");
    std::optional<Constant> a = constantOf(*inner, "other", symbols),
                            b = constantOf(*outer, "other", symbols);
    if (!x || !a || !b)
      return failure();
    bool add = target == "torch.add";
    auto combine = [add](double p, double q) { return add ? p + q : p * q; };
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(op);
    MLIRContext *ctx = op->getContext();
    SmallVector<Value> operands{x};
    Attribute other;
    if (a->number && b->number) {
      double v = combine(*a->number, *b->number);
      other =
          (a->isFloat || b->isFloat)
              ? Attribute(rewriter.getF64FloatAttr(v))
              : Attribute(rewriter.getI64IntegerAttr(static_cast<int64_t>(v)));
    } else if (a->tensor && b->tensor &&
               a->tensor->shape() == b->tensor->shape() &&
               a->tensor->dtype() == b->tensor->dtype()) {
      Tensor sum(a->tensor->dtype(), a->tensor->shape());
      for (int64_t i = 0; i < sum.numel(); ++i)
        sum.setDouble(
            i, combine(a->tensor->getDouble(i), b->tensor->getDouble(i)));
      operands.push_back(
          createTensorConstant(rewriter, op->getLoc(), sum, "fused_add_mul"));
      other = OperandAttr::get(ctx, 1);
    } else {
      return failure();
    }
    auto fused = CallFunctionOp::create(
        rewriter, op->getLoc(), op->getResultTypes(),
        rewriter.getStringAttr(target), operands,
        rewriter.getArrayAttr({OperandAttr::get(ctx, 0), other}),
        rewriter.getStrArrayAttr({"input", "other"}));
    // Combining may not change what the op computes to (int + float).
    SymbolTableCollection check;
    FailureOr<SmallVector<Type>> types = inferCallResultTypes(fused, check);
    if (failed(types) ||
        (!types->empty() && (*types)[0] != op->getResultTypes()[0])) {
      rewriter.eraseOp(fused);
      return failure();
    }
    rewriter.replaceOp(op, fused->getResults());
    rewriter.eraseOp(inner->op);
    ++counter;
    return success();
  }

  StringRef target;
  unsigned &counter;
  mutable SymbolTableCollection symbols;
};

struct FuseAddMulPass : traced::impl::TracedFuseAddMulBase<FuseAddMulPass> {
  using Base::Base;
  unsigned fused = 0;

  void runOnOperation() override {
    fused = 0;
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseChain>(&getContext(), "torch.add", fused);
    patterns.add<FuseChain>(&getContext(), "torch.mul", fused);
    FrozenRewritePatternSet frozen(std::move(patterns));
    FailureOr<unsigned> sweeps = applyToFixedPoint(getOperation(), frozen);
    if (failed(sweeps)) {
      getOperation().emitError("traced-fuse-add-mul did not converge");
      return signalPassFailure();
    }
    numIterations = *sweeps;
    numFused = fused;
    if (reportIterations)
      emitRemark(getOperation().getLoc())
          << "traced-fuse-add-mul: fixed point after " << *sweeps
          << " sweep(s), " << fused << " pair(s) fused";
  }
};
} // namespace
