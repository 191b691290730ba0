//===- InitAll.h - one registration point -----------------------*- C++ -*-===//
//
// traced-opt, traced-translate and the Python bindings register dialects,
// passes and translations through these functions only, so that every tool
// sees the same world.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_INITALL_H
#define TRACEDIR_INITALL_H

#include "mlir/Support/LLVM.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

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

/// `buffer` itself when it starts at TracedIR's blob alignment
/// (kResourceAlignment), else an aligned copy: bytecode holding resources
/// must be parsed from such a buffer. The tools and Python's loader read
/// their input through this.
std::unique_ptr<llvm::MemoryBuffer>
alignForBlobs(std::unique_ptr<llvm::MemoryBuffer> buffer);

/// Checks the hex blobs of a textual module's resource section
/// (`{-# dialect_resources: ... #-}`) before MLIR's parser sees them: the
/// first four bytes of a blob are its alignment, and MLIR 22 allocates
/// with it unchecked, so a blob claiming alignment 0 or 3 is undefined
/// behaviour there (found by fuzzing; docs/reliability.md). Reports the
/// first bad blob in `error` with its line. Bytecode input passes as it is.
LogicalResult checkResourceBlobs(llvm::StringRef text, std::string &error);

/// mlir-translate's TranslateFromMLIRRegistration, with traced's dialects
/// and an input buffer aligned for TracedIR's weight blobs: upstream's
/// registration takes no input alignment, so bytecode holding resources
/// (`.mlirbc` saved from Python) would fail to parse. Every traced
/// translation that reads IR registers through this.
struct TracedFromMLIRRegistration {
  TracedFromMLIRRegistration(llvm::StringRef name, llvm::StringRef description,
                             const TranslateFromMLIRFunction &function);
};

} // namespace traced
} // namespace mlir

#endif // TRACEDIR_INITALL_H
