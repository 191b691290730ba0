//===- TracedBase.h - the traced dialect's types and attributes -*- C++ -*-===//
//
// The lowest layer of the dialect (docs/overview.md, "Layers"): the dialect
// class's declaration, its types and its attributes, which the op library
// speaks in. Their definitions are in lib/Dialect/Traced/TracedBase.cpp
// (library TracedBase); the ops, the verifier and the dialect's
// initialization are a layer above the op library (TracedDialect.h,
// TracedOps.h). As StableHLO keeps its Base.h below its ops.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_DIALECT_TRACED_TRACEDBASE_H
#define TRACEDIR_DIALECT_TRACED_TRACEDBASE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Dialect.h"

#include "TracedIR/Dialect/Traced/TracedDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "TracedIR/Dialect/Traced/TracedTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TracedIR/Dialect/Traced/TracedAttrs.h.inc"

#include "TracedIR/Support/Blobs.h"

#endif // TRACEDIR_DIALECT_TRACED_TRACEDBASE_H
