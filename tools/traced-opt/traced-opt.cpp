//===- traced-opt.cpp - the optimizer driver for traced IR ----------------===//
//
// mlir-opt with traced's dialects and passes. Two differences from
// upstream's driver: on a terminal the pipeline shows its progress, and the
// input (file or stdin) is read into a buffer aligned for
// TracedIR's weight blobs. MlirOptMain opens its input without an
// alignment, so bytecode holding resources (a `.mlirbc` saved from Python)
// would fail to parse whenever the buffer is only malloc-aligned.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/InitAll.h"
#include "TracedIR/Support/Progress.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main(int argc, char **argv) {
  DialectRegistry registry;
  traced::registerAllDialects(registry);
  traced::registerAllPasses();
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "TracedIR optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // On a terminal, the pipeline shows its progress (Progress.h).
  if (traced::progressWanted()) {
    MlirOptMainConfig fromCL = config;
    config.setPassPipelineSetupFn([fromCL](PassManager &pm) {
      if (failed(fromCL.setupPassPipeline(pm)))
        return failure();
      traced::addProgress(pm, "traced-opt");
      return success();
    });
  }
  // These two print and exit without reading the input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(
      inputFilename, llvm::Align(traced::kResourceAlignment), &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  // Stdin comes back malloc-aligned whatever was asked for.
  input = traced::alignForBlobs(std::move(input));
  if (failed(traced::checkResourceBlobs(input->getBuffer(), error))) {
    llvm::errs() << input->getBufferIdentifier() << ": error: " << error
                 << "\n";
    return EXIT_FAILURE;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
