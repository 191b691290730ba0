//===- TileAndVectorize.cpp - traced-cpu-tile-and-vectorize ---------------===//
//
// The CPU strategy for linalg on tensors (docs/cpu.md): contractions tiled
// into cache blocks around a register tile and vectorized, convolutions as
// im2col matmuls, right-hand sides packed into panels, elementwise ops tiled
// and vectorized; then vector lowering to rows this CPU's registers hold.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Transforms/Passes.h"
#include "../TracedToLinalg/Lowering.h"
#include "Threads.h"
#include "Winograd.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/TargetParser/Host.h"

#include <array>
#include <mutex>

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDCPUTILEANDVECTORIZE
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

namespace {
/// The float accumulator type of a vector.contract whose operands are
/// floats no wider than it (bf16 into f32: they are extended first, as
/// vector.contract defines it); null otherwise.
FloatType floatAccumulator(vector::ContractionOp op, VectorType accType) {
  auto acc = dyn_cast<FloatType>(accType.getElementType());
  auto narrower = [&](Type t) {
    auto f = dyn_cast<FloatType>(t);
    return f && f.getWidth() <= acc.getWidth();
  };
  if (!acc || !narrower(op.getLhsType().getElementType()) ||
      !narrower(op.getRhsType().getElementType()))
    return {};
  return acc;
}

/// `acc += lhs * rhs` for a (M x 1) * (1 x N) matmul-shaped vector.contract
/// (the register tile of one reduction step): one broadcast FMA per
/// accumulator row. Upstream's contraction lowering turns a unit reduction
/// into elementwise scalar code, so this shape is handled here.
struct UnitKContractToFma : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    auto lhsType = op.getLhsType();
    auto accType = dyn_cast<VectorType>(op.getAccType());
    if (!accType || lhsType.getRank() != 2 || accType.getRank() != 2 ||
        op.getKind() != vector::CombiningKind::ADD ||
        !isa<FloatType>(accType.getElementType()))
      return failure();
    MLIRContext *ctx = op.getContext();
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    auto maps = op.getIndexingMapsArray();
    // The left-hand side is M x 1, or 1 x M read transposed (the
    // transposed convolution's patches: a row tile is contiguous).
    bool lhsTransposed =
        maps.size() == 3 && maps[0] == AffineMap::get(3, 0, {k, m}, ctx);
    if (lhsType.getDimSize(lhsTransposed ? 0 : 1) != 1)
      return failure();
    if (maps.size() != 3 ||
        (!lhsTransposed && maps[0] != AffineMap::get(3, 0, {m, k}, ctx)) ||
        maps[1] != AffineMap::get(3, 0, {k, n}, ctx) ||
        maps[2] != AffineMap::get(3, 0, {m, n}, ctx))
      return failure();
    FloatType accElement = floatAccumulator(op, accType);
    if (!accElement)
      return failure();
    Location loc = op.getLoc();
    auto extend = [&](Value v, Type to) -> Value {
      return v.getType() == to ? v
                               : arith::ExtFOp::create(rewriter, loc, to, v)
                                     .getResult();
    };
    int64_t rows = accType.getDimSize(0);
    Value rhs = vector::ExtractOp::create(rewriter, loc, op.getRhs(),
                                          ArrayRef<int64_t>{0});
    rhs = extend(rhs, VectorType::get(cast<VectorType>(rhs.getType()).getShape(),
                                      accElement));
    Value acc = op.getAcc();
    for (int64_t i = 0; i < rows; ++i) {
      Value a = extend(
          vector::ExtractOp::create(
              rewriter, loc, op.getLhs(),
              lhsTransposed ? ArrayRef<int64_t>{0, i} : ArrayRef<int64_t>{i, 0}),
          accElement);
      Value row = vector::ExtractOp::create(rewriter, loc, acc,
                                            ArrayRef<int64_t>{i});
      Value splat =
          vector::BroadcastOp::create(rewriter, loc, row.getType(), a);

      // mul + add with contraction allowed: LLVM emits one FMA.
      auto contract = arith::FastMathFlags::contract;
      Value prod = arith::MulFOp::create(rewriter, loc, splat, rhs, contract);
      Value fma = arith::AddFOp::create(rewriter, loc, prod, row, contract);
      acc = vector::InsertOp::create(rewriter, loc, fma, acc,
                                     ArrayRef<int64_t>{i});
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// A vector.contract whose one reduction dim is the last dim of both
/// operands (each output element is the dot product of two contiguous
/// rows: the keys of attention's q @ k^T read from a cache of (tokens,
/// head dim) rows, one query row in a decode step) as one elementwise
/// product and one `vector.reduction` per output element. Upstream's
/// outer-product lowering would transpose the right-hand side into
/// columns; `rowDotTile` picks the tiles this pattern is for. Reductions of
/// fewer than 8 elements (the register tiles' unit K) are left alone.
struct ContractToRowDots : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    auto accType = dyn_cast<VectorType>(op.getAccType());
    if (!accType || accType.isScalable() ||
        op.getKind() != vector::CombiningKind::ADD ||
        !isa<FloatType>(accType.getElementType()) ||
        accType.getNumElements() > 64 ||
        isa<vector::MaskOp>(op->getParentOp()))
      return failure();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<vector::IteratorType> iterators = op.getIteratorTypesArray();
    unsigned reduced = 0, reductions = 0;
    for (auto [d, kind] : llvm::enumerate(iterators))
      if (kind == vector::IteratorType::reduction) {
        reduced = d;
        ++reductions;
      }
    VectorType lhsType = op.getLhsType();
    auto lastIsReduced = [&](AffineMap map) {
      return map.getNumResults() > 0 &&
             map.getResults().back() == getAffineDimExpr(reduced, op.getContext());
    };
    if (reductions != 1 || !lastIsReduced(maps[0]) || !lastIsReduced(maps[1]) ||
        lhsType.getShape().back() < 8)
      return failure();
    FloatType accElement = floatAccumulator(op, accType);
    if (!accElement)
      return failure();
    // Where each loop dim sits in the accumulator (every parallel dim is
    // one of its results: the maps are projected permutations).
    SmallVector<int64_t> accPosition(iterators.size(), -1);
    for (auto [i, e] : llvm::enumerate(maps[2].getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim)
        return failure();
      accPosition[dim.getPosition()] = i;
    }
    auto rowOf = [&](AffineMap map, ArrayRef<int64_t> index,
                     SmallVector<int64_t> &row) {
      row.clear();
      for (AffineExpr e : map.getResults().drop_back()) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        if (!dim || accPosition[dim.getPosition()] < 0)
          return false;
        row.push_back(index[accPosition[dim.getPosition()]]);
      }
      return true;
    };
    Location loc = op.getLoc();
    auto rowType = VectorType::get({lhsType.getShape().back()}, accElement);
    auto extend = [&](Value v) -> Value {
      return v.getType() == rowType
                 ? v
                 : arith::ExtFOp::create(rewriter, loc, rowType, v).getResult();
    };
    Value acc = op.getAcc();
    SmallVector<int64_t> lhsRow, rhsRow;
    for (SmallVector<int64_t> index : StaticTileOffsetRange(
             accType.getShape(), SmallVector<int64_t>(accType.getRank(), 1))) {
      if (!rowOf(maps[0], index, lhsRow) || !rowOf(maps[1], index, rhsRow))
        return failure();
      Value a = extend(vector::ExtractOp::create(rewriter, loc, op.getLhs(), lhsRow));
      Value b = extend(vector::ExtractOp::create(rewriter, loc, op.getRhs(), rhsRow));
      Value product = arith::MulFOp::create(rewriter, loc, a, b,
                                            arith::FastMathFlags::contract);
      Value start = vector::ExtractOp::create(rewriter, loc, acc, index);
      // Reassociated: a tree of vector adds and one horizontal step, not a
      // chain of scalar adds (the order torch's own dot kernels take too).
      Value dot = vector::ReductionOp::create(
          rewriter, loc, vector::CombiningKind::ADD, product, start,
          arith::FastMathFlags::reassoc | arith::FastMathFlags::contract);
      acc = vector::InsertOp::create(rewriter, loc, dot, acc, index);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// A `vector.multi_reduction` whose kept dims are all 1 (a reduction tile
/// of the reduction strategy: one output element, a chunk of the reduced
/// dim) as one `vector.reduction` over the flattened source, which LLVM
/// turns into a tree of vector ops and one horizontal step. Upstream's
/// InnerParallel lowering (which the contraction tiles need) would make it
/// a chain of scalar ops, one per element.
struct UnitMultiReductionToReduction
    : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType source = op.getSourceVectorType();
    if (source.isScalable() || source.getRank() == 0)
      return failure();
    int64_t kept = 1;
    for (auto [size, reduced] :
         llvm::zip(source.getShape(), op.getReductionMask()))
      if (!reduced)
        kept *= size;
    if (kept != 1 || source.getNumElements() < 2)
      return failure();
    Location loc = op.getLoc();
    Value flat = vector::ShapeCastOp::create(
        rewriter, loc,
        VectorType::get({source.getNumElements()}, source.getElementType()),
        op.getSource());
    Value acc = op.getAcc();
    auto accVector = dyn_cast<VectorType>(acc.getType());
    if (accVector)
      acc = vector::ExtractOp::create(
          rewriter, loc, acc, SmallVector<int64_t>(accVector.getRank(), 0));
    Value reduced =
        vector::ReductionOp::create(rewriter, loc, op.getKind(), flat, acc);
    if (accVector)
      reduced = vector::BroadcastOp::create(rewriter, loc, accVector, reduced);
    rewriter.replaceOp(op, reduced);
    return success();
  }
};

/// The leading-index tuples of an n-D vector shape (all but the last dim).
static SmallVector<SmallVector<int64_t>> leadingPositions(VectorType type) {
  SmallVector<SmallVector<int64_t>> positions = {{}};
  for (int64_t size : type.getShape().drop_back()) {
    SmallVector<SmallVector<int64_t>> next;
    for (const auto &p : positions)
      for (int64_t i = 0; i < size; ++i) {
        next.push_back(p);
        next.back().push_back(i);
      }
    positions = std::move(next);
  }
  return positions;
}

/// Whether `map` is the minor identity of a transfer of `vectorRank` dims.
static bool isRowMajorTransfer(AffineMap map, unsigned vectorRank,
                               ArrayRef<bool> inBounds, Value mask) {
  return !mask && map.isMinorIdentity() && map.getNumResults() == vectorRank &&
         vectorRank >= 2 && llvm::all_of(inBounds, [](bool b) { return b; });
}

/// The indices of the row at leading position `pos` of an n-D transfer
/// whose vector dimensions start at index `base`.
static SmallVector<Value> rowIndices(PatternRewriter &rewriter, Location loc,
                                     ValueRange indices, unsigned base,
                                     ArrayRef<int64_t> pos) {
  SmallVector<Value> row(indices);
  for (auto [d, offset] : llvm::enumerate(pos))
    row[base + d] = arith::AddIOp::create(
        rewriter, loc, row[base + d],
        arith::ConstantIndexOp::create(rewriter, loc, offset));
  return row;
}

/// An in-bounds n-D transfer_read becomes one 1-D read per row, so that
/// accumulators and elementwise tiles reach LLVM as rows of vector
/// registers.
struct SplitTransferReadRows : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferReadOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    if (!isRowMajorTransfer(op.getPermutationMap(), type.getRank(),
                            op.getInBoundsValues(), op.getMask()))
      return failure();
    Location loc = op.getLoc();
    Value result = arith::ConstantOp::create(
        rewriter, loc, type, rewriter.getZeroAttr(type));
    unsigned base = op.getIndices().size() - type.getRank();
    for (const SmallVector<int64_t> &pos : leadingPositions(type)) {
      SmallVector<Value> indices =
          rowIndices(rewriter, loc, op.getIndices(), base, pos);
      Value row0 = vector::ExtractOp::create(rewriter, loc, result, pos);
      Value row = vector::TransferReadOp::create(
          rewriter, loc, cast<VectorType>(row0.getType()), op.getBase(),
          indices, op.getPadding(), ArrayRef<bool>{true});
      result = vector::InsertOp::create(rewriter, loc, row, result, pos);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SplitTransferWriteRows : OpRewritePattern<vector::TransferWriteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::TransferWriteOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getVectorType();
    if (!isRowMajorTransfer(op.getPermutationMap(), type.getRank(),
                            op.getInBoundsValues(), op.getMask()))
      return failure();
    Location loc = op.getLoc();
    unsigned base = op.getIndices().size() - type.getRank();
    Value dest = op.getBase();
    bool onTensor = isa<RankedTensorType>(dest.getType());
    for (const SmallVector<int64_t> &pos : leadingPositions(type)) {
      SmallVector<Value> indices =
          rowIndices(rewriter, loc, op.getIndices(), base, pos);
      Value row = vector::ExtractOp::create(rewriter, loc, op.getVector(), pos);
      auto write = vector::TransferWriteOp::create(
          rewriter, loc, row, dest, indices, ArrayRef<bool>{true});
      if (onTensor)
        dest = write.getResult();
    }
    if (onTensor)
      rewriter.replaceOp(op, dest);
    else
      rewriter.eraseOp(op);
    return success();
  }
};

