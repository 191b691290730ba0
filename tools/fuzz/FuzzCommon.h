//===- FuzzCommon.h - What the fuzz targets share ---------------*- C++ -*-===//
//
// A context holding the traced dialect (and what it loads), with
// diagnostics dropped: a fuzz input that is refused with a diagnostic is
// the expected outcome, not a finding. Findings are crashes, sanitizer
// reports, hangs and broken invariants, which the targets turn into
// abort() through TRACED_FUZZ_CHECK.
//
// The context is rebuilt every few hundred inputs: MLIR uniques attributes
// and identifiers for the context's lifetime, so one context for a
// million inputs would grow without bound.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_TOOLS_FUZZ_FUZZCOMMON_H
#define TRACEDIR_TOOLS_FUZZ_FUZZCOMMON_H

#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

/// The sanitizer build's defaults for every fuzz target. libMLIR.so is not
/// instrumented, while the LLVM headers' BumpPtrAllocator poisons and
/// unpoisons its slabs in instrumented code only: an attribute allocated
/// by libMLIR.so in a slab our code poisoned would read as poisoned. User
/// poisoning is therefore off (ASan still checks every heap, stack and
/// global access). Leaks are not findings: contexts live across inputs.
/// (Defined here, not inline: every target includes this header from its
/// one source file, and an inline definition nobody calls is never emitted.)
extern "C" __attribute__((used)) const char *__asan_default_options() {
  return "allow_user_poisoning=0:detect_leaks=0";
}

namespace traced_fuzz {

/// Reports a broken invariant and aborts, so that libFuzzer saves the input.
#define TRACED_FUZZ_CHECK(cond, msg)                                          \
  do {                                                                         \
    if (!(cond)) {                                                             \
      llvm::errs() << "traced fuzz invariant failed: " << (msg) << " ("       \
                   << #cond << ")\n";                                          \
      std::abort();                                                            \
    }                                                                          \
  } while (false)

/// A context holding the traced dialect (every dialect when `allDialects`)
/// that drops its diagnostics (TRACED_FUZZ_VERBOSE=1 prints them).
inline std::unique_ptr<mlir::MLIRContext> makeContext(bool allDialects = false) {
  mlir::DialectRegistry registry;
  if (allDialects)
    mlir::traced::registerAllDialects(registry);
  else
    registry.insert<mlir::traced::TracedDialect>();
  auto ctx = std::make_unique<mlir::MLIRContext>(
      registry, mlir::MLIRContext::Threading::DISABLED);
  ctx->loadDialect<mlir::traced::TracedDialect>();
  if (allDialects)
    ctx->loadAllAvailableDialects();
  if (std::getenv("TRACED_FUZZ_VERBOSE") == nullptr)
    ctx->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
  return ctx;
}

/// A context shared by successive inputs, rebuilt every 256 of them. For
/// targets that compare two parses, use two fresh contexts instead: blob
/// resources are named per context (a second `dense_resource<w>` in one
/// context becomes `w_1`).
inline mlir::MLIRContext &context(bool allDialects = false) {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses % 256 == 0) {
    ctx.reset();
    ctx = makeContext(allDialects);
  }
  return *ctx;
}

/// Parses `data` as MLIR text, or as bytecode (by its magic number) when
/// `bytecode` is set, into a builtin module, from a buffer aligned for
/// TracedIR's weight blobs, as the tools read their input. Bytecode is the
/// bytecode target's, which reads untrusted bytes only in the sandbox's
/// child (docs/reliability.md, "Untrusted input"); the text targets refuse
/// an input that mutated into bytecode's magic number.
inline mlir::OwningOpRef<mlir::ModuleOp>
parse(mlir::MLIRContext &ctx, const uint8_t *data, size_t size,
      bool bytecode = false) {
  if (!bytecode && size >= 4 && std::memcmp(data, "ML\xEFR", 4) == 0)
    return nullptr;
  // The tools' own check of text resource blobs comes first, as in
  // traced-opt, traced-translate and the Python loader.
  std::string error;
  if (mlir::failed(mlir::traced::checkResourceBlobs(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          error)))
    return nullptr;
  std::unique_ptr<llvm::MemoryBuffer> buffer = mlir::traced::alignForBlobs(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz-input"));
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  mlir::ParserConfig config(&ctx);
  return mlir::parseSourceFile<mlir::ModuleOp>(sm, config);
}

/// The module's text, to compare round trips.
inline std::string print(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

} // namespace traced_fuzz

#endif // TRACEDIR_TOOLS_FUZZ_FUZZCOMMON_H
