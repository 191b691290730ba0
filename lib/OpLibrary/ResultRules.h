//===- ResultRules.h - shape and dtype rules of the op library --*- C++ -*-===//
//
// One rule per family of targets; the table in OpTable.cpp names them.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_LIB_OPLIBRARY_RESULTRULES_H
#define TRACEDIR_LIB_OPLIBRARY_RESULTRULES_H

#include "TracedIR/OpLibrary/OpLibrary.h"
#include "llvm/ADT/StringMap.h"


namespace mlir::traced::rules {

/// The result rules by name (Rules/Common.cpp): the op table's rows name
/// their rule, and a rule needs no declaration here.
const llvm::StringMap<ResultRule> &ruleTable();

} // namespace mlir::traced::rules

namespace mlir::traced {
/// Sets OpSpec::fold on the entries Folds.cpp has a fold for.
void attachFolds(std::vector<OpSpec> &ops);
} // namespace mlir::traced

#endif // TRACEDIR_LIB_OPLIBRARY_RESULTRULES_H
