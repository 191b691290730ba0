//===- Passes.h - graph-surgery passes --------------------------*- C++ -*-===//

#ifndef TRACEDIR_TRANSFORMS_PASSES_H
#define TRACEDIR_TRANSFORMS_PASSES_H

#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/OpLibrary/Runtime.h"
#include "mlir/Pass/Pass.h"

namespace mlir::traced {

#define GEN_PASS_DECL
#include "TracedIR/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TracedIR/Transforms/Passes.h.inc"

/// Rewrites a call of a leaf module of a known class into a call of the
/// class's functional with the module's attributes (getattr for tensors,
/// inline constants for plain attributes). Fails, leaving the IR as it is,
/// for unknown classes.
FailureOr<CallFunctionOp>
makeLeafCallFunctional(CallMethodOp call, SymbolTableCollection &symbols);

/// The value of a tensor the graph reads from a constant or a parameter or
/// buffer declaration, when it has one.
FailureOr<Tensor> constantTensor(Value value, SymbolTableCollection &symbols);

/// A traced.constant holding `tensor` as a dense_resource blob.
ConstantOp createTensorConstant(OpBuilder &builder, Location loc,
                                const Tensor &tensor, StringRef nameHint);

} // namespace mlir::traced

#endif // TRACEDIR_TRANSFORMS_PASSES_H
