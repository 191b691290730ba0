//===- Onnx.h - ONNX models in and out of traced IR -------------*- C++ -*-===//
//
// `traced-translate --export-onnx` / `Module.to_onnx` and
// `traced-translate --import-onnx` / `traced.from_onnx` (docs/onnx.md).
//
// Export flattens a copy of the module (traced-flatten, traced-normalize,
// constant folding, DCE) and writes each op-library call of the root graph
// as ONNX nodes of the default domain: parameters and buffers become
// initializers, graph inputs and outputs keep their names and shapes,
// dynamic dims their names. A call with no ONNX form is an error that names
// the target and the user's source line.
//
// Import reads a ModelProto and builds a root module whose forward graph
// calls op-library entries, one or a few per ONNX node, so that the
// interpreter, the surgery passes and both compilers take it as any trace.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_ONNX_ONNX_H
#define TRACEDIR_ONNX_ONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <string>

namespace mlir::traced {

struct OnnxExportOptions {
  /// The default domain's opset: 13 to 17.
  int64_t opset = 17;
  /// When non-empty, initializers of 1 KiB or more are written to this
  /// file (the ONNX external-data format), named in the model relative to
  /// the model's directory `externalDataDir`. A model whose initializers
  /// pass protobuf's 2 GiB limit needs it.
  std::string externalDataFile;
  std::string externalDataDir;
  /// Each node's doc_string is the user's source line (file:line).
  bool locations = true;
};

/// Writes `module`'s root forward graph as an ONNX ModelProto to `os`;
/// fails after reporting errors (nothing is written then).
LogicalResult exportOnnx(mlir::ModuleOp module, llvm::raw_ostream &os,
                         const OnnxExportOptions &options = {});

/// Reads an ONNX ModelProto (`bytes`; `name` for diagnostics; external
/// data is read from `baseDir`) as traced IR; null after reporting errors.
/// `constantInputs` (graph input name -> serialized TensorProto) gives
/// inputs that the graph uses as shapes, axes or sizes a value: an input
/// that a node needs as a constant is replaced by it and leaves the
/// graph's inputs; the others stay inputs.
OwningOpRef<mlir::ModuleOp>
importOnnx(StringRef bytes, StringRef name, StringRef baseDir,
           MLIRContext *ctx,
           const std::map<std::string, std::string> &constantInputs = {});

/// The export's and import's op tables as Markdown
/// (docs/reference/onnx_ops.md).
void printOnnxOpTables(llvm::raw_ostream &os);

/// `--export-onnx` and `--import-onnx` for traced-translate; `dialects`
/// registers what the export's passes need (InitAll's registry, with the
/// constant evaluator).
void registerOnnxTranslations(
    const std::function<void(DialectRegistry &)> &dialects);

} // namespace mlir::traced

#endif // TRACEDIR_ONNX_ONNX_H
