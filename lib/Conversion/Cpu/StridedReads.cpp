//===- StridedReads.cpp - traced-cpu-strided-reads ------------------------===//
//
// A 1-D vector.transfer_read along a memref dimension of static stride s
// (2 to 8) reads its n elements as one contiguous vector of the
// (n - 1) * s + 1 elements they span, masked to that number (a vector
// length rounded up to a power of two), and keeps every s-th with a
// vector.shuffle. The upstream lowering reads a strided vector one scalar
// load and insert per element (Passes.td has the figure that motivated
// this).
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDCPUSTRIDEDREADS
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {

/// The largest stride read this way: past it, the contiguous span holds
/// more than 8 elements per one kept.
constexpr int64_t kMaxStride = 8;

struct ContiguousStridedRead : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    auto memref = dyn_cast<MemRefType>(read.getBase().getType());
    VectorType vector = read.getVectorType();
    if (!memref || memref.getRank() == 0 || vector.getRank() != 1 ||
        vector.isScalable() || read.getMask() || !read.getPermutationMap().isMinorIdentity() ||
        !read.getInBoundsValues()[0])
      return failure();
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memref.getStridesAndOffset(strides, offset)))
      return failure();
    int64_t stride = strides.back(), n = vector.getDimSize(0);
    if (ShapedType::isDynamic(stride) || stride < 2 || stride > kMaxStride || n < 2)
      return failure();
    Location loc = read.getLoc();
    // The first element's linear offset from the buffer's base.
    auto metadata = memref::ExtractStridedMetadataOp::create(rewriter, loc, read.getBase());
    Value linear = metadata.getOffset();
    for (auto [index, s] : llvm::zip(read.getIndices(), metadata.getStrides()))
      linear = arith::AddIOp::create(rewriter, loc, linear,
                                     arith::MulIOp::create(rewriter, loc, index, s));
    int64_t span = (n - 1) * stride + 1;
    Type element = vector.getElementType();
    auto contiguous = MemRefType::get(
        {span}, element, StridedLayoutAttr::get(rewriter.getContext(), ShapedType::kDynamic, {1}),
        memref.getMemorySpace());
    auto flat = memref::ReinterpretCastOp::create(
        rewriter, loc, contiguous, metadata.getBaseBuffer(), OpFoldResult(linear),
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(span)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    // A power-of-two vector, masked to the span: never a read past it.
    int64_t width = static_cast<int64_t>(llvm::PowerOf2Ceil(static_cast<uint64_t>(span)));
    auto wideType = VectorType::get({width}, element);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    auto wide = vector::TransferReadOp::create(rewriter, loc, wideType, flat, ValueRange{zero},
                                               read.getPadding(), ArrayRef<bool>{false});
    SmallVector<int64_t> kept;
    for (int64_t i = 0; i < n; ++i)
      kept.push_back(i * stride);
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(read, wide, wide, kept);
    return success();
  }
};

struct StridedReadsPass : traced::impl::TracedCpuStridedReadsBase<StridedReadsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ContiguousStridedRead>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
