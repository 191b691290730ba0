//===- JsonTrace.h - the JSON trace interchange format ----------*- C++ -*-===//
//
// Traces recorded by other tracers (MegEngine's TracedModule, hook-based
// tools) come into the traced dialect through a JSON file, without Python:
//
//   { "format": "traced-trace", "version": 1, "root": "SimpleModule",
//     "modules": [ { "name": ..., "class": ..., "attributes": [...],
//                    "graphs": [ { "name": "forward", "inputs": [...],
//                                  "exprs": [...], "outputs": [...] } ] } ] }
//
// docs/trace-format.md describes every field. `traced-translate
// --import-trace` and `--export-trace` expose these functions.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_TRANSLATE_JSONTRACE_H
#define TRACEDIR_TRANSLATE_JSONTRACE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class MLIRContext;
namespace traced {

/// Reads the JSON trace `json` into a builtin module holding one
/// `traced.module` per module of the trace, and verifies it. Diagnostics are
/// located at `fileName`:line:column of the offending JSON element; `.npy`
/// weight files are looked up relative to `baseDir`. Returns null after
/// reporting errors.
OwningOpRef<mlir::ModuleOp> importTrace(llvm::StringRef json,
                                        llvm::StringRef fileName,
                                        llvm::StringRef baseDir,
                                        MLIRContext *ctx);

/// Writes `module` (a builtin module of `traced.module` ops) as a JSON trace,
/// weights inline as base64. Reports an error at the op concerned and writes
/// nothing when something cannot be expressed in the format. With
/// `locations`, each expr located at a file:line:column (the user's Python
/// source, as the tracer records it, inside a NameLoc of its module path)
/// carries it as `"loc"`, which the importer reads back.
LogicalResult exportTrace(mlir::ModuleOp module, llvm::raw_ostream &os,
                          bool locations = false);

} // namespace traced
} // namespace mlir

#endif // TRACEDIR_TRANSLATE_JSONTRACE_H
