//===- Blobs.cpp - allocating weight blobs --------------------------------===//

#include "TracedIR/Support/Blobs.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
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

std::optional<ArrayRef<char>> traced::storedBytes(ElementsAttr attr) {
  auto type = dyn_cast<RankedTensorType>(attr.getShapedType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  unsigned bits = type.getElementTypeBitWidth();
  if (bits % 8 != 0)
    return std::nullopt;
  ArrayRef<char> raw;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    raw = blob->getData();
  } else if (auto dense = dyn_cast<DenseElementsAttr>(attr);
             dense && !dense.isSplat()) {
    raw = dense.getRawData();
  } else {
    return std::nullopt;
  }
  if (raw.size() != static_cast<size_t>(type.getNumElements()) * (bits / 8))
    return std::nullopt;
  return raw;
}
