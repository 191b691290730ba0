//===- InitAll.cpp - one registration point -------------------------------===//

#include "TracedIR/InitAll.h"

#include "TracedIR/Conversion/Passes.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Transforms/Passes.h"
#include "TracedIR/Translate/GraphText.h"
#include "TracedIR/Translate/JsonTrace.h"

#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

void traced::registerAllDialects(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<traced::TracedDialect>();
  // Lets hoistLoopInvariantSubsets move accumulator transfers out of loops
  // (traced-cpu-tile-and-vectorize); not part of registerAllDialects.
  vector::registerSubsetOpInterfaceExternalModels(registry);
  // LLVM IR translation for every dialect that reaches it (gpu.module
  // serialization translates NVVM kernels; the JIT and object writer the
  // host side).
  registerAllToLLVMIRTranslations(registry);
}

void traced::registerAllPasses() {
  mlir::registerAllPasses();
  registerTracedPasses();
  registerTracedConversionPasses();
  registerCpuPipeline();
  registerGpuPipeline();
}

void traced::registerAllTranslations() {
  mlir::registerAllTranslations();
  registerInterpretTranslation();
  registerRunTranslations();
  registerGpuTranslations();
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
      [](DialectRegistry &registry) { traced::registerAllDialects(registry); });
  static TranslateFromMLIRRegistration exportTrace(
      "export-trace", "write traced IR as a JSON trace (docs/trace-format.md)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitOpError("expected a builtin module to export");
        return traced::exportTrace(module, os);
      },
      [](DialectRegistry &registry) { traced::registerAllDialects(registry); });
}
