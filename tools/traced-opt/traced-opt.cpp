//===- traced-opt.cpp - the optimizer driver for traced IR ----------------===//
//
// mlir-opt with traced's dialects and passes. Two differences from
// upstream's driver: on a terminal the pipeline shows its progress, and the
// input (file or stdin) is read into a buffer aligned for
// TracedIR's weight blobs. MlirOptMain opens its input without an
// alignment, so bytecode holding resources (a `.mlirbc` saved from Python)
// would fail to parse whenever the buffer is only malloc-aligned.
//
// Untrusted input (docs/reliability.md, "Untrusted input"): bytecode is
// checked against its integrity stamp and read by a forked, rlimited child
// (Untrusted.h), which writes the module back for MlirOptMain, so that a
// file MLIR's reader crashes or hangs on is an error, not an abort.
// Bytecode output carries the stamp. `traced-opt --traced-probe-input` is
// the child that Python's loader spawns (it never forks itself).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/InitAll.h"
#include "TracedIR/Support/Progress.h"
#include "TracedIR/Support/Untrusted.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/ParseUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// The probe of untrusted bytecode, in the forked child: parses `input` as
/// MlirOptMain will (implicit module, verified unless the verifier is off),
/// its diagnostics on the child's standard error, and writes the module
/// back to `out` as bytecode for the parent.
static bool parseAsMlirOptMain(const llvm::MemoryBuffer &input,
                               const DialectRegistry &registry,
                               const MlirOptMainConfig &config,
                               llvm::raw_ostream &out) {
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(input.getMemBufferRef(),
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
  FallbackAsmResourceMap fallback;
  ParserConfig parserConfig(&context, config.shouldVerifyOnParsing(),
                            &fallback);
  OwningOpRef<Operation *> op = parseSourceFileForTool(
      sourceMgr, parserConfig, !config.shouldUseExplicitModule());
  return op && succeeded(writeBytecodeToFile(
                   op.get(), out, BytecodeWriterConfig(fallback)));
}

int main(int argc, char **argv) {
  DialectRegistry registry;
  traced::registerAllDialects(registry);
  // The sandbox's probe child, for Python's loader: no options of ours.
  if (argc >= 2 && llvm::StringRef(argv[1]) == traced::kProbeFlag) {
    llvm::SmallVector<llvm::StringRef> args(argv + 2, argv + argc);
    return traced::probeMain(args, registry);
  }
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
  // Bytecode is checked against its stamp and read in a sandboxed child,
  // which writes the module back; MlirOptMain reads what the child wrote,
  // never the file's bytes (Untrusted.h). traced-opt has no thread of its
  // own when it reads its input, so it forks.
  const llvm::MemoryBuffer &bytes = *input;
  traced::CheckedInput checked = traced::checkUntrustedInput(
      bytes.getBuffer(), traced::SandboxPolicy::fromEnv(),
      [&](const traced::SandboxLimits &limits) {
        return traced::probeInFork(
            [&](llvm::raw_ostream &out) {
              return parseAsMlirOptMain(bytes, registry, config, out);
            },
            bytes.getBufferIdentifier(), limits);
      });
  switch (checked.kind) {
  case traced::CheckedInput::Failed:
    llvm::errs() << bytes.getBufferIdentifier() << ": error: "
                 << checked.message << "\n";
    return EXIT_FAILURE;
  case traced::CheckedInput::Refused: // the child's diagnostics
    llvm::errs() << checked.message << "\n";
    return EXIT_FAILURE;
  case traced::CheckedInput::Rewritten:
    input = std::move(checked.rewritten);
    // One module: a split marker in its bytes would be data.
    config.splitInputFile("");
    break;
  case traced::CheckedInput::Direct:
    if (traced::hasBytecodeMagic(input->getBuffer()))
      config.splitInputFile("");
    break;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  if (!config.shouldEmitBytecode()) {
    if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
      return EXIT_FAILURE;
    output->keep();
    return EXIT_SUCCESS;
  }
  // Bytecode output carries the integrity stamp: mlir-opt's writer names
  // itself in the producer string, so its output is read back (the blobs in
  // place) and written again with the stamp, at the same bytecode version.
  std::string written;
  llvm::raw_string_ostream writer(written);
  if (failed(MlirOptMain(writer, std::move(input), registry, config)))
    return EXIT_FAILURE;
  writer.flush();
  if (config.shouldElideResourceDataFromBytecode() ||
      !traced::hasBytecodeMagic(written)) {
    output->os() << written;
  } else if (failed(traced::restampBytecode(
                 written, registry, config.shouldAllowUnregisteredDialects(),
                 output->os(), error))) {
    // (-split-input-file writes one bytecode module per chunk.)
    llvm::errs() << "traced-opt: warning: the bytecode written carries no "
                    "integrity stamp: "
                 << error << "\n";
    output->os() << written;
  }
  output->keep();
  return EXIT_SUCCESS;
}
