//===- Normalize.cpp - canonical targets, functional leaf calls -----------===//

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDNORMALIZE
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
struct NormalizePass : traced::impl::TracedNormalizeBase<NormalizePass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    SmallVector<Operation *> calls;
    getOperation().walk([&](Operation *op) {
      if (isa<CallFunctionOp, CallMethodOp>(op))
        calls.push_back(op);
    });
    for (Operation *op : calls) {
      if (auto fn = dyn_cast<CallFunctionOp>(op)) {
        const OpSpec *spec = OpLibrary::get().lookupFunction(fn.getCallee());
        // ATen overloads keep their spelling: their arguments are bound to
        // the overload's schema, not to the entry's signature.
        if (spec && spec->atenSpelling.empty() && !spec->inplace &&
            spec->name != fn.getCallee()) {
          fn.setCallee(spec->name);
          ++numAliases;
        }
        continue;
      }
      auto method = cast<CallMethodOp>(op);
      if (isa<ModuleType>(method.getReceiver().getType())) {
        if (succeeded(makeLeafCallFunctional(method, symbols)))
          ++numLeafCalls;
        continue;
      }
      if (!isa<TensorType>(method.getReceiver().getType()))
        continue;
      const OpSpec *spec = OpLibrary::get().lookupMethod(method.getMethod());
      if (!spec || spec->name.starts_with("Tensor.") || spec->inplace)
        continue; // a method without a functional form (view, size, ...),
                  // or an in-place one, whose result keeps its input's type
      // receiver.method(args) -> canonical(receiver, args).
      MLIRContext *ctx = op->getContext();
      SmallVector<Attribute> arguments{OperandAttr::get(ctx, 0)};
      for (Attribute a : method.getArgumentsAttr())
        arguments.push_back(replaceOperandMarkers(a, [&](OperandAttr m) {
          return OperandAttr::get(ctx, m.getIndex() + 1);
        }));
      SmallVector<Value> operands{method.getReceiver()};
      llvm::append_range(operands, method.getArgs());
      OpBuilder b(op);
      auto fn = CallFunctionOp::create(
          b, op->getLoc(), op->getResultTypes(), b.getStringAttr(spec->name),
          operands, b.getArrayAttr(arguments), method.getKeywordsAttr());
      // (The dynamic dims' names the tracer recorded stay with the call.)
      if (Attribute names = op->getAttr(kDimNamesAttr))
        fn->setAttr(kDimNamesAttr, names);
      (void)normalizeCallInPlace(fn);
      op->replaceAllUsesWith(fn);
      op->erase();
      ++numAliases;
    }
  }
};
} // namespace