struct TileAndVectorizePass
    : traced::impl::TracedCpuTileAndVectorizeBase<TileAndVectorizePass> {
  using Base::Base;
  /// The stages, in order.
  void runOnOperation() override;

private:
  void rewriteConvolutionsAndPools(RewriterBase &rewriter, func::FuncOp func);
  void collectOps(func::FuncOp func,
                  SmallVectorImpl<linalg::LinalgOp> &contractions,
                  SmallVectorImpl<linalg::LinalgOp> &elementwise,
                  SmallVectorImpl<linalg::GenericOp> &reductions) const;
  void splitForRegisterTiles(
      RewriterBase &rewriter,
      SmallVectorImpl<linalg::LinalgOp> &contractions) const;
  void tileContraction(RewriterBase &rewriter, linalg::LinalgOp op) const;
  void tileElementwise(RewriterBase &rewriter, linalg::LinalgOp op) const;
  void lowerVectorOps(func::FuncOp func);

  // The register tile of a contraction.
  int64_t rowTile(linalg::LinalgOp op,
                  const linalg::ContractionDimensions &dims) const;
  int64_t columnTile(int64_t rows) const;
  int64_t vectorColumns(int64_t bound, int64_t rows) const;
  void registerTile(linalg::LinalgOp op,
                    const linalg::ContractionDimensions &dims,
                    SmallVector<int64_t> &sizes,
                    SmallVector<int64_t> &order) const;
  bool rowDotTile(linalg::LinalgOp op,
                  const linalg::ContractionDimensions &dims,
                  SmallVector<int64_t> &sizes,
                  SmallVector<int64_t> &order) const;
  /// Where to split a contraction: the split point (0: none), setting the
  /// dim.
  using SplitPoint = function_ref<int64_t(
      linalg::LinalgOp, const linalg::ContractionDimensions &, unsigned &)>;
  void splitContractions(RewriterBase &rewriter,
                         SmallVectorImpl<linalg::LinalgOp> &contractions,
                         SplitPoint at) const;
};
} // namespace

/// The largest t <= limit dividing `bound` that is a multiple of `unit`;
/// 0 when there is none (always for an empty loop, `bound` 0).
static int64_t largestDivisor(int64_t bound, int64_t limit, int64_t unit) {
  if (bound <= 0 || unit <= 0)
    return 0;
  for (int64_t t = std::min(limit, bound); t >= unit; --t)
    if (bound % t == 0 && t % unit == 0)
      return t;
  return 0;
}

/// Sizes clamped to the largest divisors of the static loop bounds.
static std::optional<SmallVector<OpFoldResult>>
divisorTiles(RewriterBase &rewriter, linalg::LinalgOp op,
             ArrayRef<int64_t> sizes, bool wholeDynamicDims = false) {
  SmallVector<OpFoldResult> tileSizes;
  for (auto [size, bound] : llvm::zip(sizes, op.getStaticLoopRanges())) {
    if (ShapedType::isDynamic(bound) && !(wholeDynamicDims && size == 0))
      return std::nullopt;
    if (size == 0) { // not tiled
      tileSizes.push_back(rewriter.getIndexAttr(0));
      continue;
    }
    int64_t t = std::max<int64_t>(1, std::min(size, bound));
    while (bound % t)
      --t;
    tileSizes.push_back(rewriter.getIndexAttr(t));
  }
  return tileSizes;
}

/// 2 x the product of `op`'s static loop bounds: the flops of a
/// multiply-add per iteration, which decide whether it pays for threads.
static int64_t loopFlops(linalg::LinalgOp op) {
  int64_t flops = 2;
  for (int64_t b : op.getStaticLoopRanges())
    flops *= b;
  return flops;
}

/// Whether `op` runs within a parallel loop already (the blocks of a
/// convolution, `convToIm2colMatmul`): it then gets no threads of its own.
static bool inParallelLoop(Operation *op) {
  return op->getParentOfType<scf::ForallOp>() != nullptr;
}

/// Moves the `linalg.fill`s that start the outputs of `tiled` (an op just
/// tiled into an `scf.forall`) into the forall: each iteration fills its own
/// slice right before the op accumulates into it, on its thread and while
/// the slice is in cache, and the forall's output starts as an empty
/// tensor. Left outside, a fill is a serial pass over the whole output
/// (a memset on the calling thread) before the parallel loop. Only where
/// the slice is read by `tiled` alone and the forall's output by that
/// slice and its write-back, so every element is filled before it is
/// read.
static void fuseFillsIntoForall(RewriterBase &rewriter, linalg::LinalgOp tiled) {
  auto forall = dyn_cast<scf::ForallOp>(tiled->getParentOp());
  if (!forall)
    return;
  for (OpOperand &init : tiled.getDpsInitsMutable()) {
    auto slice = init.get().getDefiningOp<tensor::ExtractSliceOp>();
    auto arg = slice ? dyn_cast<BlockArgument>(slice.getSource()) : nullptr;
    if (!arg || arg.getOwner() != forall.getBody() || !slice->hasOneUse())
      continue;
    OpOperand *shared = forall.getTiedOpOperand(arg);
    if (!shared)
      continue;
    // Through reshapes (a packed matmul's output is the fill expanded into
    // column panels), each used only on the way to the forall.
    OpOperand *use = shared;
    while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
               use->get().getDefiningOp()) &&
           use->get().hasOneUse())
      use = &use->get().getDefiningOp()->getOpOperand(0);
    auto fill = use->get().getDefiningOp<linalg::FillOp>();
    if (!fill || !fill.hasPureTensorSemantics() ||
        !llvm::all_of(arg.getUsers(), [&](Operation *user) {
          return user == slice.getOperation() ||
                 isa<tensor::ParallelInsertSliceOp>(user);
        }))
      continue;
    // The forall starts from the fill's destination (its own copy of an
    // empty tensor where the fill has other users), reshaped as before: a
    // returned output is then still written in place.
    Value dest = fill.getOutputs()[0];
    if (!fill->hasOneUse()) {
      auto empty = dest.getDefiningOp<tensor::EmptyOp>();
      if (!empty)
        continue;
      rewriter.setInsertionPoint(fill);
      dest = rewriter.clone(*empty)->getResult(0);
    }
    rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(dest); });
    rewriter.setInsertionPoint(tiled);
    Value filled = linalg::FillOp::create(rewriter, fill.getLoc(),
                                          fill.getInputs()[0], slice.getResult())
                       .getResult(0);
    rewriter.modifyOpInPlace(tiled, [&] { init.set(filled); });
    if (fill->use_empty())
      rewriter.eraseOp(fill);
  }
}

/// Tiles `op` (no vectorization) and returns the tiled op.
/// (`wholeDynamicDims`: an op with dynamic dims may be tiled along static
/// ones, its dynamic dims left whole; elementwise ops with dynamic dims are
/// not, as docs/cpu.md says why.)
static FailureOr<linalg::LinalgOp>
tileOnly(RewriterBase &rewriter, linalg::LinalgOp op, ArrayRef<int64_t> sizes,
         ArrayRef<int64_t> interchange, bool forall = false,
         bool wholeDynamicDims = false) {
  std::optional<SmallVector<OpFoldResult>> tileSizes =
      divisorTiles(rewriter, op, sizes, wholeDynamicDims);
  if (!tileSizes)
    return failure();
  scf::SCFTilingOptions options;
  options.setTileSizes(*tileSizes);
  options.setInterchange(interchange);
  if (forall)
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  auto result = cast<linalg::LinalgOp>(tiled->tiledOps.back());
  if (forall)
    fuseFillsIntoForall(rewriter, result);
  return result;
}

/// Tiles `op` by `sizes` and vectorizes the (static) tile. Each size is
/// lowered to the largest divisor of its loop's trip count, so tiles are
/// never partial and need no masks.
static LogicalResult tileAndVectorize(RewriterBase &rewriter,
                                      linalg::LinalgOp op,
                                      ArrayRef<int64_t> sizes,
                                      ArrayRef<int64_t> interchange = {}) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  SmallVector<OpFoldResult> tileSizes;
  for (auto [size, bound] : llvm::zip(sizes, bounds)) {
    if (ShapedType::isDynamic(bound))
      return failure();
    int64_t t = std::max<int64_t>(1, std::min(size, bound));
    while (bound % t)
      --t;
    tileSizes.push_back(rewriter.getIndexAttr(t));
  }
  scf::SCFTilingOptions options;
  options.setTileSizes(tileSizes);
  options.setInterchange(interchange);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op.getOperation()),
                        options);
  if (failed(tiled))
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  Operation *tile = tiled->tiledOps.back();
  rewriter.setInsertionPoint(tile);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, tile, /*inputVectorSizes=*/{},
                        /*inputScalableVecDims=*/{},
                        /*vectorizeNDExtract=*/false,
                        /*flatten1DDepthwiseConv=*/false,
                        /*assumeDynamicDimsMatchVecSizes=*/false,
                        /*createNamedContraction=*/true);
  if (failed(vectorized))
    return success(); // tiled but scalar: still correct
  if (!vectorized->replacements.empty())
    rewriter.replaceOp(tile, vectorized->replacements);
  else
    rewriter.eraseOp(tile);
  // Keep the accumulator tile in registers along the reduction loop: the
  // slice pair first, then the vector transfer pair it exposes.
  if (!tiled->loops.empty()) {
    // (Constants the vectorizer put inside the loop go out first, or the
    // transfer indices do not look loop-invariant.)
    LoopLikeOpInterface inner = tiled->loops.back();
    for (int i = 0; i < 2; ++i) {
      moveLoopInvariantCode(inner);
      inner = hoistLoopInvariantSubsets(rewriter, inner);
    }
  }
  return success();
}

/// C[m, j, l] += A[m, k] * P[j, k, l] over (m, j, l, k): a matmul against a
/// right-hand side packed into column panels (P), reading A as M x K, or as
/// K x M with `lhsTransposed`.
static linalg::GenericOp panelContraction(OpBuilder &b, Location loc,
                                          Value lhs, Value panels, Value init,
                                          bool lhsTransposed) {
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  auto parallel = utils::IteratorType::parallel;
  return linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{lhs, panels}, ValueRange{init},
      ArrayRef<AffineMap>{
          AffineMap::get(4, 0, {lhsTransposed ? d3 : d0, lhsTransposed ? d0 : d3},
                         ctx),
          AffineMap::get(4, 0, {d1, d3, d2}, ctx),
          AffineMap::get(4, 0, {d0, d1, d2}, ctx)},
      SmallVector<utils::IteratorType>{parallel, parallel, parallel,
                                       utils::IteratorType::reduction},
      [](OpBuilder &nb, Location l, ValueRange args) {
        Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
        linalg::YieldOp::create(
            nb, l, arith::AddFOp::create(nb, l, args[2], product).getResult());
      });
}

/// Packs the right-hand side of a row-major `linalg.matmul` (K x N) into
/// column panels (N/t x K x t: the K x t strip one register tile reads is
/// contiguous) and rewrites the matmul as a contraction over (m, j, l, k)
/// that reads the panels: C[m, j*t + l] += A[m, k] * P[j, k, l]. Unpacked,
/// the register tile's two vector loads per reduction step are a whole row
/// of B apart (4 KiB for N = 1024): every step lands in the same L1 sets
/// and a new page. Packing costs one pass over B, so it is done only when
/// at least `minRows` rows of A reuse each panel. Upstream's linalg.pack
/// data-tiles both operands into a 4-D mmt4d layout; this keeps A and C as
/// they are and needs only two free reshapes and one transposing copy.
static FailureOr<linalg::LinalgOp> packRightHandSide(RewriterBase &rewriter,
                                                     linalg::MatmulOp matmul,
                                                     int64_t t,
                                                     int64_t minRows) {
  if (!matmul.hasPureTensorSemantics() || matmul.hasUserDefinedMaps())
    return failure();
  Value a = matmul.getDpsInputs()[0], b = matmul.getDpsInputs()[1];
  Value c = matmul.getDpsInits()[0];
  auto aType = dyn_cast<RankedTensorType>(a.getType());
  auto bType = dyn_cast<RankedTensorType>(b.getType());
  auto cType = dyn_cast<RankedTensorType>(c.getType());
  if (!aType || !bType || !cType || !aType.hasStaticShape() ||
      !bType.hasStaticShape() || !isa<FloatType>(cType.getElementType()) ||
      aType.getElementType() != cType.getElementType() ||
      bType.getElementType() != cType.getElementType())
    return failure();
  int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
          n = bType.getDimSize(1);
  if (t <= 0 || k == 0 || n % t != 0 || n / t < 2 || m < minRows)
    return failure();
  MLIRContext *ctx = matmul.getContext();
  Location loc = matmul.getLoc();
  Type element = cType.getElementType();
  rewriter.setInsertionPoint(matmul);
  SmallVector<ReassociationIndices> split = {{0}, {1, 2}};
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  auto parallel = utils::IteratorType::parallel;
  // A constant right-hand side (a weight) is packed at compile time, so
  // no call copies it; anything else by a copy before the matmul.
  Value packed = lowering::permutedConstant(rewriter, loc, b, {k, n / t, t},
                                            {1, 0, 2}, "panels");
  if (!packed) {
    Value bSplit = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, n / t, t}, element), b,
        split);
    Value panels = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{n / t, k, t}, element);
    packed =
        linalg::GenericOp::create(
            rewriter, loc, panels.getType(), ValueRange{bSplit},
            ValueRange{panels},
            ArrayRef<AffineMap>{AffineMap::get(3, 0, {d1, d0, d2}, ctx),
                                AffineMap::getMultiDimIdentityMap(3, ctx)},
            SmallVector<utils::IteratorType>(3, parallel),
            [](OpBuilder &builder, Location loc, ValueRange args) {
              linalg::YieldOp::create(builder, loc, args[0]);
            })
            .getResult(0);
  }
  Value cSplit = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({m, n / t, t}, element), c, split);
  linalg::GenericOp contraction =
      panelContraction(rewriter, loc, a, packed, cSplit,
                       /*lhsTransposed=*/false);
  Value result = tensor::CollapseShapeOp::create(
      rewriter, loc, cType, contraction.getResult(0), split);
  rewriter.replaceOp(matmul, result);
  return cast<linalg::LinalgOp>(contraction.getOperation());
}

