//===- fuzz-bytecode.cpp - Read traced IR bytecode ------------------------===//
//
// Input: MLIR bytecode (the seeds are test/'s modules written with
// --emit-bytecode, weights as dense_resource blobs included, each with and
// without TracedIR's integrity stamp). Every input goes through the checked
// entry the tools and Python's loader use (Untrusted.h): the stamp, then a
// parse in a forked child with limits, and only then a parse here. MLIR
// 22's reader crashing or hanging in the child is the expected outcome for
// some inputs, and no finding; a crash or hang of this process is.
// A module that reads and verifies must write stamped bytecode whose stamp
// verifies and that reads back and prints the same.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"

#include "TracedIR/Support/Untrusted.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Verifier.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

/// The child's limits. Inputs are small (seeds of a few KiB) and parse in
/// milliseconds, but MLIR's reader hangs on a mutant every few hundred
/// executions: the wall clock ends such a child after half a second, where
/// a user's loader allows 10 s of CPU time. A legitimate input killed on a
/// loaded machine is only a refusal, never a finding.
static traced::SandboxLimits fuzzLimits(size_t size) {
  traced::SandboxLimits limits = traced::SandboxLimits::forInput(size);
  limits.cpuSeconds = 1;
  limits.wallSeconds = 0.5;
  return limits;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Text is the parse target's; only inputs with bytecode's magic number.
  if (size < 4 || std::memcmp(data, "ML\xEFR", 4) != 0)
    return 0;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  traced::SandboxPolicy policy; // every bytecode input, stamped or not
  traced::CheckedInput checked = traced::checkUntrustedInput(
      bytes, policy,
      [&](const traced::SandboxLimits &limits) {
        return traced::probeInFork(
            [&](llvm::raw_ostream &out) {
              std::unique_ptr<MLIRContext> ctx = traced_fuzz::makeContext();
              OwningOpRef<ModuleOp> module =
                  traced_fuzz::parse(*ctx, data, size, /*bytecode=*/true);
              return module && succeeded(verify(*module)) &&
                     succeeded(writeBytecodeToFile(*module, out));
            },
            "fuzz-input", limits);
      },
      fuzzLimits(size));
  if (std::getenv("TRACED_FUZZ_VERBOSE") && !checked.message.empty())
    llvm::errs() << checked.message << "\n";
  if (checked.kind == traced::CheckedInput::Failed) {
    TRACED_FUZZ_CHECK(!checked.message.empty(),
                      "a refused input does not say why");
    // TRACED_FUZZ_CHILD_CRASHES=1: hunt MLIR's own reader bugs, every
    // crash or hang of the child a finding.
    std::string stampError;
    TRACED_FUZZ_CHECK(!std::getenv("TRACED_FUZZ_CHILD_CRASHES") ||
                          failed(traced::checkStamp(bytes, stampError)),
                      checked.message);
    return 0;
  }
  if (checked.kind == traced::CheckedInput::Refused)
    return 0; // with the child's diagnostics (dropped by its context)
  // What the loaders parse: the child's rewrite, or (a stamp verified, a
  // policy trusting it: not this one) the input.
  llvm::StringRef parsed = checked.rewritten ? checked.rewritten->getBuffer()
                                             : bytes;
  std::unique_ptr<MLIRContext> ctx = traced_fuzz::makeContext(),
                               ctx2 = traced_fuzz::makeContext();
  OwningOpRef<ModuleOp> module = traced_fuzz::parse(
      *ctx, reinterpret_cast<const uint8_t *>(parsed.data()), parsed.size(),
      /*bytecode=*/true);
  TRACED_FUZZ_CHECK(module && succeeded(verify(*module)),
                    "what the sandboxed child wrote back does not read back");
  std::string written;
  llvm::raw_string_ostream os(written);
  TRACED_FUZZ_CHECK(succeeded(traced::writeStampedBytecode(*module, os)),
                    "a verified module does not write as bytecode");
  os.flush();
  std::string error;
  FailureOr<traced::Stamp> stamp = traced::checkStamp(written, error);
  TRACED_FUZZ_CHECK(succeeded(stamp) && *stamp == traced::Stamp::Verified,
                    "written bytecode does not verify its own stamp");
  OwningOpRef<ModuleOp> again = traced_fuzz::parse(
      *ctx2, reinterpret_cast<const uint8_t *>(written.data()),
      written.size(), /*bytecode=*/true);
  TRACED_FUZZ_CHECK(again, "written bytecode does not read back");
  TRACED_FUZZ_CHECK(traced_fuzz::print(*again) == traced_fuzz::print(*module),
                    "bytecode round trip changes the module");
  return 0;
}
