//===- Blobs.cpp - allocating weight blobs --------------------------------===//

#include "TracedIR/Support/Blobs.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemAlloc.h"

#include <algorithm>
#include <cstring>
#include <sys/mman.h>

using namespace mlir;

/// The size of a transparent huge page on x86-64 and AArch64 (4 KiB base
/// pages).
static constexpr size_t kHugePage = size_t(2) << 20;

AsmResourceBlob traced::allocateBlob(size_t size, size_t alignment) {
  if (size < kHugePage)
    return HeapAsmResourceBlob::allocate(size, alignment);
  void *data = llvm::allocate_buffer(size, kHugePage);
#ifdef MADV_HUGEPAGE
  // Advice only: where THP is off, the pages stay 4 KiB. (madvise takes
  // whole pages: the last one may be shared with a neighbour, which gets
  // the same advice.)
  (void)::madvise(data, llvm::alignTo(size, 4096), MADV_HUGEPAGE);
#endif
  return AsmResourceBlob(
      ArrayRef<char>(static_cast<char *>(data), size), alignment,
      [](void *p, size_t n, size_t) { llvm::deallocate_buffer(p, n, kHugePage); },
      /*dataIsMutable=*/true);
}

AsmResourceBlob traced::copyToBlob(ArrayRef<char> data, size_t alignment) {
  AsmResourceBlob blob = allocateBlob(data.size(), alignment);
  if (!data.empty())
    std::memcpy(blob.getMutableData().data(), data.data(), data.size());
  return blob;
}
