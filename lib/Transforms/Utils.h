//===- Utils.h - pieces the graph-surgery passes share ----------*- C++ -*-===//

#ifndef TRACEDIR_LIB_TRANSFORMS_UTILS_H
#define TRACEDIR_LIB_TRANSFORMS_UTILS_H

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Transforms/Passes.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace mlir::traced {

/// A call of a known target bound to its canonical signature.
struct BoundOp {
  const OpSpec *spec = nullptr;
  SmallVector<Attribute> slots;
  Operation *op = nullptr;

  /// The traced value bound to parameter `name` (the receiver for the
  /// first parameter of a method call), or null.
  Value value(StringRef name) const;
  /// The bound argument of parameter `name` (a Python value, or a marker).
  Attribute slot(StringRef name) const;
};

/// The traced.module a module-typed value (a getattr result, `self`)
/// refers to, or null for any other value.
traced::ModuleOp receiverModule(Value receiver, SymbolTableCollection &symbols);

/// Binds a call_function or Tensor call_method of one of the `canonical`
/// targets (any known target when `canonical` is empty); nullopt for
/// anything else.
std::optional<BoundOp> bindCall(Operation *op, ArrayRef<StringRef> canonical);

/// Replaces the conv `conv` by a conv with new weight and bias constants
/// (blob names from `hint`); returns the new call.
CallFunctionOp rebuildConv(const BoundOp &conv, const Tensor &weight,
                           const Tensor &bias, const std::string &hint);

/// Runs `patterns` greedily to a fixed point, one sweep at a time, and
/// returns how many sweeps it took (the last one changes nothing); failure
/// when `maxSweeps` do not converge. Debian's LLVM compiles pass statistics
/// out, so the passes report the count in a remark when asked.
FailureOr<unsigned> applyToFixedPoint(Operation *op,
                                      const FrozenRewritePatternSet &patterns,
                                      unsigned maxSweeps = 100);

} // namespace mlir::traced

#endif // TRACEDIR_LIB_TRANSFORMS_UTILS_H
