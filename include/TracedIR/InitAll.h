//===- InitAll.h - one registration point -----------------------*- C++ -*-===//
//
// traced-opt, traced-translate and the Python bindings register dialects,
// passes and translations through these functions only, so that every tool
// sees the same world.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_INITALL_H
#define TRACEDIR_INITALL_H

#include "TracedIR/Support/Translation.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class DialectRegistry;

namespace traced {

/// The traced dialect plus every upstream dialect and dialect extension.
void registerAllDialects(DialectRegistry &registry);

/// Upstream passes and pipelines plus traced's.
void registerAllPasses();

/// Upstream translations plus traced's: `--traced-to-graph-text`,
/// `--traced-op-library-doc`, `--import-trace`, `--export-trace` and
/// `--interpret`.
void registerAllTranslations();

} // namespace traced
} // namespace mlir

#endif // TRACEDIR_INITALL_H
