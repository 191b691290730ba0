//===- Translation.cpp - reading IR inputs with weight blobs --------------===//

#include "TracedIR/Support/Translation.h"
#include "TracedIR/Support/Untrusted.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/ParseUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>

using namespace mlir;

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

/// The deepest nesting of brackets (`{ ( [ <`) text IR may have. MLIR's
/// parser recurses once per level, so `"module {" * 10000` overflowed its
/// stack; JSON traces are capped the same way (256 levels).
static constexpr int64_t kMaxTextNesting = 256;

static LogicalResult checkNesting(llvm::StringRef text, std::string &error) {
  int64_t depth = 0;
  size_t line = 1;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      break;
    case '"': // a string: brackets in it do not count
      for (++i; i < e && text[i] != '"'; ++i) {
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++line;
      }
      break;
    case '/': // a comment to the end of the line
      if (i + 1 < e && text[i + 1] == '/')
        while (i + 1 < e && text[i + 1] != '\n')
          ++i;
      break;
    case '{':
    case '(':
    case '[':
    case '<':
      if (++depth > kMaxTextNesting) {
        error = ("line " + llvm::Twine(line) + ": brackets nest more than " +
                 llvm::Twine(kMaxTextNesting) +
                 " levels deep, beyond what the parser accepts")
                    .str();
        return failure();
      }
      break;
    case '>':
      if (i > 0 && text[i - 1] == '-')
        break; // `->`
      [[fallthrough]];
    case '}':
    case ')':
    case ']':
      depth = std::max<int64_t>(depth - 1, 0);
      break;
    default:
      break;
    }
  }
  return success();
}

LogicalResult traced::checkResourceBlobs(llvm::StringRef text,
                                         std::string &error) {
  if (text.starts_with("ML\xEFR"))
    return success(); // bytecode
  if (failed(checkNesting(text, error)))
    return failure();
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
    const TranslateFromMLIRFunction &function,
    const std::function<void(DialectRegistry &)> &dialects) {
  TranslateRegistration(
      name, description,
      [function, dialects](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                           llvm::raw_ostream &output, MLIRContext *context) {
        DialectRegistry registry;
        dialects(registry);
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
        auto parse = [&]() -> OwningOpRef<Operation *> {
          OwningOpRef<Operation *> op = parseSourceFileForTool(
              source, context, /*insertImplicitModule=*/true);
          if (!op || failed(verify(*op)))
            return nullptr;
          return op;
        };
        if (failed(checkResourceBlobs(input->getBuffer(), error))) {
          emitError(FileLineColLoc::get(context,
                                        input->getBufferIdentifier(), 0, 0))
              << error;
          return failure();
        }
        // Untrusted bytecode (Untrusted.h): the stamp, then a forked,
        // rlimited child reads it and writes the module back, and the
        // translation reads what the child wrote. The driver is
        // single-threaded here (the context's thread pool starts no thread
        // before a parallel job).
        CheckedInput checked = checkUntrustedInput(
            input->getBuffer(), SandboxPolicy::fromEnv(),
            [&](const SandboxLimits &limits) {
              return probeInFork(
                  [&](llvm::raw_ostream &out) {
                    OwningOpRef<Operation *> op = parse();
                    return op && succeeded(writeBytecodeToFile(op.get(), out));
                  },
                  input->getBufferIdentifier(), limits);
            });
        switch (checked.kind) {
        case CheckedInput::Failed:
          emitError(FileLineColLoc::get(context,
                                        input->getBufferIdentifier(), 0, 0))
              << checked.message;
          return failure();
        case CheckedInput::Refused: // the child's diagnostics
          llvm::errs() << checked.message << "\n";
          return failure();
        case CheckedInput::Rewritten:
          source = std::make_shared<llvm::SourceMgr>();
          source->AddNewSourceBuffer(std::move(checked.rewritten),
                                     llvm::SMLoc());
          break;
        case CheckedInput::Direct:
          break;
        }
        OwningOpRef<Operation *> op = parse();
        if (!op)
          return failure();
        return function(op.get(), output);
      });
}
