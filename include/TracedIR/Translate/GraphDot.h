//===- GraphDot.h - traced graphs as Graphviz pictures ----------*- C++ -*-===//
//
// Writes the root module's forward graph in Graphviz's DOT language. Each
// call of a traced submodule is a cluster holding the submodule's graph,
// drawn to a chosen depth: deeper calls are one box. Edges carry the shape
// and dtype of the value they move. Leaf modules (Conv2d) and function and
// method calls are boxes; parameters, buffers and tensor constants are
// drawn only on request.
//
//   traced-translate --traced-to-dot --dot-depth=1 model.mlir | dot -Tsvg
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_TRANSLATE_GRAPHDOT_H
#define TRACEDIR_TRANSLATE_GRAPHDOT_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class Operation;
namespace traced {

struct DotOptions {
  /// How many levels of traced submodule calls are drawn as clusters; the
  /// calls one level deeper are single boxes. 0: every level.
  /// 1: the root graph, its submodule calls as boxes.
  unsigned depth = 0;
  /// Draw parameter and buffer reads and tensor constants as nodes, and
  /// list a leaf module's parameters in its box.
  bool params = false;
};

/// Writes the picture of the root traced.module's forward graph of `root`
/// (a builtin module). Fails, with a diagnostic, when there is none.
LogicalResult printGraphDot(Operation *root, const DotOptions &options,
                            llvm::raw_ostream &os);

} // namespace traced
} // namespace mlir

#endif // TRACEDIR_TRANSLATE_GRAPHDOT_H
