//===- GraphText.h - TracedModule-style graph printing ----------*- C++ -*-===//
//
// Prints traced graphs the way MegEngine's TracedModule prints an
// InternalGraph:
//
//   SimpleModule.Graph (self, x) {
//           %2:     const_tensor = Constant(tensor<1xf32>) -> (Tensor)
//           %3:     add_out = x.__add__(other=const_tensor, alpha=1)
//           ...
//           return linear_out
//   }
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_TRANSLATE_GRAPHTEXT_H
#define TRACEDIR_TRANSLATE_GRAPHTEXT_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class Operation;
namespace traced {
class GraphOp;

/// Prints one graph.
void printGraphText(GraphOp graph, llvm::raw_ostream &os);

/// Prints every graph under `root` (a builtin module), root module first.
LogicalResult printGraphTexts(Operation *root, llvm::raw_ostream &os);

} // namespace traced
} // namespace mlir

#endif // TRACEDIR_TRANSLATE_GRAPHTEXT_H
