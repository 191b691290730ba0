//===- Runtime.cpp - PyTorch's dtype and shape semantics ------------------===//

#include "TracedIR/OpLibrary/Runtime.h"

#include "TracedIR/Dialect/Traced/TracedBase.h"
#include "TracedIR/OpLibrary/OpLibrary.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::traced;

Storage traced::storageOf(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::F16:
  case DType::BF16:
    return Storage::Float;
  case DType::F64:
    return Storage::Double;
  case DType::Bool:
    return Storage::Bool;
  default:
    return Storage::Int;
  }
}

DType traced::storageDType(DType dtype) {
  switch (storageOf(dtype)) {
  case Storage::Float:
    return DType::F32;
  case Storage::Double:
    return DType::F64;
  case Storage::Int:
    return DType::I64;
  case Storage::Bool:
    return DType::Bool;
  }
  return DType::F32;
}

bool traced::isFloatingPoint(DType dtype) {
  Storage s = storageOf(dtype);
  return s == Storage::Float || s == Storage::Double;
}

static int rankOf(DType d) {
  // Category first (bool < int < float), then width.
  switch (d) {
  case DType::Bool:
    return 0;
  case DType::U8:
    return 10;
  case DType::I8:
    return 11;
  case DType::I16:
    return 12;
  case DType::I32:
    return 13;
  case DType::I64:
    return 14;
  case DType::F16:
    return 20;
  case DType::BF16:
    return 21;
  case DType::F32:
    return 22;
  case DType::F64:
    return 23;
  }
  return 0;
}

StringRef traced::torchTypeName(DType d) {
  switch (d) {
  case DType::F32: return "Float";
  case DType::F64: return "Double";
  case DType::F16: return "Half";
  case DType::BF16: return "BFloat16";
  case DType::I64: return "Long";
  case DType::I32: return "Int";
  case DType::I16: return "Short";
  case DType::I8: return "Char";
  case DType::U8: return "Byte";
  case DType::Bool: return "Bool";
  }
  llvm_unreachable("unknown dtype");
}

std::optional<std::string>
traced::viewDTypeShape(DType from, DType to, ArrayRef<int64_t> shape,
                       SmallVectorImpl<int64_t> &out) {
  out.assign(shape.begin(), shape.end());
  int64_t a = rawElementBytes(from), b = rawElementBytes(to);
  if (a == b)
    return std::nullopt;
  std::string what = ("to view " + torchTypeName(from) + " as " +
                      torchTypeName(to) + " (different element sizes)")
                         .str();
  if (out.empty())
    return "self.dim() cannot be 0 " + what;
  int64_t &last = out.back();
  if (ShapedType::isDynamic(last))
    return std::nullopt;
  if (a > b) {
    last *= a / b;
  } else {
    if (last % (b / a))
      return "self.size(-1) must be divisible by " + std::to_string(b / a) +
             " " + what + ", but got " + std::to_string(last);
    last /= b / a;
  }
  return std::nullopt;
}

DType traced::promoteDTypes(DType a, DType b) {
  if (a == b)
    return a;
  if ((a == DType::F16 && b == DType::BF16) ||
      (a == DType::BF16 && b == DType::F16))
    return DType::F32;
  if ((a == DType::U8 && b == DType::I8) || (a == DType::I8 && b == DType::U8))
    return DType::I16;
  return rankOf(a) > rankOf(b) ? a : b;
}

static bool isFloatCategory(DType d) { return isFloatingPoint(d); }

// torch's combine_categories: a lower-priority dtype counts only when its
// category is higher (float over int, int over bool).
static std::optional<DType> combineCategories(std::optional<DType> higher,
                                              std::optional<DType> lower) {
  if (!higher)
    return lower;
  if (!lower)
    return higher;
  if (isFloatCategory(*higher))
    return higher;
  if (*higher == DType::Bool || isFloatCategory(*lower))
    return promoteDTypes(*higher, *lower);
  return higher;
}

DType traced::resultType(ArrayRef<PromotionOperand> operands) {
  std::optional<DType> dims, zeroDim, scalars;
  for (const PromotionOperand &o : operands) {
    std::optional<DType> *slot = o.priority == PromotionPriority::Tensor
                                     ? &dims
                                 : o.priority == PromotionPriority::ZeroDim
                                     ? &zeroDim
                                     : &scalars;
    DType d = o.dtype;
    // A Python float counts as the default float dtype.
    if (o.priority == PromotionPriority::Scalar && isFloatingPoint(d))
      d = kDefaultFloat;
    *slot = *slot ? promoteDTypes(**slot, d) : d;
  }
  std::optional<DType> r =
      combineCategories(dims, combineCategories(zeroDim, scalars));
  return r ? *r : kDefaultFloat;
}

