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
class GraphOp;
} // namespace mlir::traced

#define GET_OP_CLASSES
#include "TracedIR/Dialect/Traced/TracedOps.h.inc"

#endif // TRACEDIR_DIALECT_TRACED_TRACEDOPS_H
