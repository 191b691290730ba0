//===- CallBuilder.h - building op-library calls by keyword -----*- C++ -*-===//
//
// What the decompositions and the ONNX importer build calls with: an
// op-library entry (`torch.add`, or `Tensor.view` for a method), its
// arguments by keyword (traced values, Python values, or Python values
// holding traced values), and result types from the entry's result rule.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_DIALECT_TRACED_CALLBUILDER_H
#define TRACEDIR_DIALECT_TRACED_CALLBUILDER_H

#include "TracedIR/Dialect/Traced/TracedOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::traced {

/// One argument of a call being built: a traced value, a Python value, or
/// a Python value holding traced values (a list of tensors). `attr`'s
/// operand markers number `values`.
struct CallArg {
  Attribute attr;
  SmallVector<Value> values;

  /// A traced value (null: an argument whose call is not built).
  CallArg(Value v);
  CallArg(Attribute a) : attr(a) {}
  /// A list of traced values (`Tensor[]`).
  static CallArg list(MLIRContext *ctx, ArrayRef<Value> values);
};

/// A keyword argument.
using KwCallArg = std::pair<StringRef, CallArg>;

/// A call of op-library entry `target` with keyword arguments, ready to
/// build: the entry (null for an unknown target) and the call's operands
/// and attributes. A method's first argument is its receiver.
class LibraryCall {
public:
  LibraryCall(MLIRContext *ctx, StringRef target, ArrayRef<KwCallArg> args);

  /// The entry, or null for an unknown target.
  const OpSpec *spec() const { return entry; }
  /// Whether an argument is missing (a null value from an earlier failure,
  /// alone or in a list): such a call is not built.
  bool incomplete() const { return missing; }
  /// The call with result types `types`.
  Operation *build(OpBuilder &b, Location loc, TypeRange types) const;
  /// The result types the entry's rule gives (probing an untyped call);
  /// failure after its diagnostics.
  FailureOr<SmallVector<Type>> inferTypes(OpBuilder &b, Location loc,
                                          SymbolTableCollection &symbols) const;

private:
  const OpSpec *entry = nullptr;
  StringRef name;
  bool method = false, missing = false;
  Value receiver;
  SmallVector<Value> operands;
  SmallVector<Attribute> arguments;
  SmallVector<StringRef> keywords;
};

} // namespace mlir::traced

#endif // TRACEDIR_DIALECT_TRACED_CALLBUILDER_H
