//===- Runtime.h - PyTorch's dtype and shape semantics ----------*- C++ -*-===//
//
// What every layer that computes like torch shares: how each dtype is
// stored, type promotion (torch.result_type), conversions between dtypes,
// and the shape formulas of a few ATen ops (broadcasting, _trilinear, the
// prims). The interpreter's values (Tensor, RtValue, KernelArgs) are a layer
// above, in TracedIR/Interpreter/Value.h.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_OPLIBRARY_RUNTIME_H
#define TRACEDIR_OPLIBRARY_RUNTIME_H

#include <array>
#include <optional>
#include <string>
#include "TracedIR/Support/DType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace mlir::traced {
struct Signature;

/// How a dtype is stored: float, double, int64_t or uint8_t.
enum class Storage { Float, Double, Int, Bool };

Storage storageOf(DType dtype);
/// The dtype whose raw elements are laid out like `dtype`'s storage
/// (float32, float64, int64 or bool), as arrays of it are handed out.
DType storageDType(DType dtype);
bool isFloatingPoint(DType dtype);
/// PyTorch's promotion of two tensor dtypes (torch.promote_types).
DType promoteDTypes(DType a, DType b);
/// torch's name of a dtype in its messages: "Float", "Char", "Bool".
llvm::StringRef torchTypeName(DType dtype);
/// The shape of `x.view(to)` for x of dtype `from` and shape `shape` (the
/// same bytes: a different element size scales the last dim), or torch's
/// error. Dynamic dims stay dynamic.
std::optional<std::string> viewDTypeShape(DType from, DType to,
                                          llvm::ArrayRef<int64_t> shape,
                                          llvm::SmallVectorImpl<int64_t> &out);

/// How an operand takes part in PyTorch's type promotion
/// (torch.result_type): tensors with dimensions first, then 0-d tensors,
/// then Python numbers. A lower priority changes the result only when its
/// category (bool < integer < floating) is higher.
enum class PromotionPriority { Tensor, ZeroDim, Scalar };
struct PromotionOperand {
  /// A Python number's dtype is Bool, I64 or F64 by its type.
  DType dtype;
  PromotionPriority priority;
};
/// The default floating dtype (torch.get_default_dtype()).
constexpr DType kDefaultFloat = DType::F32;
/// torch.result_type over `operands` (at least one).
DType resultType(llvm::ArrayRef<PromotionOperand> operands);
/// The dtype of float-only ops (sqrt, exp, sigmoid, true division): floating
/// dtypes stay, bool and integers become the default float.
DType toFloatingDType(DType dtype);
/// Whether `dtype` is bool or an integer type.
inline bool isIntegral(DType dtype, bool includeBool = true) {
  return dtype == DType::Bool ? includeBool
                              : storageOf(dtype) == Storage::Int;
}
/// Wraps an int64 into the range of the integer dtype `dtype` (two's
/// complement, as a C cast to the narrower type does); bool becomes 0/1.
int64_t wrapToDType(int64_t value, DType dtype);
/// A floating value converted to the integer dtype `dtype` as torch does on
/// x86 (truncation; NaN and out-of-range values as the hardware gives them).
int64_t floatToInt(double value, DType dtype);

/// aten::_trilinear's shapes: each input unsqueezed at its `expand` dims
/// (ascending) to `total` dims, and the product's shape before the sum over
/// `sumdim`; nullopt with `error` set when torch refuses them (the ranks do
/// not add up, a dim is out of range, sizes differ where no input was
/// expanded).
struct TrilinearShapes {
  int64_t total = 0;
  std::array<llvm::SmallVector<int64_t>, 3> unsqueezed;
  llvm::SmallVector<int64_t> product; // before the sum
  llvm::SmallVector<int64_t> sumdims; // normalized, ascending
  /// (A dim that all three inputs expand is 0 here, as torch sizes it.)
  llvm::SmallVector<int64_t> result;
  /// torch's steps: i1 * i2 summed over `sums12` (the summed dims, but
  /// unroll_dim, where i3 is expanded), times i3 summed over `sums23` (the
  /// others), then over unroll_dim when it is summed (`sumsUnroll`). A
  /// step that sums is a batched product, which takes one dtype.
  llvm::SmallVector<int64_t> sums12, sums23;
  bool sumsUnroll = false;
};

/// The dtypes of aten::_trilinear's steps, as torch 1.13 computes it: the
/// product i1 * i2 (`first`; promoted, or i1's dtype, which i2 must share,
/// when it sums), times i3 (`product`; likewise), added into a result of
/// i1's dtype (returned), which the product must cast to. nullopt with
/// `error` set when torch refuses.
std::optional<DType> trilinearDTypes(DType i1, DType i2, DType i3,
                                     const TrilinearShapes &shapes,
                                     DType &first, DType &product,
                                     std::string &error);
std::optional<TrilinearShapes>
trilinearShapes(std::array<llvm::ArrayRef<int64_t>, 3> shapes,
                std::array<llvm::ArrayRef<int64_t>, 3> expands,
                llvm::ArrayRef<int64_t> sumdim, int64_t unrollDim,
                std::string &error);

/// prims.squeeze's shape: `shape` without `dims` (each in range, of size
/// 1); nullopt with `error` set otherwise.
std::optional<llvm::SmallVector<int64_t>>
primsSqueezeShape(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> dims,
                  std::string &error);
/// prims.split_dim's shape: dim `dim` (in range) of `shape` split into
/// [outer, size / outer]; nullopt with `error` set when outer does not
/// divide it.
std::optional<llvm::SmallVector<int64_t>>
primsSplitDimShape(llvm::ArrayRef<int64_t> shape, int64_t dim, int64_t outer,
                   std::string &error);

/// torch.atleast_{1,2,3}d's shape for `rank`: a 0-d input becomes all
/// ones; a 1-D [n] becomes [1, n] (2-D) or [1, n, 1] (3-D); a 2-D [m, n]
/// becomes [m, n, 1] (3-D); others stay.
llvm::SmallVector<int64_t> atleastShape(llvm::ArrayRef<int64_t> shape,
                                        int64_t rank);

/// hstack, vstack (row_stack), dstack and column_stack: each tensor takes
/// the shape stackPieceShape gives it, then they are concatenated along
/// stackDim.
enum class StackKind { H, V, D, Column };
/// atleast_1d (hstack), atleast_2d (vstack), atleast_3d (dstack); for
/// column_stack, a 0-d or 1-D tensor as a column.
llvm::SmallVector<int64_t> stackPieceShape(llvm::ArrayRef<int64_t> shape,
                                           StackKind kind);
/// The dim the pieces join along (hstack's: 0 for 1-D pieces, else 1).
int64_t stackDim(StackKind kind, int64_t pieceRank);

/// The broadcast shape of two shapes, or failure; a dynamic size
/// (ShapedType::kDynamic) broadcasts with anything.
FailureOr<llvm::SmallVector<int64_t>> broadcastShape(llvm::ArrayRef<int64_t> a,
                                                     llvm::ArrayRef<int64_t> b);
} // namespace mlir::traced

#endif // TRACEDIR_OPLIBRARY_RUNTIME_H
