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

/// The Python value traced value `v` has at compile time: what a
/// `traced.constant` (of a Python value, not a tensor) or a getattr of a
/// plain module attribute defines; null otherwise.
Attribute knownPyValue(Value v);

/// `slot` (a bound argument) with its operand markers replaced by the
/// known values (knownPyValue) of the operands `operandOf` gives; null when
/// one of them is not known.
Attribute resolveKnownMarkers(Attribute slot,
                              function_ref<Value(OperandAttr)> operandOf);

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
  /// The call's operand an operand marker of a slot stands for.
  Value operandOf(OperandAttr marker) const;
  /// Parameter `name`'s Python value with known operands looked through
  /// (resolveKnownMarkers); null when one is not known or it has none.
  Attribute knownValue(StringRef name) const;
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
