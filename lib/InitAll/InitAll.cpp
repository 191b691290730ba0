//===- InitAll.cpp - one registration point -------------------------------===//

#include "TracedIR/InitAll.h"

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Translate/GraphText.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

void traced::registerAllDialects(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<traced::TracedDialect>();
}

void traced::registerAllPasses() { mlir::registerAllPasses(); }

void traced::registerAllTranslations() {
  mlir::registerAllTranslations();
  static TranslateFromMLIRRegistration toGraphText(
      "traced-to-graph-text",
      "print traced graphs the way TracedModule prints an InternalGraph",
      [](Operation *op, llvm::raw_ostream &os) {
        return printGraphTexts(op, os);
      },
      [](DialectRegistry &registry) { traced::registerAllDialects(registry); });
  static TranslateFromMLIRRegistration opLibraryDoc(
      "traced-op-library-doc",
      "print the op library as Markdown (the input is ignored)",
      [](Operation *, llvm::raw_ostream &os) {
        printOpLibraryMarkdown(os);
        return success();
      },
      [](DialectRegistry &registry) { traced::registerAllDialects(registry); });
}
