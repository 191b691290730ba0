//===- Translation.h - reading IR inputs with weight blobs -----*- C++ -*-===//
//
// The registration of translations that read IR holding weight blobs
// (Blobs.h: an aligned input buffer, the resource section checked). Below the dialect, so that each library
// registers its own translations (the interpreter `--interpret`, the
// execution engine `--run` and the object writers, the importer
// `--import-trace`) without depending on InitAll.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_TRANSLATION_H
#define TRACEDIR_SUPPORT_TRANSLATION_H

#include "TracedIR/Support/Blobs.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include <functional>
#include <memory>

namespace mlir {
class DialectRegistry;

namespace traced {

/// mlir-translate's TranslateFromMLIRRegistration, with an input buffer
/// aligned for TracedIR's weight blobs and its resource section checked:
/// upstream's registration takes no input alignment, so bytecode holding
/// resources (`.mlirbc` saved from Python) would fail to parse. Every
/// traced translation that reads IR registers through this, from its own
/// library, with the dialects its input may hold (`dialects`).
struct TracedFromMLIRRegistration {
  TracedFromMLIRRegistration(
      llvm::StringRef name, llvm::StringRef description,
      const TranslateFromMLIRFunction &function,
      const std::function<void(DialectRegistry &)> &dialects);
};

} // namespace traced
} // namespace mlir

#endif // TRACEDIR_SUPPORT_TRANSLATION_H
