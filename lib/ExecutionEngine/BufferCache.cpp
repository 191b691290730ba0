//===- BufferCache.cpp - temporaries kept between calls -------------------===//

#include "TracedIR/ExecutionEngine/BufferCache.h"

#include "TracedIR/Support/DType.h"

#include <cstdlib>
#include <mutex>
#include <map>
#include <vector>

using namespace mlir::traced;

namespace {
/// Each block starts with a 64-byte header holding its size, so that the
/// pointer handed out stays 64-byte aligned.
constexpr size_t kHeader = 64;

struct Cache {
  std::mutex mutex;
  std::map<uint64_t, std::vector<void *>> free; // capacity -> blocks
  size_t bytes = 0;
  size_t limit = physicalMemoryBytes().value_or(uint64_t(4) << 30) / 4;
};

Cache &cache() {
  // Never destroyed: compiled code may free into it during exit.
  static Cache *c = new Cache;
  return *c;
}
} // namespace

void *mlir::traced::cachedAlloc(uint64_t size) {
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    // The smallest free block that holds `size` bytes, if it is at most
    // twice that: a freed temporary serves the next one of about its size
    // within the same call (an early dealloc, traced-cpu-pipeline) as well
    // as the same one in the next call.
    for (auto it = c.free.lower_bound(size);
         it != c.free.end() && it->first / 2 <= size; ++it) {
      if (it->second.empty())
        continue;
      void *block = it->second.back();
      it->second.pop_back();
      c.bytes -= it->first;
      return static_cast<char *>(block) + kHeader;
    }
  }
  size_t total = (size + kHeader + 63) / 64 * 64;
  void *block = std::aligned_alloc(64, total);
  if (!block)
    return nullptr;
  // (The header holds the block's capacity.)
  *static_cast<uint64_t *>(block) = size;
  return static_cast<char *>(block) + kHeader;
}

void mlir::traced::cachedFree(void *ptr) {
  if (!ptr)
    return;
  void *block = static_cast<char *>(ptr) - kHeader;
  uint64_t size = *static_cast<uint64_t *>(block);
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.bytes + size <= c.limit) {
      c.free[size].push_back(block);
      c.bytes += size;
      return;
    }
  }
  std::free(block);
}

void mlir::traced::releaseCachedBuffers() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto &entry : c.free)
    for (void *block : entry.second)
      std::free(block);
  c.free.clear();
  c.bytes = 0;
}

size_t mlir::traced::cachedBytes() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.bytes;
}
