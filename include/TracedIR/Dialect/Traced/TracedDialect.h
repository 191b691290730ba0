//===- TracedDialect.h - the traced dialect ---------------------*- C++ -*-===//
//
// The dialect class, its types and its attributes (TracedBase.h), and the
// registration of the dialects a reader of traced files needs.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_DIALECT_TRACED_TRACEDDIALECT_H
#define TRACEDIR_DIALECT_TRACED_TRACEDDIALECT_H

#include "TracedIR/Dialect/Traced/TracedBase.h"

namespace mlir {
class DialectRegistry;
namespace traced {
void registerReaderDialects(DialectRegistry &registry);
} // namespace traced
} // namespace mlir

#endif // TRACEDIR_DIALECT_TRACED_TRACEDDIALECT_H
