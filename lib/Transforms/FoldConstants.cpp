//===- FoldConstants.cpp - run kernels on constant operands ---------------===//
//
// traced-fold-constants: calls whose operands are all constants become
// constants, by running the op library's interpreter kernels once (through
// the ConstantEvaluatorInterface the interpreter registers).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Dialect/Traced/ConstantEvaluator.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/IR/Diagnostics.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDFOLDCONSTANTS
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

Attribute traced::evaluateConstantCall(Operation *call, int64_t maxElements) {
  const ConstantEvaluatorInterface *evaluator =
      getConstantEvaluator(call->getContext());
  return evaluator ? evaluator->evaluate(call, maxElements) : Attribute();
}

namespace {
struct FoldConstantsPass
    : traced::impl::TracedFoldConstantsBase<FoldConstantsPass> {
  using Base::Base;
  void runOnOperation() override {
    // (No traced dialect loaded: no traced calls to fold.)
    if (!getContext().getLoadedDialect<TracedDialect>())
      return;
    if (!getConstantEvaluator(&getContext())) {
      getOperation()->emitError(
          "traced-fold-constants needs the interpreter's constant evaluator: "
          "register it with traced::registerConstantEvaluator (InitAll's "
          "registerAllDialects does)");
      return signalPassFailure();
    }
    SmallVector<Operation *> calls;
    getOperation().walk([&](Operation *op) {
      if (isa<CallFunctionOp, CallMethodOp>(op))
        calls.push_back(op);
    });
    // Walk order is program order within a graph, so a call's constant
    // operands have been folded before it is visited.
    for (Operation *call : calls) {
      Attribute value = evaluateConstantCall(call, maxElements);
      if (!value)
        continue;
      OpBuilder b(call);
      auto constant = ConstantOp::create(b, call->getLoc(),
                                         call->getResult(0).getType(), value);
      call->getResult(0).replaceAllUsesWith(constant.getResult());
      // Constants only this call used go with it.
      llvm::SmallSetVector<Operation *, 4> operands;
      for (Value v : call->getOperands())
        if (Operation *def = v.getDefiningOp())
          operands.insert(def);
      call->erase();
      for (Operation *def : operands)
        if (def->use_empty())
          def->erase();
      ++numFolded;
    }
  }
};
} // namespace