/// Tap (i, j)'s input view of a window op: `input[..., i*dh :: sh,
/// j*dw :: sw]` of the output's shape `outType` (the spatial dims are the
/// last two, of any rank: NCHW, or NGCHW for a grouped convolution). `i`
/// and `j` are constants or index values (a loop over the taps).
static Value tapView(OpBuilder &b, Location loc, Value input,
                     RankedTensorType outType, OpFoldResult i, OpFoldResult j,
                     ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  AffineExpr d0 = b.getAffineDimExpr(0);
  int64_t rank = outType.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[rank - 2] =
      affine::makeComposedFoldedAffineApply(b, loc, d0 * dilations[0], {i});
  offsets[rank - 1] =
      affine::makeComposedFoldedAffineApply(b, loc, d0 * dilations[1], {j});
  SmallVector<OpFoldResult> sizes, steps(rank, b.getIndexAttr(1));
  for (int64_t d : outType.getShape())
    sizes.push_back(b.getIndexAttr(d));
  steps[rank - 2] = b.getIndexAttr(strides[0]);
  steps[rank - 1] = b.getIndexAttr(strides[1]);
  auto viewType = RankedTensorType::get(
      outType.getShape(),
      cast<RankedTensorType>(input.getType()).getElementType());
  return tensor::ExtractSliceOp::create(b, loc, viewType, input, offsets,
                                        sizes, steps);
}

/// The input views of a window op's taps, in (kh, kw) order (`tapView`).
static SmallVector<Value> tapViews(RewriterBase &rewriter, Location loc,
                                   Value input, RankedTensorType outType,
                                   int64_t kh, int64_t kw,
                                   ArrayRef<int64_t> strides,
                                   ArrayRef<int64_t> dilations) {
  SmallVector<Value> views;
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j)
      views.push_back(tapView(rewriter, loc, input, outType,
                              rewriter.getIndexAttr(i),
                              rewriter.getIndexAttr(j), strides, dilations));
  return views;
}

/// The im2col patches of a window op, filled tap by tap: for the input
/// views' shape `planeType` (leading dims, then OH, OW), a tensor of the
/// leading dims, then KH, KW, then OH, OW, whose block (kh, kw) is a copy
/// of tap (kh, kw)'s strided input view. Each copy is an elementwise
/// generic (the elementwise strategy vectorizes it along the output width)
/// into a slice extracted from and inserted into the same value, so that
/// bufferization writes the patches in place; a gather through
/// `oh * s + kh` maps is scalar. A window of more than one tap copies in
/// an `scf.for` nest over (kh, kw), the view's offsets its induction
/// variables: one copy per convolution in the generated code, not one per
/// tap (ResNet-18 has 193 taps; one copy each took its compile from 3.8 s
/// to 11 s, in every stage from bufferization to code generation).
static Value patchesByTaps(OpBuilder &rewriter, Location loc, Value input,
                           RankedTensorType planeType, int64_t kh, int64_t kw,
                           ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilations) {
  int64_t rank = planeType.getRank(), lead = rank - 2;
  SmallVector<int64_t> shape(planeType.getShape().take_front(lead));
  shape.append({kh, kw, planeType.getDimSize(lead),
                planeType.getDimSize(lead + 1)});
  Value cols = tensor::EmptyOp::create(rewriter, loc, shape,
                                       planeType.getElementType());
  // The copy runs over (leading dims, 1, 1, OH, OW): its output is a
  // full-rank slice of the patches. (A rank-reduced one is ambiguous when
  // OH or a leading dim is 1 too, and upstream's folding of slices of
  // such slices then picks the wrong unit dims: "slice along dimension 2
  // runs out-of-bounds" on a ConvTranspose1d.)
  auto planeShape = llvm::to_vector(shape);
  planeShape[lead] = planeShape[lead + 1] = 1;
  auto fullPlaneType =
      RankedTensorType::get(planeShape, planeType.getElementType());
  SmallVector<AffineExpr> viewDims;
  for (int64_t d = 0; d < rank + 2; ++d)
    if (d != lead && d != lead + 1)
      viewDims.push_back(rewriter.getAffineDimExpr(d));
  AffineMap viewMap =
      AffineMap::get(rank + 2, 0, viewDims, rewriter.getContext());
  AffineMap id = rewriter.getMultiDimIdentityMap(rank + 2);
  // Copies tap (i, j) (index values or attributes) into `into`.
  auto copyTap = [&](OpBuilder &b, Location l, OpFoldResult i,
                     OpFoldResult j, Value into) -> Value {
    Value view =
        tapView(b, l, input, planeType, i, j, strides, dilations);
    SmallVector<OpFoldResult> offsets(shape.size(), b.getIndexAttr(0));
    offsets[lead] = i;
    offsets[lead + 1] = j;
    SmallVector<OpFoldResult> sizes;
    for (int64_t d : planeShape)
      sizes.push_back(b.getIndexAttr(d));
    SmallVector<OpFoldResult> unit(shape.size(), b.getIndexAttr(1));
    Value plane = tensor::ExtractSliceOp::create(b, l, fullPlaneType, into,
                                                 offsets, sizes, unit);
    Value copied =
        linalg::GenericOp::create(
            b, l, fullPlaneType, view, plane,
            ArrayRef<AffineMap>{viewMap, id},
            SmallVector<utils::IteratorType>(rank + 2,
                                             utils::IteratorType::parallel),
            [](OpBuilder &nb, Location nl, ValueRange args) {
              linalg::YieldOp::create(nb, nl, args[0]);
            })
            .getResult(0);
    return tensor::InsertSliceOp::create(b, l, copied, into, offsets, sizes,
                                         unit);
  };
  if (kh * kw == 1)
    return copyTap(rewriter, loc, rewriter.getIndexAttr(0),
                   rewriter.getIndexAttr(0), cols);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value rows = arith::ConstantIndexOp::create(rewriter, loc, kh);
  Value columns = arith::ConstantIndexOp::create(rewriter, loc, kw);
  auto outer = scf::ForOp::create(
      rewriter, loc, zero, rows, one, ValueRange{cols},
      [&](OpBuilder &b, Location l, Value i, ValueRange outerArgs) {
        auto inner = scf::ForOp::create(
            b, l, zero, columns, one, outerArgs,
            [&](OpBuilder &ib, Location il, Value j, ValueRange innerArgs) {
              scf::YieldOp::create(
                  ib, il, copyTap(ib, il, i, j, innerArgs.front()));
            });
        scf::YieldOp::create(b, l, inner.getResults());
      });
  return outer.getResult(0);
}

/// The input, filter (or window) and output types of a convolution-like
/// op on statically shaped tensors; failure otherwise.
static FailureOr<std::array<RankedTensorType, 3>>
staticWindowTypes(linalg::LinalgOp op) {
  auto inType = dyn_cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  auto fType = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  auto outType = dyn_cast<RankedTensorType>(op.getDpsInits()[0].getType());
  if (!inType || !fType || !outType || !inType.hasStaticShape() ||
      !fType.hasStaticShape() || !outType.hasStaticShape() ||
      !op.hasPureTensorSemantics())
    return failure();
  return std::array<RankedTensorType, 3>{inType, fType, outType};
}

/// Output rows per block when a convolution's patches are filled and
/// multiplied a block of output rows at a time (`convToIm2colMatmul`); 0
/// for whole images. Blocks pay where the patches (K x P) are large and
/// the filter (F x K) small, which every block reads again: P at least
/// 4 F. A block's patches stay within `budget` floats (a quarter of a
/// 1 MiB L2, with the filter and the block's product beside them), and an
/// image makes at least `minBlocks` blocks where its rows allow, so that
/// threads share the work evenly. A block's columns are a multiple of
/// `unit` (the register tile's rows or vector width along them), or there
/// are no blocks: narrower register tiles would cost more than the blocks
/// save.
static int64_t blockRows(int64_t k, int64_t f, int64_t oh, int64_t ow,
                         int64_t unit, int64_t budget = 96 * 1024) {
  constexpr int64_t minBlocks = 8;
  if (oh < 2 || ow <= 0 || f <= 0 || oh * ow < 4 * f)
    return 0;
  int64_t best = 0;
  for (int64_t rows = 1; rows < oh; ++rows) {
    if (oh % rows || (rows * ow) % unit || k * rows * ow > budget)
      continue;
    if (best && oh / rows < std::min(minBlocks, oh))
      break;
    best = rows;
  }
  return best;
}

/// An `scf.forall` over (image, block), `n` x `blocks`, sharing `result`,
/// with the builder's insertion point set before its terminator; the loop,
/// its two induction variables and its shared output.
struct ImageBlockLoop {
  scf::ForallOp forall;
  Value image, block, into;
};
static ImageBlockLoop imageBlockLoop(OpBuilder &b, Location loc, int64_t n,
                                     int64_t blocks, Value result) {
  auto forall = scf::ForallOp::create(
      b, loc,
      ArrayRef<OpFoldResult>{b.getIndexAttr(n), b.getIndexAttr(blocks)},
      ValueRange{result}, std::nullopt);
  b.setInsertionPoint(forall.getTerminator());
  return {forall, forall.getInductionVars()[0], forall.getInductionVars()[1],
          forall.getRegionIterArgs()[0]};
}

/// The loops of an im2col convolution over `result`, its output with the
/// spatial dims collapsed (N, ..., P = oh * ow), which they return.
/// `block(b, loc, image, row, acc)` computes the output columns of one
/// block of output rows (`rows` of them from `row` on; `rows` 0: whole
/// images) into `acc`, the block's slice of `result` (1, ..., rows * ow)
/// without its unit image dim. With blocks, one `scf.forall` over (image,
/// block); without, an `scf.for` over the images, so that one image's
/// patches are alive at a time.
static Value im2colLoops(
    OpBuilder &b, Location loc, Value result, int64_t oh, int64_t ow,
    int64_t rows,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value)> block) {
  auto type = cast<RankedTensorType>(result.getType());
  int64_t n = type.getDimSize(0), rank = type.getRank();
  int64_t pb = rows ? rows * ow : oh * ow;
  SmallVector<int64_t> accShape(type.getShape().drop_front());
  accShape.back() = pb;
  auto accType = RankedTensorType::get(accShape, type.getElementType());
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  for (int64_t d : accShape)
    sizes.push_back(b.getIndexAttr(d));
  SmallVector<OpFoldResult> unit(rank, b.getIndexAttr(1));
  auto offsets = [&](Value i, OpFoldResult col) {
    SmallVector<OpFoldResult> o(rank, b.getIndexAttr(0));
    o.front() = i;
    o.back() = col;
    return o;
  };
  if (rows) {
    OpBuilder::InsertionGuard guard(b);
    auto [forall, i, blk, into] =
        imageBlockLoop(b, loc, n, oh / rows, result);
    AffineExpr d0 = b.getAffineDimExpr(0);
    Value row = affine::AffineApplyOp::create(b, loc, d0 * rows, blk);
    OpFoldResult col =
        affine::makeComposedFoldedAffineApply(b, loc, d0 * pb, {blk});
    Value acc = tensor::ExtractSliceOp::create(b, loc, accType, into,
                                               offsets(i, col), sizes, unit);
    Value product = block(b, loc, i, row, acc);
    b.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, product, into,
                                          offsets(i, col), sizes, unit);
    return forall.getResult(0);
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto image = [&](OpBuilder &ib, Location l, Value i, Value into) -> Value {
    OpFoldResult col = ib.getIndexAttr(0);
    Value acc = tensor::ExtractSliceOp::create(ib, l, accType, into,
                                               offsets(i, col), sizes, unit);
    Value product = block(ib, l, i, zero, acc);
    return tensor::InsertSliceOp::create(ib, l, product, into,
                                         offsets(i, col), sizes, unit);
  };
  if (n == 1) {
    // One image: its accumulator is `result` without the unit image dim,
    // a reshape rather than a slice. (The slice and its write-back into
    // the zero fill were an extract/insert pair that CSE shared between
    // same-shaped convolutions; one-shot-bufferize then copied the fill,
    // serially, for each: MobileNetV2 0.95x at 1 and 2 threads without
    // them, docs/cpu.md.)
    SmallVector<ReassociationIndices> groups = {{0, 1}};
    for (int64_t d = 2; d < rank; ++d)
      groups.push_back({d});
    Value acc =
        tensor::CollapseShapeOp::create(b, loc, accType, result, groups);
    Value product = block(b, loc, zero, zero, acc);
    return tensor::ExpandShapeOp::create(b, loc, type, product, groups);
  }
  return scf::ForOp::create(
             b, loc, zero, arith::ConstantIndexOp::create(b, loc, n),
             arith::ConstantIndexOp::create(b, loc, 1), ValueRange{result},
             [&](OpBuilder &ib, Location l, Value i, ValueRange args) {
               scf::YieldOp::create(ib, l, image(ib, l, i, args.front()));
             })
      .getResult(0);
}

