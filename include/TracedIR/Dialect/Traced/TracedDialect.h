//===- TracedDialect.h - the traced dialect ---------------------*- C++ -*-===//
//
// The dialect class, its types and its attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_DIALECT_TRACED_TRACEDDIALECT_H
#define TRACEDIR_DIALECT_TRACED_TRACEDDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "TracedIR/Dialect/Traced/TracedDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "TracedIR/Dialect/Traced/TracedTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TracedIR/Dialect/Traced/TracedAttrs.h.inc"

namespace mlir::traced {
/// The alignment of the weight blobs TracedIR writes (dense_resource), and
/// so of the buffers bytecode holding them must be read from: a bytecode
/// file's resource section is aligned like its most aligned blob.
inline constexpr uint64_t kResourceAlignment = 64;
} // namespace mlir::traced

#endif // TRACEDIR_DIALECT_TRACED_TRACEDDIALECT_H
