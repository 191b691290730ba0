//===- BufferCache.h - temporaries kept between calls -----------*- C++ -*-===//
//
// Compiled code allocates its temporaries through
// `_mlir_memref_to_llvm_alloc(size)` and `_mlir_memref_to_llvm_free(ptr)`
// (finalize-memref-to-llvm{use-generic-functions}). The JIT binds them to
// this cache: a freed block is kept for the next allocation it can hold
// that is at least half its size, so a model's temporaries (static shapes:
// the same sizes every call) are not returned to the kernel and
// page-faulted in again on every call, and a temporary freed early in a
// call serves a later one of about its size. Object files get weak definitions that call
// malloc and free (writeCpuObject); `traced.save_library` links strong
// ones that cache like this one (python/traced/runtime/traced_buffers.c).
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_EXECUTIONENGINE_BUFFERCACHE_H
#define TRACEDIR_EXECUTIONENGINE_BUFFERCACHE_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace mlir::traced {

/// An allocation of `size` bytes, 64-byte aligned: the smallest free block
/// of the cache that holds it when that is at most twice `size`.
void *cachedAlloc(uint64_t size);
/// Returns a block from `cachedAlloc` to the cache (or to the system when
/// the cache holds more than its limit, a quarter of physical memory).
void cachedFree(void *ptr);
/// Frees every block the cache holds (a compiled module is destroyed).
void releaseCachedBuffers();
/// Bytes the cache holds now.
size_t cachedBytes();

/// An allocation compiled code asked for and could not get.
struct AllocationFailure {
  uint64_t bytes;
  /// Refused by the max_tensor_bytes limit (Support/Limits.h), not by the
  /// system.
  bool limit;
};

/// The JIT's `_mlir_memref_to_llvm_alloc` and `_mlir_memref_to_llvm_free`:
/// the cache, with allocation failures handled. Inside
/// `callUnwindingAllocations` and outside any OpenMP parallel region (the
/// allocations of a function's body, temporaries and arena alike), a
/// request that fails, or that exceeds max_tensor_bytes, returns to that
/// call instead of handing compiled code a null pointer. Elsewhere (a
/// parallel loop's per-thread patches, a few KiB each) it ends the process
/// with a message: returning from one thread of a parallel region would
/// leave the others waiting at its barrier.
void *jitAlloc(uint64_t size);
void jitFree(void *ptr);

/// Calls `entry` (compiled code's entry point) and returns its status in
/// `status`; or, when an allocation in it failed, the failure, after
/// returning the blocks the call had allocated on this thread and not
/// freed. The frames left are compiled code's, which own nothing else.
std::optional<AllocationFailure>
callUnwindingAllocations(llvm::function_ref<int()> entry, int &status);

} // namespace mlir::traced

#endif // TRACEDIR_EXECUTIONENGINE_BUFFERCACHE_H
