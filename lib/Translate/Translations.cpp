//===- Translations.cpp - the trace translations' registration ------------===//
//
// `--import-trace` and `--export-trace` (JSON traces, docs/trace-format.md),
// `--traced-to-graph-text` and `--traced-to-dot`, registered by this library
// itself.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Translate/Translations.h"

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/Support/Translation.h"
#include "TracedIR/Translate/GraphDot.h"
#include "TracedIR/Translate/GraphText.h"
#include "TracedIR/Translate/JsonTrace.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::traced;

void traced::registerTraceTranslations() {
  static llvm::cl::opt<unsigned> dotDepth(
      "dot-depth",
      llvm::cl::desc("--traced-to-dot: levels of submodule calls drawn as "
                     "clusters (0: all; 1: the root graph only)"),
      llvm::cl::init(0));
  static llvm::cl::opt<bool> dotParams(
      "dot-params",
      llvm::cl::desc("--traced-to-dot: draw parameters, buffers and tensor "
                     "constants"),
      llvm::cl::init(false));
  static traced::TracedFromMLIRRegistration toDot(
      "traced-to-dot",
      "draw the root module's forward graph in Graphviz DOT, one cluster per "
      "submodule call",
      [](Operation *op, llvm::raw_ostream &os) {
        DotOptions options;
        options.depth = dotDepth;
        options.params = dotParams;
        return printGraphDot(op, options, os);
      },
      registerReaderDialects);
  static traced::TracedFromMLIRRegistration toGraphText(
      "traced-to-graph-text",
      "print traced graphs the way TracedModule prints an InternalGraph",
      [](Operation *op, llvm::raw_ostream &os) {
        return printGraphTexts(op, os);
      },
      registerReaderDialects);
  static TranslateToMLIRRegistration importTrace(
      "import-trace", "read a JSON trace (docs/trace-format.md) as traced IR",
      TranslateRawSourceMgrToMLIRFunction(
          [](llvm::SourceMgr &sourceMgr,
             MLIRContext *ctx) -> OwningOpRef<Operation *> {
            // Diagnostics name the input file, and .npy weights are found
            // next to it.
            const llvm::MemoryBuffer *input =
                sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
            StringRef fileName = input->getBufferIdentifier();
            return traced::importTrace(input->getBuffer(), fileName,
                                       llvm::sys::path::parent_path(fileName),
                                       ctx);
          }),
      registerReaderDialects);
  static llvm::cl::opt<bool> exportLocations(
      "export-locations",
      llvm::cl::desc("--export-trace: write each expr's file:line:column "
                     "location (the user's source) as its \"loc\""),
      llvm::cl::init(false));
  static traced::TracedFromMLIRRegistration exportTrace(
      "export-trace", "write traced IR as a JSON trace (docs/trace-format.md)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitOpError("expected a builtin module to export");
        return traced::exportTrace(module, os, exportLocations);
      },
      registerReaderDialects);
}