/// The input rows that `rows` output rows (all `oh` rows when 0) of a
/// window op read, from output row `row` on, of image `i`: a slice of
/// `input` (N, ..., H, W), the input of `patchesByTaps`.
static Value inputRows(OpBuilder &b, Location loc, Value input, Value i,
                       Value row, int64_t rows, int64_t kh,
                       ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  int64_t inRows = rows ? (rows - 1) * strides[0] + (kh - 1) * dilations[0] + 1
                        : type.getDimSize(rank - 2);
  AffineExpr d0 = b.getAffineDimExpr(0);
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets.front() = i;
  offsets[rank - 2] =
      affine::makeComposedFoldedAffineApply(b, loc, d0 * strides[0], {row});
  SmallVector<int64_t> shape(type.getShape());
  shape.front() = 1;
  shape[rank - 2] = inRows;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : shape)
    sizes.push_back(b.getIndexAttr(d));
  SmallVector<OpFoldResult> unit(rank, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), input,
      offsets, sizes, unit);
}

/// The im2col patches of one block of a convolution (`rows` output rows
/// from `row` on of image `i`; `rows` 0: all `oh`), collapsed to `type`
/// by `groups`: the input rows the block's taps read (`inputRows`), filled
/// tap by tap (`patchesByTaps`) into (1, `lead`..., KH, KW, rows, OW).
static Value blockPatches(OpBuilder &b, Location loc, Value input, Value i,
                          Value row, int64_t rows, int64_t oh, int64_t ow,
                          ArrayRef<int64_t> lead, int64_t kh, int64_t kw,
                          ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> dilations, RankedTensorType type,
                          ArrayRef<ReassociationIndices> groups) {
  Value slice =
      inputRows(b, loc, input, i, row, rows, kh, strides, dilations);
  SmallVector<int64_t> plane = {1};
  plane.append(lead.begin(), lead.end());
  plane.append({rows ? rows : oh, ow});
  Value cols = patchesByTaps(
      b, loc, slice, RankedTensorType::get(plane, type.getElementType()), kh,
      kw, strides, dilations);
  return tensor::CollapseShapeOp::create(b, loc, type, cols, groups);
}

/// conv_2d_nchw_fchw as im2col plus a matmul. The patches (C, KH, KW, OH,
/// OW) are collapsed for free to a K x P matrix (K = C*KH*KW, P = OH*OW).
/// The matmul is F x K times K x P, or, when P tiles badly into vectors
/// or K > F, and F tiles well, the transposed product P x F: the patches
/// read transposed (a register tile's rows are consecutive columns of the
/// patches) times the filter packed at compile time into column panels,
/// followed by one transposing add into the result (a write, into a
/// zero-filled one).
///
/// Where the patches are much larger than the filter (the early layers of
/// a network: ResNet-18's stem fills 7.4 MB of patches an image for a
/// 38 KB filter), the product is the transposed one and threads are on,
/// the output rows are cut into blocks (`blockRows`), and one
/// `scf.forall` over (image, block) fills each
/// block's patches and multiplies them: the patches of a block stay in L2
/// between the fill and the product, a temporary holds one block instead
/// of every image's patches, and the fill and the product share one
/// parallel region. Otherwise, one image at a time (an `scf.for` over the
/// batch), its product spread over threads by the contraction strategy.
/// Upstream's rewriteInIm2Col builds a batched generic contraction
/// instead, which its vectorizer does not turn into the register-tiled
/// matmul this pass emits.
static LogicalResult convToIm2colMatmul(RewriterBase &rewriter,
                                        linalg::Conv2DNchwFchwOp conv,
                                        int64_t tileM, int64_t tileN,
                                        bool blocks) {
  FailureOr<std::array<RankedTensorType, 3>> types = staticWindowTypes(conv);
  if (failed(types))
    return failure();
  auto [inType, fType, outType] = *types;
  SmallVector<int64_t> strides =
      llvm::to_vector(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations =
      llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t n = inType.getDimSize(0), c = inType.getDimSize(1);
  int64_t f = fType.getDimSize(0), kh = fType.getDimSize(2),
          kw = fType.getDimSize(3);
  int64_t oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  int64_t k = c * kh * kw, p = oh * ow;
  Type et = outType.getElementType();
  Location loc = conv.getLoc();
  MLIRContext *ctx = conv.getContext();
  rewriter.setInsertionPoint(conv);
  Value filter2d = tensor::CollapseShapeOp::create(
      rewriter, loc, conv.getInputs()[1],
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  auto tiles = [&](int64_t cols) { return cols % 16 == 0; };
  // The transposed product's filter, packed at compile time into panels
  // of `panel` output channels: panels[j, k, l] = filter[j * panel + l, k].
  Value panels;
  int64_t panel = f % tileN == 0 ? tileN : 16;
  if ((!tiles(p) || k > f) && tiles(f) && isa<FloatType>(et))
    panels = lowering::permutedConstant(rewriter, loc, filter2d,
                                        {f / panel, panel, k}, {0, 2, 1},
                                        "panels");
  bool transposed = bool(panels);
  // Blocks of whole register tiles (tile-m rows), for the transposed
  // product only. The plain one in blocks (a vector of columns each) made
  // MobileNetV2, whose pointwise convolutions take it, 2x slower (10.8 ->
  // 20 ms, 2 threads), though one such convolution alone ran at the same
  // speed; not investigated further.
  int64_t rows = blocks && transposed && n > 0 && k > 0
                     ? blockRows(k, f, oh, ow, tileM)
                     : 0;
  int64_t pb = rows ? rows * ow : p; // output columns per product

  // A zero-filled output (every convolution the lowering builds): the
  // transposed product writes its blocks rather than adding them to
  // zeros, and the fill, a pass over the whole output, goes away.
  Value init = conv.getOutputs()[0];
  Value unfilled = transposed ? lowering::zeroFilledDestination(init) : Value();
  bool overwrite = bool(unfilled);
  if (overwrite)
    init = unfilled;
  // The product of one block: `img` (its K x pb patches) into `acc`
  // (F x pb).
  auto product = [&](OpBuilder &b, Location l, Value img, Value acc) {
    if (!transposed)
      return linalg::MatmulOp::create(b, l, TypeRange{acc.getType()},
                                      ValueRange{filter2d, img},
                                      ValueRange{acc})
          .getResult(0);
    // pt[q, j, l] += img[k, q] * panels[j, k, l] over (q, j, l, k): the
    // pb x F product, then written (`overwrite`) or added into the F x pb
    // block of the output.
    auto ptType = RankedTensorType::get({pb, f / panel, panel}, et);
    Value zero = arith::ConstantOp::create(b, l, b.getZeroAttr(et));
    Value zeros =
        linalg::FillOp::create(
            b, l, zero,
            ValueRange{tensor::EmptyOp::create(b, l, ptType.getShape(), et)})
            .getResult(0);
    Value pt =
        panelContraction(b, l, img, panels, zeros, /*lhsTransposed=*/true)
            .getResult(0);
    Value pf = tensor::CollapseShapeOp::create(
        b, l, RankedTensorType::get({pb, f}, et), pt,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    AffineExpr e0, e1;
    bindDims(ctx, e0, e1);
    return linalg::GenericOp::create(
               b, l, acc.getType(), pf, acc,
               ArrayRef<AffineMap>{AffineMap::get(2, 0, {e1, e0}, ctx),
                                   b.getMultiDimIdentityMap(2)},
               SmallVector<utils::IteratorType>(2,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 linalg::YieldOp::create(
                     nb, nl,
                     overwrite ? args[0]
                               : arith::AddFOp::create(nb, nl, args[1], args[0])
                                     .getResult());
               })
        .getResult(0);
  };
  SmallVector<ReassociationIndices> outGroups = {{0}, {1}, {2, 3}};
  Value result =
      tensor::CollapseShapeOp::create(rewriter, loc, init, outGroups);
  result = im2colLoops(
      rewriter, loc, result, oh, ow, rows,
      [&](OpBuilder &b, Location l, Value i, Value row, Value acc) {
        Value img = blockPatches(
            b, l, conv.getInputs()[0], i, row, rows, oh, ow, {c}, kh, kw,
            strides, dilations, RankedTensorType::get({k, pb}, et),
            {{0, 1, 2, 3}, {4, 5}});
        return product(b, l, img, acc);
      });
  Value out = tensor::ExpandShapeOp::create(rewriter, loc, outType, result,
                                            outGroups);
  rewriter.replaceOp(conv, out);
  return success();
}

/// The loops of a grouped im2col convolution in blocks of `gb` whole
/// groups: one `scf.forall` over (image, block) that fills the block's
/// patches from its groups' input channels (`input`: N, G, Cg, H, W) and
/// multiplies them by its groups' filters (`filter`: G, Fg, K) into
/// `result` (N, G, Fg, P), which it returns.
static Value groupBlockLoops(OpBuilder &b, Location loc, Value input,
                             Value filter, Value result, int64_t gb,
                             int64_t kh, int64_t kw, int64_t oh, int64_t ow,
                             ArrayRef<int64_t> strides,
                             ArrayRef<int64_t> dilations) {
  auto inType = cast<RankedTensorType>(input.getType());
  auto fType = cast<RankedTensorType>(filter.getType());
  auto outType = cast<RankedTensorType>(result.getType());
  Type et = outType.getElementType();
  int64_t n = outType.getDimSize(0), g = outType.getDimSize(1),
          fg = outType.getDimSize(2), p = outType.getDimSize(3);
  int64_t cg = inType.getDimSize(2), k = fType.getDimSize(2);
  OpBuilder::InsertionGuard guard(b);
  auto [forall, i, blk, into] = imageBlockLoop(b, loc, n, g / gb, result);
  AffineExpr d0 = b.getAffineDimExpr(0);
  Value g0 = affine::AffineApplyOp::create(b, loc, d0 * gb, blk);
  auto attrs = [&](ArrayRef<int64_t> v) {
    return getAsIndexOpFoldResult(b.getContext(), v);
  };
  // The block's input channels: (1, gb, Cg, H, W).
  SmallVector<int64_t> inShape(inType.getShape());
  inShape[0] = 1;
  inShape[1] = gb;
  SmallVector<OpFoldResult> inOffsets = attrs({0, 0, 0, 0, 0});
  inOffsets[0] = i;
  inOffsets[1] = g0;
  Value slice = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(inShape, et), input, inOffsets,
      attrs(inShape), attrs({1, 1, 1, 1, 1}));
  Value cols = patchesByTaps(
      b, loc, slice, RankedTensorType::get({1, gb, cg, oh, ow}, et), kh, kw,
      strides, dilations);
  Value patches = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({gb, k, p}, et), cols,
      SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}, {5, 6}});
  SmallVector<OpFoldResult> fOffsets = {g0, b.getIndexAttr(0),
                                        b.getIndexAttr(0)};
  Value filters = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({gb, fg, k}, fType.getElementType()),
      filter, fOffsets, attrs({gb, fg, k}), attrs({1, 1, 1}));
  SmallVector<OpFoldResult> outOffsets = {i, g0, b.getIndexAttr(0),
                                          b.getIndexAttr(0)};
  auto accType = RankedTensorType::get({gb, fg, p}, et);
  Value acc = tensor::ExtractSliceOp::create(b, loc, accType, into, outOffsets,
                                             attrs({1, gb, fg, p}),
                                             attrs({1, 1, 1, 1}));
  Value product =
      linalg::BatchMatmulOp::create(b, loc, TypeRange{accType},
                                    ValueRange{filters, patches},
                                    ValueRange{acc})
          .getResult(0);
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, product, into, outOffsets,
                                        attrs({1, gb, fg, p}),
                                        attrs({1, 1, 1, 1}));
  return forall.getResult(0);
}

