//===- ExpandCopies.cpp - traced-cpu-expand-copies ------------------------===//
//
// After bufferization: strided memref.copy (what one-shot-bufferize leaves
// for slices) becomes vector transfers: one for a small row-contiguous
// tile, a loop nest of row vectors for a larger copy with contiguous rows;
// anything else becomes linalg.copy, which lowers to loops instead of a
// runtime library call.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"
#include "Threads.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDCPUEXPANDCOPIES
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
struct ExpandCopiesPass
    : traced::impl::TracedCpuExpandCopiesBase<ExpandCopiesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) {
      auto src = cast<MemRefType>(op.getSource().getType());
      auto dst = cast<MemRefType>(op.getTarget().getType());
      if (!src.getLayout().isIdentity() || !dst.getLayout().isIdentity())
        copies.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp op : copies) {
      rewriter.setInsertionPoint(op);
      auto src = cast<MemRefType>(op.getSource().getType());
      auto dst = cast<MemRefType>(op.getTarget().getType());
      // A small static tile whose rows are contiguous on both sides (the
      // vector tiles that canonicalization turned back into slice copies)
      // is one vector read and one vector write (n-D, unrolled to rows
      // later); anything else becomes a loop nest.
      // (Not for 16-bit floats: LLVM's x86 backend cannot legalize loads
      // and stores of odd-sized bfloat vectors, "Do not know how to soft
      // promote this operator's operand": a fuzz-diff finding, a roll of a
      // 3x4 bfloat16 tensor.)
      if (vectorTiles && isSmallRowContiguous(src) &&
          isSmallRowContiguous(dst) && vectorElement(src.getElementType())) {
        Location loc = op.getLoc();
        auto vectorType = VectorType::get(src.getShape(), src.getElementType());
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        SmallVector<Value> indices(src.getRank(), zero);
        SmallVector<bool> inBounds(src.getRank(), true);
        Value tile = vector::TransferReadOp::create(
            rewriter, loc, vectorType, op.getSource(), indices,
            /*padding=*/std::nullopt, inBounds);
        vector::TransferWriteOp::create(rewriter, loc, tile, op.getTarget(),
                                        indices, inBounds);
        rewriter.eraseOp(op);
        continue;
      }
      if (vectorTiles && vectorRows(rewriter, op, parallel))
        continue;
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                  op.getTarget());
    }
  }

  /// A larger static copy whose innermost dim is contiguous on both sides
  /// as a loop nest over the outer dims around 16-wide vector transfers of
  /// each row (and one shorter one for a remainder). As linalg.copy's
  /// scalar loops, LLVM vectorized such copies across rows, with gathers
  /// and scatters.
  static bool vectorRows(IRRewriter &rewriter, memref::CopyOp op,
                         bool parallel) {
    auto src = cast<MemRefType>(op.getSource().getType());
    auto dst = cast<MemRefType>(op.getTarget().getType());
    Type element = src.getElementType();
    if (!src.hasStaticShape() || src.getRank() == 0 ||
        src.getNumElements() == 0 || !innerContiguous(src) ||
        !innerContiguous(dst) || !element.isIntOrFloat() ||
        !vectorElement(element))
      return false;
    constexpr int64_t width = 16;
    Location loc = op.getLoc();
    int64_t rank = src.getRank(), row = src.getShape().back();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    // Threads: the rows of a large copy outside any parallel loop (what
    // one-shot-bufferize copies around an op it could not write in place,
    // such as a padded interior) along one outer dim, by the rule of the
    // elementwise ops (`threadDim`).
    std::optional<unsigned> threads;
    if (parallel && !op->getParentOfType<scf::ForallOp>() &&
        !op->getParentOfType<scf::ParallelOp>())
      threads = threadDim(src.getShape(), llvm::to_vector(llvm::seq<unsigned>(
                                              0, rank - 1)));
    SmallVector<Value> indices;
    OpBuilder::InsertionGuard guard(rewriter);
    for (int64_t d = 0; d + 1 < rank; ++d) {
      Value bound =
          arith::ConstantIndexOp::create(rewriter, loc, src.getDimSize(d));
      if (threads && d == *threads) {
        auto loop = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                            ValueRange{bound}, ValueRange{one});
        indices.push_back(loop.getInductionVars()[0]);
        rewriter.setInsertionPointToStart(loop.getBody());
        continue;
      }
      auto loop = scf::ForOp::create(rewriter, loc, zero, bound, one);
      indices.push_back(loop.getInductionVar());
      rewriter.setInsertionPointToStart(loop.getBody());
    }
    auto copyAt = [&](Value column, int64_t length) {
      SmallVector<Value> at = indices;
      at.push_back(column);
      auto type = VectorType::get({length}, element);
      Value v = vector::TransferReadOp::create(
          rewriter, loc, type, op.getSource(), at,
          /*padding=*/std::nullopt, ArrayRef<bool>{true});
      vector::TransferWriteOp::create(rewriter, loc, v, op.getTarget(), at,
                                      ArrayRef<bool>{true});
    };
    int64_t whole = row / width * width;
    if (whole > 0) {
      Value end = arith::ConstantIndexOp::create(rewriter, loc, whole);
      Value step = arith::ConstantIndexOp::create(rewriter, loc, width);
      auto loop = scf::ForOp::create(rewriter, loc, zero, end, step);
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(loop.getBody());
      copyAt(loop.getInductionVar(), width);
    }
    if (row > whole)
      copyAt(arith::ConstantIndexOp::create(rewriter, loc, whole),
             row - whole);
    rewriter.eraseOp(op);
    return true;
  }

  static bool innerContiguous(MemRefType type) {
    SmallVector<int64_t> strides;
    int64_t offset;
    return succeeded(type.getStridesAndOffset(strides, offset)) &&
           strides.back() == 1;
  }

  static bool isSmallRowContiguous(MemRefType type) {
    return type.hasStaticShape() && type.getRank() > 0 &&
           type.getNumElements() > 0 && type.getNumElements() <= 256 &&
           innerContiguous(type);
  }

  /// Not 16-bit floats: LLVM's x86 backend cannot legalize loads and
  /// stores of odd-sized bfloat vectors (see above).
  static bool vectorElement(Type element) {
    return !element.isBF16() && !element.isF16();
  }
};
} // namespace
