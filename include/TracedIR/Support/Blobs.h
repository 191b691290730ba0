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

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
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
/// first bad blob in `error` with its line. Also refuses text whose
/// brackets nest more than 256 levels deep, which would overflow the
/// parser's stack. Bytecode input passes as it is.
LogicalResult checkResourceBlobs(llvm::StringRef text, std::string &error);

/// A new mutable blob of `size` bytes at `alignment`. A blob
/// of 2 MiB or more is 2 MiB-aligned and advised to use transparent huge
/// pages (`madvise(MADV_HUGEPAGE)`; Debian's kernels default to that
/// mode): filling it then takes one page fault per 2 MiB instead of one
/// per 4 KiB. On this project's VMs a fault costs several microseconds,
/// and ResNet-18's 44 MB of weights is 11,000 of them per copy: the
/// weights are copied when traced, folded, transformed and packed, and
/// those faults were 0.4 s of the 2.6 s from model to callable.
/// The blob reports `alignment` as its alignment either way.
AsmResourceBlob allocateBlob(size_t size, size_t alignment);

/// allocateBlob holding a copy of `data`.
AsmResourceBlob copyToBlob(ArrayRef<char> data, size_t alignment);

/// The stored bytes of a statically shaped, non-splat integer or float
/// constant (a dense_resource blob or a dense attribute), in place; none
/// for a splat, a missing blob, i1 elements or a size that does not match
/// the type.
std::optional<ArrayRef<char>> storedBytes(ElementsAttr attr);

} // namespace mlir::traced

#endif // TRACEDIR_SUPPORT_BLOBS_H
