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

#include <cstddef>
#include <cstdint>

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

} // namespace mlir::traced

#endif // TRACEDIR_EXECUTIONENGINE_BUFFERCACHE_H
