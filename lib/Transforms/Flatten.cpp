//===- Flatten.cpp - inline traced submodule graphs into the root ---------===//

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDFLATTEN
#include "TracedIR/Transforms/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
/// The callee graph of a call of a traced submodule's method, if any.
GraphOp calleeOf(CallMethodOp call, SymbolTableCollection &symbols) {
  auto type = dyn_cast<ModuleType>(call.getReceiver().getType());
  if (!type)
    return {};
  auto top = call->getParentOfType<mlir::ModuleOp>();
  auto module =
      symbols.lookupSymbolIn<traced::ModuleOp>(top, type.getModuleName());
  if (!module)
    return {};
  return dyn_cast_or_null<GraphOp>(
      symbols.lookupSymbolIn(module, call.getMethodAttr()));
}

/// Replaces `call` by a copy of `callee`'s body; fails (IR unchanged) when
/// an argument is not a plain traced value or constant.
LogicalResult inlineCall(CallMethodOp call, GraphOp callee) {
  IRMapping mapping;
  mapping.map(callee.getSelf(), call.getReceiver());
  ArrayAttr arguments = call.getArgumentsAttr();
  SmallVector<StringRef> keywords;
  for (Attribute k : call.getKeywordsAttr())
    keywords.push_back(cast<StringAttr>(k).getValue());
  size_t positional = arguments.size() - keywords.size();
  SmallVector<Attribute> slots(callee.getNumArguments() - 1);
  for (size_t i = 0; i < positional && i < slots.size(); ++i)
    slots[i] = arguments[i];
  for (auto [i, name] : llvm::enumerate(keywords))
    for (unsigned a = 1; a < callee.getNumArguments(); ++a)
      if (callee.getArgName(a) == name)
        slots[a - 1] = arguments[positional + i];
  OpBuilder b(call);
  for (auto [i, slot] : llvm::enumerate(slots)) {
    Value value;
    if (auto marker = dyn_cast_or_null<OperandAttr>(slot)) {
      value = call.getArgs()[marker.getIndex()];
    } else if (slot && isPyValue(slot, /*allowOperands=*/false) &&
               ConstantOp::isValidValue(slot,
                                        callee.getArgument(i + 1).getType())) {
      value = ConstantOp::create(b, call.getLoc(),
                                 callee.getArgument(i + 1).getType(), slot);
    } else {
      return failure();
    }
    mapping.map(callee.getArgument(i + 1), value);
  }
  for (Operation &op : callee.getBody().front()) {
    if (auto output = dyn_cast<OutputOp>(op)) {
      for (auto [result, v] : llvm::zip(call.getResults(), output.getResults()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(v));
      break;
    }
    b.clone(op, mapping);
  }
  call->erase();
  return success();
}

struct FlattenPass : traced::impl::TracedFlattenBase<FlattenPass> {
  using Base::Base;

  void runOnOperation() override {
    SymbolTableCollection symbols;
    traced::ModuleOp root;
    for (auto m : getOperation().getOps<traced::ModuleOp>())
      if (m.getRoot())
        root = m;
    if (!root)
      return; // nothing to flatten into
    for (GraphOp graph : root.getBody().front().getOps<GraphOp>()) {
      // Inline until no graph calls remain; a module tree is finite, so a
      // bound on rounds only catches recursion.
      for (unsigned round = 0;; ++round) {
        SmallVector<std::pair<CallMethodOp, GraphOp>> calls;
        graph.walk([&](CallMethodOp call) {
          if (GraphOp callee = calleeOf(call, symbols))
            calls.push_back({call, callee});
        });
        if (calls.empty())
          break;
        if (round == 1000) {
          graph.emitError("traced-flatten: graph calls do not terminate "
                          "(a module calls itself)");
          return signalPassFailure();
        }
        bool progress = false;
        for (auto [call, callee] : calls) {
          if (callee == graph) {
            call.emitError("traced-flatten: a graph calls itself");
            return signalPassFailure();
          }
          if (succeeded(inlineCall(call, callee))) {
            ++numInlined;
            progress = true;
          }
        }
        if (!progress)
          break;
      }
      if (keepLeafModules)
        continue;
      SmallVector<CallMethodOp> leafCalls;
      graph.walk([&](CallMethodOp call) { leafCalls.push_back(call); });
      for (CallMethodOp call : leafCalls)
        if (succeeded(makeLeafCallFunctional(call, symbols)))
          ++numLeafCalls;
    }
  }
};
} // namespace