/// conv_2d_ngchw_gfchw (a grouped, not depthwise, convolution) as im2col
/// plus a batched matmul, the groups its batch: the patches (G, Cg, KH,
/// KW, OH, OW) of an image are filled tap by tap as for the plain
/// convolution (one vectorized copy of the strided input view per tap),
/// collapsed to G x Kg x P, and multiplied by the filter as G x Fg x Kg.
/// Blocks of output rows as for the plain convolution (`blockRows`, by a
/// group's filter: P at least 4 Fg) when `blocks`, else one image at a
/// time, the contraction strategy spreading the groups over threads. As a
/// convolution it ran as scalar loops on one thread (resnext's and
/// regnet's 3x3 layers).
static LogicalResult groupedConvToIm2colMatmul(RewriterBase &rewriter,
                                               linalg::Conv2DNgchwGfchwOp conv,
                                               int64_t vectorWidth,
                                               bool blocks) {
  FailureOr<std::array<RankedTensorType, 3>> types = staticWindowTypes(conv);
  if (failed(types))
    return failure();
  auto [inType, fType, outType] = *types;
  Type et = outType.getElementType();
  if (!isa<FloatType>(et) || inType.getElementType() != et ||
      fType.getElementType() != et)
    return failure();
  SmallVector<int64_t> strides =
      llvm::to_vector(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations =
      llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t n = inType.getDimSize(0), g = inType.getDimSize(1),
          cg = inType.getDimSize(2);
  int64_t fg = fType.getDimSize(1), kh = fType.getDimSize(3),
          kw = fType.getDimSize(4);
  int64_t oh = outType.getDimSize(3), ow = outType.getDimSize(4);
  int64_t k = cg * kh * kw, p = oh * ow;
  if (n == 0 || k == 0 || p == 0)
    return failure();
  // A group of at most 8 output channels (one register tile's rows) reads
  // its patches once, so they may take half of L2 rather than a quarter.
  int64_t budget = fg <= 8 ? 192 * 1024 : 96 * 1024;
  int64_t rows =
      blocks ? blockRows(g * k, fg, oh, ow, vectorWidth, budget) : 0;
  // Where no block of whole vectors of rows fits (resnext50's stride-2
  // entry to its second stage: 112-column blocks of 32 groups), blocks
  // of whole groups instead: the most groups whose patches fit the
  // budget, at least min(8, G) blocks an image.
  int64_t groupBlock = 0;
  if (blocks && !rows)
    for (int64_t d = g / std::min<int64_t>(8, g); d >= 1; --d)
      if (g % d == 0 && d * k * p <= budget) {
        groupBlock = d;
        break;
      }
  int64_t pb = rows ? rows * ow : p;
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Value filter = tensor::CollapseShapeOp::create(
      rewriter, loc, conv.getInputs()[1],
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3, 4}});
  SmallVector<ReassociationIndices> outGroups = {{0}, {1}, {2}, {3, 4}};
  Value result = tensor::CollapseShapeOp::create(
      rewriter, loc, conv.getOutputs()[0], outGroups);
  if (groupBlock) {
    result = groupBlockLoops(rewriter, loc, conv.getInputs()[0], filter,
                             result, groupBlock, kh, kw, oh, ow, strides,
                             dilations);
    rewriter.replaceOp(conv, tensor::ExpandShapeOp::create(
                                 rewriter, loc, outType, result, outGroups));
    return success();
  }
  result = im2colLoops(
      rewriter, loc, result, oh, ow, rows,
      [&](OpBuilder &b, Location l, Value i, Value row, Value acc) {
        Value img = blockPatches(
            b, l, conv.getInputs()[0], i, row, rows, oh, ow, {g, cg}, kh, kw,
            strides, dilations, RankedTensorType::get({g, k, pb}, et),
            {{0, 1}, {2, 3, 4}, {5, 6}});
        return linalg::BatchMatmulOp::create(b, l, TypeRange{acc.getType()},
                                             ValueRange{filter, img},
                                             ValueRange{acc})
            .getResult(0);
      });
  rewriter.replaceOp(conv, tensor::ExpandShapeOp::create(
                               rewriter, loc, outType, result, outGroups));
  return success();
}

/// A `tensor.pad` with a constant value and static shapes as a fill of the
/// padded tensor plus an elementwise copy of the source into its interior
/// (extracted from and inserted into the fill, so bufferization writes it
/// in place). The copy then takes the elementwise strategy: vectorized and
/// spread over threads. Bufferized as it is, the pad's copy was a strided
/// memref.copy, scalar loops on one thread (resnet18 pads 16 activations).
static LogicalResult padToFillAndCopy(RewriterBase &rewriter,
                                      tensor::PadOp pad) {
  RankedTensorType srcType = pad.getSourceType();
  RankedTensorType resultType = pad.getResultType();
  Value value = pad.getConstantPaddingValue();
  if (!value || !srcType.hasStaticShape() || !resultType.hasStaticShape() ||
      srcType.getRank() == 0 || pad.getNofold())
    return failure();
  SmallVector<int64_t> low;
  for (OpFoldResult l : pad.getMixedLowPad()) {
    std::optional<int64_t> c = getConstantIntValue(l);
    if (!c || *c < 0)
      return failure();
    low.push_back(*c);
  }
  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(pad);
  Value filled = tensor::EmptyOp::create(
      rewriter, loc, resultType.getShape(), resultType.getElementType());
  int64_t rank = srcType.getRank();
  SmallVector<OpFoldResult> offsets, sizes,
      strides(rank, rewriter.getIndexAttr(1));
  for (int64_t d = 0; d < rank; ++d) {
    offsets.push_back(rewriter.getIndexAttr(low[d]));
    sizes.push_back(rewriter.getIndexAttr(srcType.getDimSize(d)));
  }
  // Only the border is filled; the copy below writes the interior. Per
  // padded dim d, the slabs before and after the source along d, over
  // the interior along the dims before d and the whole extent along the
  // dims after it, so that no two slabs overlap. (One fill of the whole
  // tensor, a memset on the calling thread, wrote every padded
  // activation twice: 11 MB a call for ResNet-18.)
  for (int64_t d = 0; d < rank; ++d) {
    int64_t src = srcType.getDimSize(d), out = resultType.getDimSize(d);
    for (auto [start, length] :
         {std::pair<int64_t, int64_t>{0, low[d]},
          std::pair<int64_t, int64_t>{low[d] + src, out - low[d] - src}}) {
      if (length <= 0)
        continue;
      SmallVector<OpFoldResult> slabOffsets(offsets.begin(),
                                            offsets.begin() + d);
      SmallVector<OpFoldResult> slabSizes(sizes.begin(), sizes.begin() + d);
      SmallVector<int64_t> shape;
      for (int64_t e = 0; e < d; ++e)
        shape.push_back(srcType.getDimSize(e));
      slabOffsets.push_back(rewriter.getIndexAttr(start));
      slabSizes.push_back(rewriter.getIndexAttr(length));
      shape.push_back(length);
      for (int64_t e = d + 1; e < rank; ++e) {
        slabOffsets.push_back(rewriter.getIndexAttr(0));
        slabSizes.push_back(rewriter.getIndexAttr(resultType.getDimSize(e)));
        shape.push_back(resultType.getDimSize(e));
      }
      auto slabType =
          RankedTensorType::get(shape, resultType.getElementType());
      Value slab = tensor::ExtractSliceOp::create(
          rewriter, loc, slabType, filled, slabOffsets, slabSizes, strides);
      Value border =
          linalg::FillOp::create(rewriter, loc, value, slab).getResult(0);
      filled = tensor::InsertSliceOp::create(rewriter, loc, border, filled,
                                             slabOffsets, slabSizes, strides);
    }
  }
  Value interior = tensor::ExtractSliceOp::create(rewriter, loc, srcType,
                                                  filled, offsets, sizes,
                                                  strides);
  AffineMap id = rewriter.getMultiDimIdentityMap(rank);
  Value copied =
      linalg::GenericOp::create(
          rewriter, loc, srcType, pad.getSource(), interior,
          ArrayRef<AffineMap>{id, id},
          SmallVector<utils::IteratorType>(rank,
                                           utils::IteratorType::parallel),
          [](OpBuilder &b, Location l, ValueRange args) {
            linalg::YieldOp::create(b, l, args[0]);
          })
          .getResult(0);
  rewriter.replaceOpWithNewOp<tensor::InsertSliceOp>(pad, copied, filled,
                                                     offsets, sizes, strides);
  return success();
}

/// A window op's init when it is a `linalg.fill` of a constant: the
/// fill's destination and the constant. The taps generics below then start
/// their accumulator from the constant (cloned into the body) and write
/// into the destination, without reading the init: the same values, one
/// pass less over the output to fill and one less to read it back.
static std::optional<std::pair<Value, arith::ConstantOp>>
constantFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.hasPureTensorSemantics())
    return std::nullopt;
  auto constant = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
  // (A fill may cast its value to the element type; such a fill is read.)
  if (!constant || constant.getType() !=
                       getElementTypeOrSelf(fill.getOutputs()[0].getType()))
    return std::nullopt;
  return std::make_pair(fill.getOutputs()[0], constant);
}

/// A depthwise NCHW convolution as one elementwise generic over the output,
/// summing its taps: for each filter tap (kh, kw), the input view
/// `in[:, :, kh*dh :: sh, kw*dw :: sw]` (a strided slice of the output's
/// shape) times the tap's per-channel weight `w[:, kh, kw]`, in tap order
/// (the order of the scalar loops). Every indexing map is a projected
/// permutation, so the elementwise strategy vectorizes it along the output
/// width and spreads it over threads; as a convolution it ran as scalar
/// loops (5-18x torch's time on mobilenet_v2's layers). Filters with more
/// than 64 taps stay convolutions.
static LogicalResult depthwiseToTaps(RewriterBase &rewriter,
                                     linalg::DepthwiseConv2DNchwChwOp conv) {
  FailureOr<std::array<RankedTensorType, 3>> types = staticWindowTypes(conv);
  if (failed(types))
    return failure();
  auto [inType, fType, outType] = *types;
  Type et = outType.getElementType();
  if (!isa<FloatType, IntegerType>(et) || inType.getElementType() != et ||
      fType.getElementType() != et)
    return failure();
  SmallVector<int64_t> strides =
      llvm::to_vector(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations =
      llvm::to_vector(conv.getDilations().getValues<int64_t>());
  int64_t c = fType.getDimSize(0), kh = fType.getDimSize(1),
          kw = fType.getDimSize(2);
  if (kh * kw > 64 || kh * kw == 0)
    return failure();
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  SmallVector<Value> inputs = tapViews(rewriter, loc, conv.getInputs()[0],
                                       outType, kh, kw, strides, dilations);
  AffineMap id = rewriter.getMultiDimIdentityMap(4);
  SmallVector<AffineMap> maps(inputs.size(), id);
  AffineMap channel =
      AffineMap::get(4, 0, rewriter.getAffineDimExpr(1), rewriter.getContext());
  auto weightType = RankedTensorType::get({c}, et);
  for (int64_t i = 0; i < kh; ++i)
    for (int64_t j = 0; j < kw; ++j) {
      SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0),
                                           rewriter.getIndexAttr(i),
                                           rewriter.getIndexAttr(j)};
      SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(c),
                                         rewriter.getIndexAttr(1),
                                         rewriter.getIndexAttr(1)};
      SmallVector<OpFoldResult> steps(3, rewriter.getIndexAttr(1));
      inputs.push_back(tensor::ExtractSliceOp::create(
          rewriter, loc, weightType, conv.getInputs()[1], offsets, sizes,
          steps));
      maps.push_back(channel);
    }
  maps.push_back(id);
  int64_t taps = kh * kw;
  bool isFloat = isa<FloatType>(et);
  std::optional<std::pair<Value, arith::ConstantOp>> start =
      constantFill(conv.getOutputs()[0]);
  Value init = start ? start->first : conv.getOutputs()[0];
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{outType}, inputs, init, maps,
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value acc = start ? b.clone(*start->second)->getResult(0)
                          : args.back();
        for (int64_t t = 0; t < taps; ++t) {
          Value prod =
              isFloat ? arith::MulFOp::create(b, l, args[t], args[taps + t])
                            .getResult()
                      : arith::MulIOp::create(b, l, args[t], args[taps + t])
                            .getResult();
          acc = isFloat ? arith::AddFOp::create(b, l, acc, prod).getResult()
                        : arith::AddIOp::create(b, l, acc, prod).getResult();
        }
        linalg::YieldOp::create(b, l, acc);
      });
  rewriter.replaceOp(conv, generic.getResults());
  return success();
}

