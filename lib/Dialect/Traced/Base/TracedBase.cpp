//===- TracedBase.cpp - the traced dialect's types and attributes ---------===//
//
// The generated type and attribute classes, their parsers and printers, and
// their registration, which TracedDialect::initialize calls
// (TracedDialect.cpp, a layer above). Nothing here names an op.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Dialect/Traced/PyValue.h"
#include "TracedIR/Dialect/Traced/TracedBase.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::traced;

#define GET_TYPEDEF_CLASSES
#include "TracedIR/Dialect/Traced/TracedTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "TracedIR/Dialect/Traced/TracedAttrs.cpp.inc"

void TracedDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "TracedIR/Dialect/Traced/TracedTypes.cpp.inc"
      >();
}

void TracedDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TracedIR/Dialect/Traced/TracedAttrs.cpp.inc"
      >();
}
