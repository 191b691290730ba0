//===- ExpandCopies.cpp - traced-cpu-expand-copies ------------------------===//
//
// After bufferization: strided memref.copy (what one-shot-bufferize leaves
// for slices) becomes vector transfers for small row-contiguous tiles, else
// linalg.copy, which lowers to loops instead of a runtime library call.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
      Type element = src.getElementType();
      if (vectorTiles && isSmallRowContiguous(src) &&
          isSmallRowContiguous(dst) && !element.isBF16() && !element.isF16()) {
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
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                  op.getTarget());
    }
  }

  static bool isSmallRowContiguous(MemRefType type) {
    if (!type.hasStaticShape() || type.getRank() == 0 ||
        type.getNumElements() == 0 || type.getNumElements() > 256)
      return false;
    SmallVector<int64_t> strides;
    int64_t offset;
    return succeeded(type.getStridesAndOffset(strides, offset)) &&
           strides.back() == 1;
  }
};
} // namespace