/// 2-D NCHW pooling (max or sum) the same way as depthwise convolutions:
/// one elementwise generic folding the strided views of its window taps
/// into the init with the pooling op's own payload (cloned, so max keeps
/// its NaN and integer semantics), in the window loops' order.
template <typename PoolOp>
static LogicalResult poolingToTaps(RewriterBase &rewriter, PoolOp pool) {
  FailureOr<std::array<RankedTensorType, 3>> types = staticWindowTypes(pool);
  if (failed(types))
    return failure();
  auto [inType, windowType, outType] = *types;
  if (windowType.getRank() != 2 ||
      inType.getElementType() != outType.getElementType())
    return failure();
  int64_t kh = windowType.getDimSize(0), kw = windowType.getDimSize(1);
  if (kh * kw > 64 || kh * kw == 0)
    return failure();
  Block &payload = pool->getRegion(0).front();
  // The body reads the input element and the accumulator only.
  if (payload.getNumArguments() != 3 || !payload.getArgument(1).use_empty())
    return failure();
  SmallVector<int64_t> strides =
      llvm::to_vector(pool.getStrides().template getValues<int64_t>());
  SmallVector<int64_t> dilations =
      llvm::to_vector(pool.getDilations().template getValues<int64_t>());
  Location loc = pool.getLoc();
  rewriter.setInsertionPoint(pool);
  SmallVector<Value> views = tapViews(rewriter, loc, pool.getInputs()[0],
                                      outType, kh, kw, strides, dilations);
  AffineMap id = rewriter.getMultiDimIdentityMap(4);
  SmallVector<AffineMap> maps(views.size() + 1, id);
  std::optional<std::pair<Value, arith::ConstantOp>> start =
      constantFill(pool.getOutputs()[0]);
  Value init = start ? start->first : pool.getOutputs()[0];
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{outType}, views, init, maps,
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value acc = start ? b.clone(*start->second)->getResult(0)
                          : args.back();
        for (size_t t = 0; t + 1 < args.size(); ++t) {
          IRMapping mapping;
          mapping.map(payload.getArgument(0), args[t]);
          mapping.map(payload.getArgument(2), acc);
          for (Operation &op : payload.without_terminator())
            b.clone(op, mapping);
          acc = mapping.lookupOrDefault(
              payload.getTerminator()->getOperand(0));
        }
        linalg::YieldOp::create(b, l, acc);
      });
  rewriter.replaceOp(pool, generic.getResults());
  return success();
}

/// Named ops (convolutions, pooling, contractions) with dynamic loop bounds
/// (a model traced with a dynamic batch) run one index of each dynamic dim
/// at a time: tiled by 1 there (an scf.for, so that the tile keeps the
/// threads of the strategy below), their tile is statically shaped and goes
/// through the strategy like any static op. A dynamic reduction dim (the
/// keys of attention's `att @ v` over a growing sequence) is tiled by 1 too:
/// the loop carries the output, and each step is a static contraction that
/// vectorizes over the static dims (upstream's scalar loops took 1.5x as
/// long on a decode step at 900 tokens of past, 2x on a 128-token prefill;
/// bench/llm.py --model tiny). Generics are left to upstream's loops (peeled
/// too, resnet18's took one-shot-bufferize from 3 s to 37 s for 7% less run
/// time).
/// The named ops (not fills or generics) of `func` with a dynamic loop dim.
static SmallVector<linalg::LinalgOp> dynamicNamedOps(func::FuncOp func) {
  SmallVector<linalg::LinalgOp> ops;
  func.walk([&](linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics() || isa<linalg::FillOp>(op) ||
        isa<linalg::GenericOp>(op))
      return;
    if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
      ops.push_back(op);
  });
  return ops;
}

/// Canonicalizes `func` (after blockDynamicDims: the blocks' slices get
/// their static sizes, and the contractions in them static types).
static void canonicalizeFunction(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  (void)applyPatternsGreedily(func, std::move(patterns));
}

/// Elements of a dynamic dim of a contraction taken at a time: enough for
/// the register tiles to reuse each loaded row and column, few enough that a
/// short sequence loses little to the remainder.
static constexpr int64_t kDynamicBlock = 16;

/// The dims a remainder loop's op was peeled along (blockDynamicDims marks
/// them so that they are not blocked again; removed at the end).
static constexpr llvm::StringLiteral kPeeledAttr = "traced.cpu.peeled";

/// A contraction with dynamic dims (a prefill's tokens: its rows; a growing
/// past: attention's columns in q @ k^T and its reduction in att @ v) runs
/// blocks of kDynamicBlock statically shaped elements of each, and
/// remainder loops of what is left over (peeled off, tiled by 1 below): the
/// blocks get the full GEMM strategy instead of one tiny product per index.
/// The first M, then N, then K dim is blocked. Returns whether any was.
static bool blockDynamicDims(RewriterBase &rewriter, func::FuncOp func) {
  bool blocked = false;
  for (int kind = 0; kind < 3; ++kind) {
    bool now = false;
    for (linalg::LinalgOp op : dynamicNamedOps(func)) {
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(op);
      if (failed(dims))
        continue;
      const SmallVector<unsigned, 2> &of =
          kind == 0 ? dims->m : kind == 1 ? dims->n : dims->k;
      if (of.empty())
        continue;
      unsigned d = of.front();
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      SmallVector<int64_t> peeled;
      if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(kPeeledAttr))
        peeled.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
      if (!ShapedType::isDynamic(ranges[d]) || llvm::is_contained(peeled, d))
        continue;
      SmallVector<OpFoldResult> sizes(ranges.size(), rewriter.getIndexAttr(0));
      sizes[d] = rewriter.getIndexAttr(kDynamicBlock);
      scf::SCFTilingOptions options;
      options.setTileSizes(sizes);
      rewriter.setInsertionPoint(op);
      FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
      if (failed(tiled) || tiled->loops.size() != 1)
        continue;
      rewriter.replaceOp(op, tiled->replacements);
      auto loop = dyn_cast<scf::ForOp>(tiled->loops.front().getOperation());
      scf::ForOp rest;
      if (!loop ||
          failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, rest)))
        continue;
      now = blocked = true;
      peeled.push_back(d);
      rest.walk([&](linalg::LinalgOp inner) {
        inner->setAttr(kPeeledAttr, rewriter.getDenseI64ArrayAttr(peeled));
      });
      loop.walk([&](linalg::LinalgOp inner) {
        inner->setAttr(kPeeledAttr, rewriter.getDenseI64ArrayAttr(peeled));
      });
    }
    if (now)
      canonicalizeFunction(func);
  }
  func.walk([](linalg::LinalgOp op) { op->removeAttr(kPeeledAttr); });
  return blocked;
}

/// Attention over a growing past is one contraction per head (q @ k^T and
/// att @ v with a static batch of heads and dynamic rows, columns or
/// reduction): with threads, the heads are spread over them first, one
/// per scf.forall iteration, and the blocks of the dynamic dims run within
/// (their tiles are too small for a parallel region of their own: a decode
/// step's ran on one thread of two).
static void spreadDynamicBatches(RewriterBase &rewriter, func::FuncOp func) {
  for (linalg::LinalgOp op : dynamicNamedOps(func)) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || inParallelLoop(op))
      continue;
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    auto batch = llvm::find_if(dims->batch, [&](unsigned d) {
      return !ShapedType::isDynamic(bounds[d]) && bounds[d] >= 2;
    });
    if (batch == dims->batch.end())
      continue;
    SmallVector<int64_t> threadTiles(bounds.size(), 0);
    threadTiles[*batch] = 1;
    (void)tileOnly(rewriter, op, threadTiles, {}, /*forall=*/true,
                   /*wholeDynamicDims=*/true);
  }
}

static void peelDynamicDims(RewriterBase &rewriter, func::FuncOp func,
                            bool parallel) {
  if (parallel)
    spreadDynamicBatches(rewriter, func);
  blockDynamicDims(rewriter, func);
  for (linalg::LinalgOp op : dynamicNamedOps(func)) {
    SmallVector<OpFoldResult> sizes;
    for (int64_t range : op.getStaticLoopRanges())
      sizes.push_back(rewriter.getIndexAttr(ShapedType::isDynamic(range)));
    scf::SCFTilingOptions options;
    options.setTileSizes(sizes);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (succeeded(tiled))
      rewriter.replaceOp(op, tiled->replacements);
  }
}

/// Whether a 2-D pooling runs faster as taps (`poolingToTaps`) than as the
/// loops of convert-linalg-to-loops, which LLVM vectorizes along the output
/// width with interleaved loads. Measured on 1-thread runs (docs/cpu.md,
/// "2-D pooling"): loops win on windows of one row with a stride (1-D
/// pooling, 1.4-1.7x; a tie at stride 1) and on windows that do not overlap
/// along the width (2x2/2: 1.3-2x), where those loads read each input
/// element once; taps win on overlapping windows of two rows or more (2x2/1:
/// 2.6x, 3x3/2: 1.7x, 5x5/1: 1.3x; 3x3/1 is the exception, 13% slower).
template <typename PoolOp>
static bool tapsPay(PoolOp pool) {
  auto window = dyn_cast<RankedTensorType>(pool.getInputs()[1].getType());
  if (!window || !window.hasStaticShape() || window.getRank() != 2)
    return false;
  int64_t kh = window.getDimSize(0), kw = window.getDimSize(1);
  int64_t sw = *std::next(pool.getStrides().template value_begin<int64_t>());
  int64_t dw =
      *std::next(pool.getDilations().template value_begin<int64_t>());
  return kh > 1 && (kw - 1) * dw + 1 > sw;
}

/// 2-D pooling left to convert-linalg-to-loops (LLVM vectorizes the
/// output-width loop), spread over threads along one of (N, C, OH).
static void poolingLoops(RewriterBase &rewriter, linalg::LinalgOp pool,
                         bool parallel) {
  if (!parallel || inParallelLoop(pool) || !pool.hasPureTensorSemantics())
    return;
  SmallVector<int64_t> bounds = pool.getStaticLoopRanges();
  std::optional<unsigned> chosen = threadDim(bounds, {0, 1, 2});
  if (!chosen)
    return;
  SmallVector<int64_t> tiles(bounds.size(), 0);
  tiles[*chosen] = 1;
  (void)tileOnly(rewriter, pool, tiles, {}, /*forall=*/true);
}

/// Reductions (a layer norm's mean and variance, a softmax's max and sum,
/// global pooling, `sum`/`mean`/`amax` ops): a generic with reduction
/// loops and projected-permutation maps. By the loop that walks its first
/// input's innermost (contiguous) dim:
/// - a reduction loop (reducing along rows): each output element is
///   reduced in chunks of up to 256 elements, one vector each (a
///   `vector.multi_reduction`, lowered to a tree of vector ops), into an
///   accumulator kept in a register along the chunk loop;
/// - a parallel loop (reducing across rows): `vector-width` outputs at a
///   time, the reduction loops innermost, one vector op per step into an
///   accumulator vector kept in registers.
/// The parallel loops around are spread over threads as for elementwise
/// ops. A reduced or vector dim that no chunk divides is split into a
/// whole number of chunks and a remainder. Before, reductions were
/// `convert-linalg-to-loops`' scalar loops, which LLVM's loop vectorizer
/// turned into gathers and scatters across rows (ViT's forward function
/// was 1.3 MB of code).
static void reductionStrategy(RewriterBase &rewriter, linalg::GenericOp op,
                              bool parallel, int64_t vectorWidth) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (llvm::any_of(bounds, ShapedType::isDynamic) || op.getNumDpsInputs() == 0)
    return;
  AffineMap firstMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  if (firstMap.getNumResults() == 0)
    return;
  auto innerExpr = dyn_cast<AffineDimExpr>(firstMap.getResults().back());
  if (!innerExpr)
    return;
  unsigned inner = innerExpr.getPosition();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  bool alongRows = iterators[inner] == utils::IteratorType::reduction;
  // The vector dim's step: a chunk of the reduced dim, or one vector of
  // outputs. A dim that no multiple of 16 (the vector width) up to the
  // limit divides is split first.
  int64_t limit = alongRows ? 256 : vectorWidth;
  int64_t bound = bounds[inner];
  if (bound > limit && !largestDivisor(bound, limit, vectorWidth)) {
    rewriter.setInsertionPoint(op);
    auto [whole, rest] = linalg::splitOp(
        rewriter, cast<TilingInterface>(op.getOperation()), inner,
        rewriter.getIndexAttr(bound / limit * limit));
    if (!whole || !rest)
      return;
    for (TilingInterface part : {whole, rest})
      if (auto generic = dyn_cast<linalg::GenericOp>(part.getOperation()))
        reductionStrategy(rewriter, generic, parallel, vectorWidth);
    return;
  }
  int64_t step = bound <= limit ? bound : largestDivisor(bound, limit,
                                                         vectorWidth);
  // Loops: the parallel ones outermost (a vector of outputs last), then
  // the reductions (the chunked one last). The outer parallel ones are the
  // candidates for threads.
  SmallVector<unsigned> outer, reduced;
  for (unsigned d = 0; d < bounds.size(); ++d)
    if (d != inner)
      (iterators[d] == utils::IteratorType::parallel ? outer : reduced)
          .push_back(d);
  SmallVector<int64_t> order(outer.begin(), outer.end());
  if (!alongRows)
    order.push_back(inner);
  order.append(reduced.begin(), reduced.end());
  if (alongRows)
    order.push_back(inner);
  if (parallel) {
    if (std::optional<unsigned> d = threadDim(bounds, outer)) {
      SmallVector<int64_t> threadTiles(bounds.size(), 0);
      threadTiles[*d] = 1;
      FailureOr<linalg::LinalgOp> tile =
          tileOnly(rewriter, op, threadTiles, {}, /*forall=*/true);
      if (failed(tile) || !isa<linalg::GenericOp>(tile->getOperation()))
        return;
      op = cast<linalg::GenericOp>(tile->getOperation());
    }
  }
  SmallVector<int64_t> sizes(bounds.size(), 1);
  sizes[inner] = step;
  (void)tileAndVectorize(rewriter, op, sizes, order);
}

