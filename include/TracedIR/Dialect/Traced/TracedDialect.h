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

namespace mlir {
class DialectRegistry;
namespace traced {
/// The traced dialect and every upstream one: what the translations that
/// read traced IR register, so that an input holding other ops parses and
/// they can say what they cannot do with it.
void registerReaderDialects(DialectRegistry &registry);
} // namespace traced
} // namespace mlir

// kResourceAlignment, the weight blobs' alignment, is in
// TracedIR/Support/Blobs.h.
#include "TracedIR/Support/Blobs.h"

#endif // TRACEDIR_DIALECT_TRACED_TRACEDDIALECT_H
