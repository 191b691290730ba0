//===- InitAll.cpp - one registration point -------------------------------===//

#include "TracedIR/InitAll.h"

#include "TracedIR/Conversion/Passes.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "TracedIR/Interpreter/Kernels.h"
#include "TracedIR/OpLibrary/OpLibrary.h"
#include "TracedIR/Onnx/Onnx.h"
#include "TracedIR/Transforms/GraphRewrites.h"
#include "TracedIR/Transforms/Passes.h"
#include "TracedIR/Translate/GraphText.h"
#include "TracedIR/Translate/JsonTrace.h"
#include "TracedIR/Translate/Translations.h"

#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/ParseUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>

using namespace mlir;

void traced::registerAllDialects(DialectRegistry &registry) {
  // Everything the compilers need is everything the tools need.
  registerCompilerDialects(registry);
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
  // Each library registers its own; the op library's reference (kernels,
  // lowerings and decompositions come from three layers) is registered
  // here.
  registerTraceTranslations();
  registerInterpretTranslation();
  registerRunTranslations();
  registerGpuTranslations();
  registerOnnxTranslations(registerAllDialects);
  static traced::TracedFromMLIRRegistration opLibraryDoc(
      "traced-op-library-doc",
      "print the op library as Markdown (the input is ignored)",
      [](Operation *, llvm::raw_ostream &os) {
        std::vector<std::string> kernels;
        for (const auto &entry : getKernelTable())
          kernels.push_back(entry.getKey().str());
        // An entry's family is the same in each layer that has it.
        auto family = [](StringRef entry) {
          StringRef f = kernelFamily(entry);
          if (f.empty())
            f = loweringFamily(entry);
          if (f.empty())
            f = decompositionFamily(entry);
          return f;
        };
        printOpLibraryMarkdown(os, kernels, getLoweredTargets(),
                               getDecomposedTargets(), family);
        return success();
      },
      registerAllDialects);
}