/// Register tile: rows any divisor <= tile-m. Fewer rows than tile-m / 2
/// (a grouped convolution's 4 output channels a group) take
/// proportionally more columns, up to 4 x tile-n, so that the tile still
/// holds about tile-m x tile-n accumulators and each broadcast of the
/// left-hand side feeds several FMAs.
int64_t TileAndVectorizePass::rowTile(
    linalg::LinalgOp op, const linalg::ContractionDimensions &dims) const {
  if (dims.m.empty())
    return 1;
  return largestDivisor(op.getStaticLoopRanges()[dims.m.back()], tileM, 1);
}

int64_t TileAndVectorizePass::columnTile(int64_t rows) const {
  return rows > 0 && 2 * rows <= tileM
             ? tileN * std::min<int64_t>(4, tileM / rows)
             : tileN;
}

/// The register tile's columns for `bound` columns and a tile of `rows`:
/// the widest power-of-two number of vectors up to the column tile and
/// `bound` (LLVM splits a vector<64xf32> into four registers, but turns a
/// vector<48xf32> or vector<28xf32> into lanes and shuffles); 0 when
/// `bound` is less than a vector.
int64_t TileAndVectorizePass::vectorColumns(int64_t bound, int64_t rows) const {
  int64_t limit = std::min(columnTile(rows), bound), t = 0;
  for (int64_t w = vectorWidth; w <= limit; w *= 2)
    t = w;
  return t;
}

/// Columns: that tile where it divides them (it does after the split;
/// below a vector, any divisor). Column strips outermost: one K x tile-n
/// strip of the right-hand side stays in cache while every row tile of
/// the left-hand side passes by; the reduction innermost, so the
/// accumulator tile stays in registers.
/// One row (a decode step's query: M = 1, or no M dim) against a
/// right-hand side read along the reduction dim (its last index, unit
/// stride: the keys of q @ k^T in a (tokens, head dim) cache), which is not
/// a packed constant. The register tile's vectors would run along the
/// columns and load each from another row, one element at a time (5x the
/// time of a dot product on a decode step's 900 keys); instead each tile
/// is a few columns by the whole reduction (up to kRowDotMaxK elements,
/// whole vectors), lowered by ContractToRowDots to a product and one
/// reduction per output element.
bool TileAndVectorizePass::rowDotTile(linalg::LinalgOp op,
                                      const linalg::ContractionDimensions &dims,
                                      SmallVector<int64_t> &sizes,
                                      SmallVector<int64_t> &order) const {
  constexpr int64_t kRowDotColumns = 4, kRowDotMaxK = 512;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (dims.k.size() != 1 || dims.n.size() != 1 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 ||
      llvm::any_of(dims.m, [&](unsigned d) { return bounds[d] != 1; }))
    return false;
  unsigned k = dims.k.front(), n = dims.n.front();
  if (bounds[k] < vectorWidth || bounds[k] % vectorWidth)
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto lastIs = [&](AffineMap map, unsigned d) {
    return map.getNumResults() > 0 &&
           map.getResults().back() == getAffineDimExpr(d, op.getContext());
  };
  // Both inputs read along k, the output along n; the one indexed by n
  // (the right-hand side) not a constant (those are packed into panels).
  unsigned rhs = llvm::any_of(maps[0].getResults(), [&](AffineExpr e) {
    return e == getAffineDimExpr(n, op.getContext());
  }) ? 0 : 1;
  if (!lastIs(maps[0], k) || !lastIs(maps[1], k) || !lastIs(maps[2], n) ||
      !isa<FloatType>(getElementTypeOrSelf(op.getDpsInits()[0].getType())) ||
      matchPattern(op.getDpsInputs()[rhs], m_Constant()))
    return false;
  sizes[n] = largestDivisor(bounds[n], kRowDotColumns, 1);
  sizes[k] = largestDivisor(bounds[k], kRowDotMaxK, vectorWidth);
  order.clear();
  for (auto group : {dims.batch, dims.m, dims.n, dims.k})
    order.append(group.begin(), group.end());
  if (order.size() != op.getNumLoops())
    order.clear();
  return true;
}

void TileAndVectorizePass::registerTile(linalg::LinalgOp op,
                                        const linalg::ContractionDimensions &dims,
                                        SmallVector<int64_t> &sizes,
                                        SmallVector<int64_t> &order) const {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  sizes.assign(op.getNumLoops(), 1);
  if (rowDotTile(op, dims, sizes, order))
    return;
  int64_t rows = rowTile(op, dims);
  if (!dims.m.empty())
    sizes[dims.m.back()] = rows;
  if (!dims.n.empty()) {
    unsigned d = dims.n.back();
    int64_t t = vectorColumns(bounds[d], rows);
    if (!t || bounds[d] % t)
      t = largestDivisor(bounds[d], columnTile(rows), vectorWidth);
    sizes[d] = t ? t : largestDivisor(bounds[d], tileN, 1);
  }
  order.clear();
  for (auto group : {dims.batch, dims.n, dims.m, dims.k})
    order.append(group.begin(), group.end());
  if (order.size() != op.getNumLoops())
    order.clear();
}

/// Splits every contraction along one dim where `at` says (it returns the
/// split point and sets the dim; 0: no split), each part tiled on its
/// own; the rest is looked at again, so it may be split once more.
void TileAndVectorizePass::splitContractions(
    RewriterBase &rewriter, SmallVectorImpl<linalg::LinalgOp> &contractions,
    SplitPoint at) const {
  SmallVector<linalg::LinalgOp> worklist(contractions.rbegin(),
                                         contractions.rend());
  contractions.clear();
  while (!worklist.empty()) {
    linalg::LinalgOp op = worklist.pop_back_val();
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    unsigned d = 0;
    int64_t point = succeeded(dims) ? at(op, *dims, d) : 0;
    if (!point) {
      contractions.push_back(op);
      continue;
    }
    rewriter.setInsertionPoint(op);
    auto [whole, rest] = linalg::splitOp(
        rewriter, cast<TilingInterface>(op.getOperation()), d,
        rewriter.getIndexAttr(point));
    if (auto part = dyn_cast_or_null<linalg::LinalgOp>(
            whole ? whole.getOperation() : nullptr))
      contractions.push_back(part);
    if (auto part = dyn_cast_or_null<linalg::LinalgOp>(
            rest ? rest.getOperation() : nullptr))
      worklist.push_back(part);
  }
}

/// Splits contractions whose rows or columns no register tile divides
/// into a whole number of tiles and a rest, each tiled on its own.
void TileAndVectorizePass::splitForRegisterTiles(
    RewriterBase &rewriter,
    SmallVectorImpl<linalg::LinalgOp> &contractions) const {
  // Rows that no good register tile divides (ViT's 197 tokens: prime, so
  // one row per tile, a third of the FMA rate) are split into a whole
  // number of tile-m rows and a remainder. After packing, so the two share
  // one packed right-hand side.
  splitContractions(rewriter, contractions, [&](linalg::LinalgOp op,
                        const linalg::ContractionDimensions &dims,
                        unsigned &d) -> int64_t {
    if (dims.m.empty())
      return 0;
    d = dims.m.back();
    int64_t bound = op.getStaticLoopRanges()[d];
    if (ShapedType::isDynamic(bound) || bound <= tileM || bound % tileM == 0 ||
        2 * largestDivisor(bound, tileM, 1) >= tileM)
      return 0;
    return bound / tileM * tileM;
  });
  // Columns that are not a whole number of such tiles are split into as
  // many as fit and a rest, which is split the same way, down to a
  // remainder narrower than a vector; each part is tiled on its own.
  // Tiled whole, the columns took a divisor as the tile: 28 for a
  // convolution's P = 14 x 14 = 196 output pixels (resnext50's grouped
  // 3 x 3 convolutions on 14 x 14 ran at 6 GFLOP/s, 20x torch's time), or
  // 16 for 784 (half the accumulators).
  splitContractions(rewriter, contractions, [&](linalg::LinalgOp op,
                        const linalg::ContractionDimensions &dims,
                        unsigned &d) -> int64_t {
    if (dims.n.empty())
      return 0;
    d = dims.n.back();
    int64_t bound = op.getStaticLoopRanges()[d];
    if (ShapedType::isDynamic(bound))
      return 0;
    int64_t t = vectorColumns(bound, rowTile(op, dims));
    return t && bound % t ? bound / t * t : 0;
  });
}

/// Convolutions and pools to what the tiling below handles: padding as a
/// fill and a copy; Winograd or im2col for convolutions (grouped ones
/// too), taps for depthwise convolutions and pools, else loops.
void TileAndVectorizePass::rewriteConvolutionsAndPools(RewriterBase &rewriter,
                                                       func::FuncOp func) {
  {
    SmallVector<tensor::PadOp> pads;
    func.walk([&](tensor::PadOp op) { pads.push_back(op); });
    for (auto pad : pads)
      (void)padToFillAndCopy(rewriter, pad);
  }
  {
    // Winograd where it applies, else im2col. Blocks (of output rows, or
    // of tiles) go to threads only where the convolution pays for a
    // parallel region.
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    func.walk([&](linalg::Conv2DNchwFchwOp op) { convs.push_back(op); });
    for (auto conv : convs) {
      bool threads = parallel && loopFlops(conv) >= minParallelFlops;
      if (winograd && succeeded(convToWinograd(rewriter, conv,
                                               winogradMinChannels, threads)))
        continue;
      if (im2col)
        (void)convToIm2colMatmul(rewriter, conv, tileM, tileN, threads);
    }
  }
  if (im2col) {
    SmallVector<linalg::Conv2DNgchwGfchwOp> grouped;
    func.walk([&](linalg::Conv2DNgchwGfchwOp op) { grouped.push_back(op); });
    for (auto conv : grouped)
      (void)groupedConvToIm2colMatmul(
          rewriter, conv, vectorWidth,
          parallel && loopFlops(conv) >= minParallelFlops);
  }
  {
    SmallVector<linalg::DepthwiseConv2DNchwChwOp> convs;
    func.walk([&](linalg::DepthwiseConv2DNchwChwOp op) { convs.push_back(op); });
    for (auto conv : convs)
      (void)depthwiseToTaps(rewriter, conv);
    SmallVector<linalg::PoolingNchwMaxOp> maxPools;
    func.walk([&](linalg::PoolingNchwMaxOp op) { maxPools.push_back(op); });
    for (auto pool : maxPools)
      if (!tapsPay(pool) || failed(poolingToTaps(rewriter, pool)))
        poolingLoops(rewriter, pool, parallel);
    SmallVector<linalg::PoolingNchwSumOp> sumPools;
    func.walk([&](linalg::PoolingNchwSumOp op) { sumPools.push_back(op); });
    for (auto pool : sumPools)
      if (!tapsPay(pool) || failed(poolingToTaps(rewriter, pool)))
        poolingLoops(rewriter, pool, parallel);
  }
}

/// The ops the tiling handles, by kind.
void TileAndVectorizePass::collectOps(
    func::FuncOp func, SmallVectorImpl<linalg::LinalgOp> &contractions,
    SmallVectorImpl<linalg::LinalgOp> &elementwise,
    SmallVectorImpl<linalg::GenericOp> &reductions) const {
  func.walk([&](linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics() || isa<linalg::FillOp>(op))
      return;
    // An op with an empty iteration space (a zero-size tensor) does
    // nothing: left to convert-linalg-to-loops, whose loops never run.
    // Tile sizes are divisors of the trip counts, and 0 has none.
    if (llvm::is_contained(op.getStaticLoopRanges(), 0))
      return;
    if (linalg::isaContractionOpInterface(op)) {
      contractions.push_back(op);
      return;
    }
    if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) {
          return m.isProjectedPermutation(/*allowZeroInResults=*/true);
        }))
      return;
    if (isa<linalg::GenericOp, linalg::TransposeOp, linalg::CopyOp,
            linalg::BroadcastOp>(op) &&
        op.getNumReductionLoops() == 0 && op.getNumLoops() > 0)
      elementwise.push_back(op);
    else if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
             generic && op.getNumReductionLoops() > 0)
      reductions.push_back(generic);
  });
}

