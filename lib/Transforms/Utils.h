//===- Utils.h - pieces the graph-surgery passes share ----------*- C++ -*-===//

#ifndef TRACEDIR_LIB_TRANSFORMS_UTILS_H
#define TRACEDIR_LIB_TRANSFORMS_UTILS_H

#include "TracedIR/Dialect/Traced/BoundOp.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace mlir::traced {

/// The traced.module a module-typed value (a getattr result, `self`)
/// refers to, or null for any other value.
traced::ModuleOp receiverModule(Value receiver, SymbolTableCollection &symbols);

/// The call of one of `entries` (any known entry when empty) whose single
/// result is `v`, bound; nullopt for anything else, and when `singleUse`
/// asks for a value with one reader and `v` has more.
std::optional<BoundOp> definingCall(Value v, ArrayRef<StringRef> entries = {},
                                    bool singleUse = false);

/// Replaces the conv `conv` by a conv with new weight and bias constants
/// (blob names from `hint`); returns the new call.
CallFunctionOp rebuildConv(const BoundOp &conv, const Tensor &weight,
                           const Tensor &bias, const std::string &hint);
/// The same with weight and bias values already built (constants made
/// before `conv`).
CallFunctionOp rebuildConv(const BoundOp &conv, Value weight, Value bias);

/// A traced.constant of `type` holding `blob` (the element type's own
/// width, as createTensorConstant stores it).
ConstantOp createBlobConstant(OpBuilder &builder, Location loc,
                              RankedTensorType type, StringRef nameHint,
                              AsmResourceBlob blob);


/// Runs `patterns` greedily to a fixed point, one sweep at a time, and
/// returns how many sweeps it took (the last one changes nothing); failure
/// when `maxSweeps` do not converge. Debian's LLVM compiles pass statistics
/// out, so the passes report the count in a remark when asked.
FailureOr<unsigned> applyToFixedPoint(Operation *op,
                                      const FrozenRewritePatternSet &patterns,
                                      unsigned maxSweeps = 100);

} // namespace mlir::traced

#endif // TRACEDIR_LIB_TRANSFORMS_UTILS_H
