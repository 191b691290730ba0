//===- Progress.h - pipeline progress on a terminal -------------*- C++ -*-===//
//
// Long pipelines (traced-opt, traced.compile, traced-translate --run) show
// which pass runs and how far they are, on one line of stderr that is
// rewritten in place and cleared at the end, when stderr is a terminal.
// Elsewhere (files, pipes, CI logs, tests) they print nothing.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_PROGRESS_H
#define TRACEDIR_SUPPORT_PROGRESS_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class PassManager;
namespace traced {

/// Whether to show progress: TRACED_PROGRESS=1 (on) or 0 (off) decides;
/// otherwise, whether stderr is a terminal.
bool progressWanted();

/// Shows, while `pm` runs, `<title> [k/N] <pass>`: the k-th of the N
/// passes `pm` runs, and the nested pass running inside it
/// (`func.func: canonicalize`). The line is cleared when `pm` is destroyed.
void addProgress(PassManager &pm, StringRef title);

/// Shows `<title> <stage>` for a step outside a pass manager (LLVM's
/// optimization and code generation); `clearProgress` removes it.
void showProgress(StringRef title, StringRef stage);
void clearProgress();

} // namespace traced
} // namespace mlir

#endif // TRACEDIR_SUPPORT_PROGRESS_H