/// One contraction: cache blocks, threads where it pays, a packed
/// block's unit panel dim dropped, then the register tile, vectorized.
void TileAndVectorizePass::tileContraction(RewriterBase &rewriter,
                                           linalg::LinalgOp op) const {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return;
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  if (llvm::any_of(bounds, ShapedType::isDynamic))
    return;
  SmallVector<int64_t> sizes, order;
  registerTile(op, *dims, sizes, order);
  // Cache level first: blocks of kc reductions x mc rows x nc columns
  // (the left block, mc x kc, stays in L2 across the column strips),
  // each a whole number of register tiles.
  SmallVector<int64_t> outer(op.getNumLoops(), 1);
  if (!dims->m.empty()) {
    unsigned d = dims->m.back();
    // Up to 4 blocks' worth of rows make one block: the right-hand side
    // (a convolution's filter, larger than L2) is then streamed from
    // memory once instead of once per row block, while the left block
    // (at most 4 x block-m x block-k) still stays in L2.
    outer[d] = bounds[d] <= 4 * blockM
                   ? bounds[d]
                   : largestDivisor(bounds[d], blockM, sizes[d]);
  }
  if (!dims->n.empty()) {
    unsigned d = dims->n.back();
    outer[d] = largestDivisor(bounds[d], blockN, sizes[d]);
  }
  for (unsigned d : dims->k)
    outer[d] = largestDivisor(bounds[d], blockK, 1);
  SmallVector<int64_t> outerOrder;
  for (auto group : {dims->batch, dims->m, dims->k, dims->n})
    outerOrder.append(group.begin(), group.end());
  if (outerOrder.size() != op.getNumLoops())
    outerOrder.clear();
  // Threads: where the op is big enough to pay for a parallel region,
  // its cache blocks along one parallel dimension (batch, else rows, else
  // columns) are spread over threads (scf.forall, then OpenMP). Not
  // within a parallel loop already (a convolution's blocks).
  if (parallel && !inParallelLoop(op)) {
    int64_t flops = loopFlops(op);
    SmallVector<int64_t> threadTiles(op.getNumLoops(), 0);
    auto spread = [&](unsigned d, int64_t block) {
      if (bounds[d] / std::max<int64_t>(block, 1) < 2)
        return false;
      threadTiles[d] = block;
      return true;
    };
    bool chosen = false;
    for (unsigned d : dims->batch)
      if (!chosen)
        chosen = spread(d, 1);
    if (!chosen && !dims->m.empty())
      chosen = spread(dims->m.back(), outer[dims->m.back()]);
    // Columns, outermost first: a packed matmul's panel dimension (one
    // panel per cache block) comes before the columns within a panel,
    // which never make two blocks.
    for (unsigned d : dims->n)
      if (!chosen)
        chosen = spread(d, outer[d]);
    if (chosen && flops >= minParallelFlops) {
      FailureOr<linalg::LinalgOp> inner =
          tileOnly(rewriter, op, threadTiles, {}, /*forall=*/true);
      if (succeeded(inner))
        op = *inner;
    }
  }
  FailureOr<linalg::LinalgOp> block =
      tileOnly(rewriter, op, outer, outerOrder);
  if (succeeded(block))
    op = *block;
  // A packed matmul's block has a unit panel dimension (one column strip
  // per block): dropped, the block is a plain matmul-shaped contraction
  // over one contiguous panel, vectorized like any other.
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (generic && generic.getNumLoops() > 3 &&
      llvm::is_contained(generic.getStaticLoopRanges(), 1)) {
    linalg::ControlDropUnitDims control;
    control.rankReductionStrategy = linalg::ControlDropUnitDims::
        RankReductionStrategy::ExtractInsertSlice;
    rewriter.setInsertionPoint(generic);
    FailureOr<linalg::DropUnitDimsResult> dropped =
        linalg::dropUnitDims(rewriter, generic, control);
    if (succeeded(dropped)) {
      rewriter.replaceOp(generic, dropped->replacements);
      op = cast<linalg::LinalgOp>(dropped->resultOp.getOperation());
      // As a named linalg.matmul it vectorizes to one vector.contract
      // (a generic would become broadcasts and a multi-reduction).
      // LLVM 22's specializer turns a generic that reads its left-hand
      // side transposed ((k, m) x (k, n)) into an invalid linalg.matmul
      // with the default maps; that form is built here instead, as a
      // linalg.matmul with explicit maps (vectorized, like the plain
      // form, to one vector.contract).
      auto plain = dyn_cast<linalg::GenericOp>(op.getOperation());
      MLIRContext *ctx = op.getContext();
      AffineExpr m, n, k;
      bindDims(ctx, m, n, k);
      SmallVector<AffineMap> transposedA = {
          AffineMap::get(3, 0, {k, m}, ctx),
          AffineMap::get(3, 0, {k, n}, ctx),
          AffineMap::get(3, 0, {m, n}, ctx)};
      if (plain && plain.getIndexingMapsArray() == transposedA &&
          linalg::isaContractionOpInterface(plain)) {
        rewriter.setInsertionPoint(plain);
        SmallVector<Attribute> maps;
        for (AffineMap map : transposedA)
          maps.push_back(AffineMapAttr::get(map));
        auto named = linalg::MatmulOp::create(
            rewriter, plain.getLoc(), plain.getResultTypes(),
            plain.getDpsInputs(), plain.getDpsInits(),
            ArrayRef<NamedAttribute>{rewriter.getNamedAttr(
                "indexing_maps", rewriter.getArrayAttr(maps))});
        rewriter.replaceOp(plain, named->getResults());
        op = cast<linalg::LinalgOp>(named.getOperation());
      } else if (plain) {
        rewriter.setInsertionPoint(plain);
        FailureOr<linalg::LinalgOp> named =
            linalg::specializeGenericOp(rewriter, plain);
        if (succeeded(named))
          op = *named;
      }
      FailureOr<linalg::ContractionDimensions> newDims =
          linalg::inferContractionDims(op);
      if (failed(newDims))
        return; // left for convert-linalg-to-loops: still correct
      registerTile(op, *newDims, sizes, order);
    }
  }
  (void)tileAndVectorize(rewriter, op, sizes, order);
}

/// One elementwise op: threads over one dim, vectors along the last
/// (split into whole vectors and a remainder).
void TileAndVectorizePass::tileElementwise(RewriterBase &rewriter,
                                           linalg::LinalgOp op) const {
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  if (sizes.empty()) {
    (void)tileAndVectorize(rewriter, op, sizes);
    return;
  }
  sizes.back() = vectorWidth;
  // Threads: spread over one dim, never the vector one (`threadDim`),
  // one slice per forall iteration (scf.forall, then OpenMP, as for
  // contractions).
  if (parallel && !inParallelLoop(op)) {
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    SmallVector<unsigned> candidates =
        llvm::to_vector(llvm::seq<unsigned>(0, bounds.size() - 1));
    if (std::optional<unsigned> chosen = threadDim(bounds, candidates)) {
      SmallVector<int64_t> threadTiles(bounds.size(), 0);
      threadTiles[*chosen] = 1;
      FailureOr<linalg::LinalgOp> inner =
          tileOnly(rewriter, op, threadTiles, {}, /*forall=*/true);
      if (succeeded(inner))
        op = *inner;
    }
  }
  // A last dimension that is not a multiple of the vector width is split
  // into whole vectors and one shorter remainder: tiled whole, its tiles
  // would shrink to the largest divisor of the size (1 for 600,013
  // elements: scalar code, and polynomial math 14x slower).
  unsigned last = op.getNumLoops() - 1;
  int64_t bound = op.getStaticLoopRanges()[last];
  if (!ShapedType::isDynamic(bound) && bound > vectorWidth &&
      bound % vectorWidth &&
      op.getIteratorTypesArray()[last] == utils::IteratorType::parallel) {
    rewriter.setInsertionPoint(op);
    auto [whole, rest] = linalg::splitOp(
        rewriter, cast<TilingInterface>(op.getOperation()), last,
        rewriter.getIndexAttr(bound / vectorWidth * vectorWidth));
    if (whole && rest) {
      for (TilingInterface part : {whole, rest})
        if (auto linalgPart = dyn_cast<linalg::LinalgOp>(part.getOperation()))
          (void)tileAndVectorize(rewriter, linalgPart, sizes);
      return;
    }
  }
  (void)tileAndVectorize(rewriter, op, sizes);
}

/// Vector ops down to 1-D FMAs, loads and stores (see the body).
void TileAndVectorizePass::lowerVectorOps(func::FuncOp func) {
  // Vector ops down to 1-D FMAs, loads and stores: contractions become
  // outer products (one broadcast FMA per accumulator row), then n-D
  // transfers and elementwise ops are unrolled to rows.
  MLIRContext *ctx = &getContext();
  // (Without the driver's region simplification: the loops here are
  // structured, one block each, so it has nothing to erase or merge, and
  // walking vit_b_16's function for it was 0.17 s of this pass.)
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  auto apply = [&](function_ref<void(RewritePatternSet &)> populate) {
    RewritePatternSet patterns(ctx);
    populate(patterns);
    (void)applyPatternsGreedily(func, std::move(patterns), config);
  };
  apply([](RewritePatternSet &p) {
    p.add<UnitKContractToFma, UnitMultiReductionToReduction,
          ContractToRowDots>(p.getContext());
  });
  apply([](RewritePatternSet &p) {
    vector::populateVectorContractLoweringPatterns(
        p, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorTransposeLoweringPatterns(
        p, vector::VectorTransposeLowering::EltWise);
    vector::populateVectorTransferPermutationMapLoweringPatterns(p);
    vector::populateVectorMaskOpLoweringPatterns(p);
  });
  apply([](RewritePatternSet &p) {
    p.add<SplitTransferReadRows, SplitTransferWriteRows>(p.getContext());
    vector::populateVectorOuterProductLoweringPatterns(p);
    vector::populateVectorMultiReductionLoweringPatterns(
        p, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorBroadcastLoweringPatterns(p);
    vector::populateVectorShapeCastLoweringPatterns(p);
  });
  // 0-d and one-element transfers (a unit dim dropped, a broadcast scalar)
  // become memref loads and stores: upstream's vector-to-scf and
  // vector-to-llvm lower neither a 0-d transfer of a strided memref (a diag
  // view), which then reached the LLVM translation as an
  // unrealized_conversion_cast (a fuzz-diff finding, docs/reliability.md).
  auto scalarTransfers = [&] {
    apply([](RewritePatternSet &p) {
      vector::populateScalarVectorTransferLoweringPatterns(
          p, /*benefit=*/1, /*allowMultipleUses=*/true);
    });
  };
  if (!unrollRows) {
    scalarTransfers();
    return;
  }
  apply([](RewritePatternSet &p) {
    vector::UnrollVectorOptions rows;
    rows.setNativeShapeFn(
        [](Operation *op) -> std::optional<SmallVector<int64_t>> {
          VectorType type;
          if (auto read = dyn_cast<vector::TransferReadOp>(op))
            type = read.getVectorType();
          else if (auto write = dyn_cast<vector::TransferWriteOp>(op))
            type = write.getVectorType();
          else if (op->getNumResults() == 1)
            type = dyn_cast<VectorType>(op->getResult(0).getType());
          if (!type || type.getRank() < 2)
            return std::nullopt;
          SmallVector<int64_t> shape(type.getRank() - 1, 1);
          shape.push_back(type.getShape().back());
          return shape;
        });
    vector::populateVectorUnrollPatterns(p, rows);
    vector::populateCastAwayVectorLeadingOneDimPatterns(p);
    vector::populateVectorTransferDropUnitDimsPatterns(p);
  });
  scalarTransfers();
}

void TileAndVectorizePass::runOnOperation() {
  func::FuncOp func = getOperation();
  IRRewriter rewriter(&getContext());
  peelDynamicDims(rewriter, func, parallel);
  rewriteConvolutionsAndPools(rewriter, func);
  if (packRhs) {
    SmallVector<linalg::MatmulOp> matmuls;
    func.walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
    for (auto matmul : matmuls)
      (void)packRightHandSide(rewriter, matmul, tileN, 2 * tileM);
  }
  SmallVector<linalg::LinalgOp> contractions, elementwise;
  SmallVector<linalg::GenericOp> reductions;
  collectOps(func, contractions, elementwise, reductions);
  splitForRegisterTiles(rewriter, contractions);
  for (linalg::LinalgOp op : contractions)
    tileContraction(rewriter, op);
  for (linalg::LinalgOp op : elementwise)
    tileElementwise(rewriter, op);
  for (linalg::GenericOp op : reductions)
    reductionStrategy(rewriter, op, parallel && !inParallelLoop(op),
                      vectorWidth);
  if (lowerVectors)
    lowerVectorOps(func);
}
