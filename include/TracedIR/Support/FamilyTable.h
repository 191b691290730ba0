//===- FamilyTable.h - op-library entries by family -------------*- C++ -*-===//
//
// The kernels, the lowerings and the decompositions of the op-library
// entries are each registered by name in one file per op family (the same
// families in every layer: Elementwise, Factory, Linalg, Loss, Norm, Quantized,
// Pool, Reduce, Shape, Index, Sort, Backward). A layer gathers its family
// files' tables into one, remembering which family registered each entry,
// so that the families can be compared across layers
// (python/tests/test_op_families.py).
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_FAMILYTABLE_H
#define TRACEDIR_SUPPORT_FAMILYTABLE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::traced {

/// Implementations `Fn` by entry, and the family that registered each.
template <typename Fn> struct FamilyTable {
  llvm::StringMap<Fn> table;
  llvm::StringMap<llvm::StringRef> family;

  /// Adds the entries `populate` (family `name`'s file) registers.
  void add(llvm::StringRef name, void (*populate)(llvm::StringMap<Fn> &)) {
    llvm::StringMap<Fn> t;
    populate(t);
    for (auto &entry : t) {
      table[entry.getKey()] = entry.getValue();
      family[entry.getKey()] = name;
    }
  }
};

} // namespace mlir::traced

#endif // TRACEDIR_SUPPORT_FAMILYTABLE_H
