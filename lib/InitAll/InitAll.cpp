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

std::unique_ptr<llvm::MemoryBuffer>
traced::alignForBlobs(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  llvm::Align alignment(kResourceAlignment);
  if (llvm::isAddrAligned(alignment, buffer->getBufferStart()))
    return buffer;
  std::unique_ptr<llvm::WritableMemoryBuffer> copy =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
          buffer->getBufferSize(), buffer->getBufferIdentifier(), alignment);
  std::memcpy(copy->getBufferStart(), buffer->getBufferStart(),
              buffer->getBufferSize());
  return copy;
}

LogicalResult traced::checkResourceBlobs(llvm::StringRef text,
                                         std::string &error) {
  if (text.starts_with("ML\xEFR"))
    return success(); // bytecode
  size_t section = text.find("{-#");
  while (section != llvm::StringRef::npos) {
    size_t pos = text.find("\"0x", section);
    if (pos == llvm::StringRef::npos)
      return success();
    llvm::StringRef hex = text.drop_front(pos + 3).take_while([](char c) { return llvm::isHexDigit(c); });
    section = pos + 3 + hex.size();
    if (hex.size() < 8)
      continue; // too short for an alignment: MLIR refuses it itself
    uint32_t alignment = 0;
    for (int byte = 3; byte >= 0; --byte) {
      unsigned v = 0;
      llvm::StringRef(hex.data() + 2 * byte, 2).getAsInteger(16, v);
      alignment = (alignment << 8) | v;
    }
    if (!llvm::isPowerOf2_32(alignment)) {
      size_t line = text.take_front(pos).count('\n') + 1;
      error = ("line " + llvm::Twine(line) + ": resource blob encodes "
               "alignment " + llvm::Twine(alignment) +
               " in its first 4 bytes, which is not a power of two")
                  .str();
      return failure();
    }
  }
  return success();
}

traced::TracedFromMLIRRegistration::TracedFromMLIRRegistration(
    llvm::StringRef name, llvm::StringRef description,
    const TranslateFromMLIRFunction &function) {
  TranslateRegistration(
      name, description,
      [function](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                 llvm::raw_ostream &output, MLIRContext *context) {
        DialectRegistry registry;
        traced::registerAllDialects(registry);
        context->appendDialectRegistry(registry);
        // Bytecode's resource section must lie at its recorded alignment
        // in memory; the driver's buffer is only malloc-aligned.
        std::shared_ptr<llvm::SourceMgr> source = sourceMgr;
        const llvm::MemoryBuffer *input =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        if (isBytecode(input->getMemBufferRef())) {
          source = std::make_shared<llvm::SourceMgr>();
          source->AddNewSourceBuffer(
              alignForBlobs(llvm::MemoryBuffer::getMemBuffer(
                  input->getBuffer(), input->getBufferIdentifier(),
                  /*RequiresNullTerminator=*/false)),
              llvm::SMLoc());
        }
        std::string error;
        if (failed(checkResourceBlobs(input->getBuffer(), error))) {
          emitError(FileLineColLoc::get(context,
                                        input->getBufferIdentifier(), 0, 0))
              << error;
          return failure();
        }
        OwningOpRef<Operation *> op =
            parseSourceFileForTool(source, context, /*insertImplicitModule=*/true);
        if (!op || failed(verify(*op)))
          return failure();
        return function(op.get(), output);
      });
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
  static traced::TracedFromMLIRRegistration toGraphText(
      "traced-to-graph-text",
      "print traced graphs the way TracedModule prints an InternalGraph",
      [](Operation *op, llvm::raw_ostream &os) {
        return printGraphTexts(op, os);
      });
  static traced::TracedFromMLIRRegistration opLibraryDoc(
      "traced-op-library-doc",
      "print the op library as Markdown (the input is ignored)",
      [](Operation *, llvm::raw_ostream &os) {
        printOpLibraryMarkdown(os, getLoweredTargets(), getDecomposedTargets());
        return success();
      });
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
  static traced::TracedFromMLIRRegistration exportTrace(
      "export-trace", "write traced IR as a JSON trace (docs/trace-format.md)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitOpError("expected a builtin module to export");
        return traced::exportTrace(module, os);
      });
}