DType traced::toFloatingDType(DType dtype) {
  return isFloatingPoint(dtype) ? dtype : kDefaultFloat;
}

int64_t traced::floatToInt(double v, DType dtype) {
  // x86's truncating conversions, which torch's C casts compile to: int64
  // converts directly, narrower types through int32; NaN and out-of-range
  // values give the "integer indefinite" (the minimum) of that width.
  if (dtype == DType::I64) {
    if (!(v >= -0x1p63 && v < 0x1p63))
      return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(v);
  }
  if (dtype == DType::Bool)
    return v != 0;
  if (!(v >= -0x1p31 && v < 0x1p31))
    return wrapToDType(std::numeric_limits<int32_t>::min(), dtype);
  return wrapToDType(static_cast<int32_t>(v), dtype);
}

int64_t traced::wrapToDType(int64_t v, DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return v != 0;
  case DType::U8:
    return static_cast<uint8_t>(v);
  case DType::I8:
    return static_cast<int8_t>(v);
  case DType::I16:
    return static_cast<int16_t>(v);
  case DType::I32:
    return static_cast<int32_t>(v);
  default:
    return v;
  }
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::optional<TrilinearShapes>
traced::trilinearShapes(std::array<ArrayRef<int64_t>, 3> shapes,
                        std::array<ArrayRef<int64_t>, 3> expands,
                        ArrayRef<int64_t> sumdim, int64_t unrollDim,
                        std::string &error) {
  TrilinearShapes r;
  r.total = static_cast<int64_t>(shapes[0].size() + expands[0].size());
  auto wrap = [&](int64_t d) -> std::optional<int64_t> {
    int64_t n = d < 0 ? d + r.total : d;
    if (n < 0 || n >= r.total) {
      error = "dimension " + std::to_string(d) + " is out of range for " +
              std::to_string(r.total) + " dims";
      return std::nullopt;
    }
    return n;
  };
  llvm::SmallBitVector i3Expanded(r.total), allExpanded(r.total, true);
  for (int k = 0; k < 3; ++k) {
    if (static_cast<int64_t>(shapes[k].size() + expands[k].size()) != r.total) {
      error = "the inputs' ranks and their expanded dims do not add up to "
              "the same number of dims";
      return std::nullopt;
    }
    llvm::SmallBitVector expanded(r.total);
    for (int64_t d : expands[k]) {
      std::optional<int64_t> n = wrap(d);
      if (!n)
        return std::nullopt;
      expanded.set(*n);
    }
    if (k == 2)
      i3Expanded = expanded;
    allExpanded &= expanded;
    size_t next = 0;
    for (int64_t d = 0; d < r.total; ++d)
      r.unsqueezed[k].push_back(expanded.test(d) || next >= shapes[k].size()
                                    ? 1
                                    : shapes[k][next++]);
    if (next != shapes[k].size()) {
      error = "an input lists a dim to expand twice";
      return std::nullopt;
    }
  }
  if (unrollDim < 0 || unrollDim >= std::max<int64_t>(r.total, 0) ||
      r.total == 0) {
    error = "unroll_dim must be in [0," + std::to_string(r.total - 1) + "]";
    return std::nullopt;
  }
  for (int64_t d = 0; d < r.total; ++d) {
    int64_t size = 1;
    for (int k = 0; k < 3; ++k) {
      int64_t s = r.unsqueezed[k][d];
      if (s == 1)
        continue;
      if (size != 1 && s != size) {
        error = "the inputs' sizes differ in dim " + std::to_string(d);
        return std::nullopt;
      }
      size = s;
    }
    r.product.push_back(size);
  }
  llvm::SmallBitVector summed(r.total);
  for (int64_t d : sumdim) {
    std::optional<int64_t> n = wrap(d);
    if (!n)
      return std::nullopt;
    summed.set(*n);
  }
  for (int64_t d = 0; d < r.total; ++d) {
    // (torch sizes a dim every input expands as 0.)
    if (summed.test(d))
      r.sumdims.push_back(d);
    else
      r.result.push_back(allExpanded.test(d) ? 0 : r.product[d]);
    // (Where i3 is expanded, torch sums in its first step.)
    if (summed.test(d) && d != unrollDim)
      (i3Expanded.test(d) ? r.sums12 : r.sums23).push_back(d);
  }
  r.sumsUnroll = summed.test(unrollDim);
  return r;
}

