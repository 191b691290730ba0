//===- Translations.cpp - the trace translations' registration ------------===//
//
// `--import-trace` and `--export-trace` (JSON traces, docs/trace-format.md)
// and `--traced-to-graph-text`, registered by this library itself.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Translate/Translations.h"

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/Support/Translation.h"
#include "TracedIR/Translate/GraphText.h"
#include "TracedIR/Translate/JsonTrace.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::traced;

void traced::registerTraceTranslations() {
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
  static traced::TracedFromMLIRRegistration exportTrace(
      "export-trace", "write traced IR as a JSON trace (docs/trace-format.md)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitOpError("expected a builtin module to export");
        return traced::exportTrace(module, os);
      },
      registerReaderDialects);
}
