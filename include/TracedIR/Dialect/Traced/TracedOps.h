//===- TracedOps.h - traced ops ---------------------------------*- C++ -*-===//

#ifndef TRACEDIR_DIALECT_TRACED_TRACEDOPS_H
#define TRACEDIR_DIALECT_TRACED_TRACEDOPS_H

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::traced {
struct OpSpec;
struct ModuleSpec;
class GraphOp;
class ModuleOp;
} // namespace mlir::traced

#define GET_OP_CLASSES
#include "TracedIR/Dialect/Traced/TracedOps.h.inc"

namespace mlir::traced {
/// The argument attribute naming a graph input's dynamic dims: an array of
/// one string per dim, non-empty only on `?` dims (include/TracedIR/
/// Transforms/DynamicDims.h). Dims with one name have one size at run time.
inline constexpr llvm::StringLiteral kDimNamesAttr = "traced.dim_names";

/// The result types a `traced.call_function` or `traced.call_method` means,
/// whatever its declared results: from the op library (functions, Tensor
/// methods, leaf modules) or the callee graph. Empty when they cannot be
/// known (an unknown target); failure, reported at the op, when the call is
/// invalid. Builders use it to type new calls.
FailureOr<SmallVector<Type>>
inferCallResultTypes(Operation *call, SymbolTableCollection &symbols);

/// The graph a `traced.call_method` on a module calls, or null (a leaf
/// module, an attribute, a tensor method).
GraphOp lookupCalleeGraph(Operation *call, SymbolTableCollection &symbols);

/// Puts a call of a known target into normalized form in place (every
/// argument by keyword, in signature order, defaults left out). Fails when
/// there is nothing to change or the call does not bind.
LogicalResult normalizeCallInPlace(Operation *call);

/// The op library entry a call_function or call_method resolves to (a
/// method only on a tensor receiver), or null.
const OpSpec *lookupKnownCallee(Operation *call);
/// Whether a call passes `inplace=True`.
bool passesInplaceTrue(Operation *call);

/// The value the functional's parameter `param` takes for a leaf module of
/// class `spec` where torch's module computes it rather than reading one
/// attribute, or null: _BatchNorm.forward normalizes by the batch's
/// statistics (`training=True`) whenever the module keeps no running
/// statistics (track_running_stats=False), whatever `self.training` says.
/// Every place that binds a leaf module's call asks it first.
Attribute leafBindingOverride(const ModuleSpec &spec, StringRef param,
                              ModuleOp module, SymbolTableCollection &symbols);
} // namespace mlir::traced

#endif // TRACEDIR_DIALECT_TRACED_TRACEDOPS_H