std::optional<DType> traced::trilinearDTypes(DType i1, DType i2, DType i3,
                                             const TrilinearShapes &shapes,
                                             DType &first, DType &product,
                                             std::string &error) {
  auto refuse = [&](DType want, DType got) -> std::optional<DType> {
    error = "expected scalar type " + dtypeName(want).str() +
            " but found " + dtypeName(got).str();
    return std::nullopt;
  };
  bool sum12 = !shapes.sums12.empty(), sum23 = !shapes.sums23.empty();
  if (sum12 && i1 != i2)
    return refuse(i1, i2);
  first = sum12 ? i1 : promoteDTypes(i1, i2);
  if (sum23 && first != i3)
    return refuse(first, i3);
  product = sum23 ? first : promoteDTypes(first, i3);
  if ((isFloatingPoint(product) && !isFloatingPoint(i1)) ||
      (i1 == DType::Bool && product != DType::Bool)) {
    error = "result type " + dtypeName(product).str() +
            " can't be cast to the desired output type " +
            dtypeName(i1).str();
    return std::nullopt;
  }
  return i1;
}

std::optional<SmallVector<int64_t>>
traced::primsSqueezeShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims,
                          std::string &error) {
  int64_t rank = static_cast<int64_t>(shape.size());
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      error = "dimension " + std::to_string(d) + " is out of range for rank " +
              std::to_string(rank);
      return std::nullopt;
    }
    if (shape[d] != 1) {
      error = "dimension " + std::to_string(d) + " has size " +
              std::to_string(shape[d]) + ", not 1";
      return std::nullopt;
    }
  }
  SmallVector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      out.push_back(shape[d]);
  return out;
}

std::optional<SmallVector<int64_t>>
traced::primsSplitDimShape(ArrayRef<int64_t> shape, int64_t dim, int64_t outer,
                           std::string &error) {
  int64_t rank = static_cast<int64_t>(shape.size());
  if (dim < 0 || dim >= rank) {
    error = "dimension " + std::to_string(dim) + " is out of range for rank " +
            std::to_string(rank);
    return std::nullopt;
  }
  if (outer <= 0 || shape[dim] % outer != 0) {
    error = "attempting to split dimension of length " +
            std::to_string(shape[dim]) + ", but outer length of " +
            std::to_string(outer) + " divides it with a remainder";
    return std::nullopt;
  }
  SmallVector<int64_t> out(shape.take_front(dim));
  out.push_back(outer);
  out.push_back(shape[dim] / outer);
  llvm::append_range(out, shape.drop_front(dim + 1));
  return out;
}

SmallVector<int64_t> traced::atleastShape(ArrayRef<int64_t> shape,
                                          int64_t rank) {
  if (static_cast<int64_t>(shape.size()) >= rank)
    return SmallVector<int64_t>(shape);
  if (shape.empty())
    return SmallVector<int64_t>(rank, 1);
  if (shape.size() == 1)
    return rank == 2 ? SmallVector<int64_t>{1, shape[0]}
                     : SmallVector<int64_t>{1, shape[0], 1};
  return {shape[0], shape[1], 1};
}

SmallVector<int64_t> traced::stackPieceShape(ArrayRef<int64_t> shape,
                                             StackKind kind) {
  switch (kind) {
  case StackKind::H:
    return atleastShape(shape, 1);
  case StackKind::V:
    return atleastShape(shape, 2);
  case StackKind::D:
    return atleastShape(shape, 3);
  case StackKind::Column:
    if (shape.size() >= 2)
      return SmallVector<int64_t>(shape);
    return {shape.empty() ? 1 : shape[0], 1};
  }
  llvm_unreachable("unknown StackKind");
}

int64_t traced::stackDim(StackKind kind, int64_t pieceRank) {
  switch (kind) {
  case StackKind::H:
    return pieceRank == 1 ? 0 : 1;
  case StackKind::V:
    return 0;
  case StackKind::D:
    return 2;
  case StackKind::Column:
    return 1;
  }
  llvm_unreachable("unknown StackKind");
}

FailureOr<SmallVector<int64_t>> traced::broadcastShape(ArrayRef<int64_t> a,
                                                       ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == 1)
      out[i] = db;
    else if (db == 1)
      out[i] = da;
    else if (ShapedType::isDynamic(da) || ShapedType::isDynamic(db))
      out[i] = ShapedType::isDynamic(da) ? db : da;
    else if (da == db)
      out[i] = da;
    else
      return failure();
  }
  return out;
}
