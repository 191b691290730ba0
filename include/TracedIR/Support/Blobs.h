//===- Blobs.h - weight blobs in IR inputs ----------------------*- C++ -*-===//
//
// TracedIR's weights are dense_resource blobs. Reading them safely needs an
// input buffer at their alignment and a check of the textual resource
// section before MLIR's parser sees it; the tools, the translations and
// Python's loader all read IR through these.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_BLOBS_H
#define TRACEDIR_SUPPORT_BLOBS_H

#include "mlir/Support/LLVM.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mlir::traced {

/// The alignment of the weight blobs TracedIR writes (dense_resource), and
/// so of the buffers bytecode holding them must be read from: a bytecode
/// file's resource section is aligned like its most aligned blob.
inline constexpr uint64_t kResourceAlignment = 64;

/// `buffer` itself when it starts at TracedIR's blob alignment
/// (kResourceAlignment), else an aligned copy: bytecode holding resources
/// must be parsed from such a buffer. The tools and Python's loader read
/// their input through this.
std::unique_ptr<llvm::MemoryBuffer>
alignForBlobs(std::unique_ptr<llvm::MemoryBuffer> buffer);

/// Checks the hex blobs of a textual module's resource section
/// (`{-# dialect_resources: ... #-}`) before MLIR's parser sees them: the
/// first four bytes of a blob are its alignment, and MLIR 22 allocates
/// with it unchecked, so a blob claiming alignment 0 or 3 is undefined
/// behaviour there (found by fuzzing; docs/reliability.md). Reports the
/// first bad blob in `error` with its line. Bytecode input passes as it is.
LogicalResult checkResourceBlobs(llvm::StringRef text, std::string &error);

} // namespace mlir::traced

#endif // TRACEDIR_SUPPORT_BLOBS_H
