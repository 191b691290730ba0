//===- BoundOp.h - a call bound to its op-library signature -----*- C++ -*-===//
//
// A call_function or Tensor call_method of a known target, its arguments
// bound to the entry's canonical signature once: what the passes, the
// decompositions and the lowerings read calls through.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_DIALECT_TRACED_BOUNDOP_H
#define TRACEDIR_DIALECT_TRACED_BOUNDOP_H

#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/OpLibrary/OpLibrary.h"

#include <optional>

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

/// Binds a call_function or Tensor call_method of one of the `canonical`
/// targets (any known target when `canonical` is empty); nullopt for
/// anything else.
std::optional<BoundOp> bindCall(Operation *op, ArrayRef<StringRef> canonical);

/// Why the op table marks `call` (a call of a known entry) interpreter-only,
/// if it does (OpSpec::interpreterOnlyReason over the bound call).
std::optional<StringRef> interpreterOnlyReason(Operation *call);

} // namespace mlir::traced

#endif // TRACEDIR_DIALECT_TRACED_BOUNDOP_H
