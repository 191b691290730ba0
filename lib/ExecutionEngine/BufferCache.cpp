//===- BufferCache.cpp - temporaries kept between calls -------------------===//

#include "TracedIR/ExecutionEngine/BufferCache.h"

#include "TracedIR/Support/DType.h"
#include "TracedIR/Support/Limits.h"

#include "llvm/ADT/SmallVector.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>
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

namespace {
/// A call of compiled code in progress on this thread
/// (callUnwindingAllocations).
struct CallContext {
  std::jmp_buf env;
  /// Blocks allocated by the call on this thread and not yet freed.
  llvm::SmallVector<void *, 8> live;
  AllocationFailure failure{0, false};
  CallContext *outer = nullptr;
};
thread_local CallContext *currentCall = nullptr;

/// libomp's nesting level of parallel regions, active or serialized (0
/// outside any); 0 when libomp is not loaded (no parallel regions).
int ompLevel() {
  using Fn = int (*)();
  static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_get_level"));
  return fn ? fn() : 0;
}

[[noreturn]] void allocationFailed(uint64_t size, bool limit) {
  CallContext *call = currentCall;
  if (call && ompLevel() == 0) {
    call->failure = {size, limit};
    std::longjmp(call->env, 1);
  }
  std::fprintf(stderr,
               "traced: compiled code could not allocate %llu bytes inside "
               "a parallel loop%s\n",
               static_cast<unsigned long long>(size),
               limit ? " (more than the limit max_tensor_bytes)" : "");
  std::abort();
}
} // namespace

void *mlir::traced::jitAlloc(uint64_t size) {
  if (size > getResourceLimits().maxTensorBytes)
    allocationFailed(size, /*limit=*/true);
  void *ptr = cachedAlloc(size);
  if (!ptr)
    allocationFailed(size, /*limit=*/false);
  if (CallContext *call = currentCall; call && ompLevel() == 0)
    call->live.push_back(ptr);
  return ptr;
}

void mlir::traced::jitFree(void *ptr) {
  if (CallContext *call = currentCall; call && ptr) {
    // (Most recent first: temporaries die in about the reverse order.)
    for (size_t k = call->live.size(); k-- > 0;)
      if (call->live[k] == ptr) {
        call->live.erase(call->live.begin() + k);
        break;
      }
  }
  cachedFree(ptr);
}

std::optional<AllocationFailure>
mlir::traced::callUnwindingAllocations(llvm::function_ref<int()> entry,
                                       int &status) {
  CallContext call;
  call.outer = currentCall;
  currentCall = &call;
  // (`call` lives in memory, reached through currentCall, so its fields
  // are what allocationFailed wrote when setjmp returns again.)
  if (setjmp(call.env) == 0) {
    status = entry();
    currentCall = call.outer;
    return std::nullopt;
  }
  currentCall = call.outer;
  for (void *ptr : call.live)
    cachedFree(ptr);
  return call.failure;
}
