//===- Reductions.cpp - reductions parallel within a warp or block --------===//
//
// traced-gpu-reductions: a `linalg.generic` reduction (one output indexed
// by its parallel loops, a body `combine(out, f(ins))` with an associative,
// commutative `combine` on 32- or 64-bit values) becomes a `gpu.launch` in
// which a warp (or, for a few long reductions, whole blocks) computes each
// output:
// its threads stride over the reduction, each folding f(ins) into a private
// partial value, and the partial values are combined by `gpu.shuffle xor`
// (and workgroup memory across the warps of a block). Left to the generic
// loops (one thread per output): short reductions, other element types,
// several outputs, bodies with side effects. See docs/gpu.md.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>
#include <limits>

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDGPUREDUCTIONS
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;

namespace {

/// Threads of a warp, and of a block in either mode.
constexpr int64_t kWarp = 32;
constexpr int64_t kBlock = 256;

/// A reduction this pass rewrites.
struct Reduction {
  linalg::GenericOp op;
  Operation *combiner;   // combine(out, value) in the body
  BlockArgument out;     // the body's accumulator argument
  Value value;           // f(ins): the combiner's other operand
  TypedAttr identity;    // the combiner's neutral element
  SmallVector<unsigned> parallelDims, reductionDims;
  SmallVector<int64_t> sizes; // every loop's static size
  int64_t outputs = 1, length = 1;
};

/// The neutral element of `op` (a combiner) on `type`, or null.
TypedAttr identityOf(Operation *op, Type type) {
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    auto attr = [&](const APFloat &v) { return FloatAttr::get(type, v); };
    if (isa<arith::AddFOp>(op))
      return attr(APFloat::getZero(sem, /*Negative=*/true));
    if (isa<arith::MulFOp>(op))
      return attr(APFloat::getOne(sem));
    if (isa<arith::MaximumFOp>(op))
      return attr(APFloat::getInf(sem, /*Negative=*/true));
    if (isa<arith::MinimumFOp>(op))
      return attr(APFloat::getInf(sem));
    if (isa<arith::MaxNumFOp, arith::MinNumFOp>(op)) // NaN: the other operand
      return attr(APFloat::getQNaN(sem));
    return {};
  }
  auto i = dyn_cast<IntegerType>(type);
  if (!i)
    return {};
  unsigned w = i.getWidth();
  auto attr = [&](const APInt &v) { return IntegerAttr::get(type, v); };
  if (isa<arith::AddIOp, arith::OrIOp, arith::XOrIOp, arith::MaxUIOp>(op))
    return attr(APInt::getZero(w));
  if (isa<arith::MulIOp>(op))
    return attr(APInt(w, 1));
  if (isa<arith::AndIOp, arith::MinUIOp>(op))
    return attr(APInt::getAllOnes(w));
  if (isa<arith::MaxSIOp>(op))
    return attr(APInt::getSignedMinValue(w));
  if (isa<arith::MinSIOp>(op))
    return attr(APInt::getSignedMaxValue(w));
  return {};
}

std::optional<Reduction> match(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0)
    return std::nullopt;
  Reduction r;
  r.op = op;
  r.sizes = op.getStaticLoopRanges();
  if (llvm::any_of(r.sizes, ShapedType::isDynamic))
    return std::nullopt;
  for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray())) {
    (it == utils::IteratorType::parallel ? r.parallelDims : r.reductionDims)
        .push_back(i);
  }
  // The output is indexed by every parallel loop and no reduction loop.
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  if (!outMap.isProjectedPermutation() ||
      outMap.getNumResults() != r.parallelDims.size())
    return std::nullopt;
  for (unsigned d : r.reductionDims)
    if (outMap.isFunctionOfDim(d))
      return std::nullopt;
  Block &body = op.getRegion().front();
  r.out = op.getMatchingBlockArgument(init);
  Type type = r.out.getType();
  if (!type.isIntOrFloat() ||
      (type.getIntOrFloatBitWidth() != 32 &&
       type.getIntOrFloatBitWidth() != 64) ||
      !r.out.hasOneUse())
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  r.combiner = yield.getOperand(0).getDefiningOp();
  if (!r.combiner || r.combiner->getBlock() != &body ||
      r.combiner->getNumOperands() != 2 || r.combiner->getNumResults() != 1 ||
      *r.out.getUsers().begin() != r.combiner || !r.combiner->hasOneUse())
    return std::nullopt;
  r.identity = identityOf(r.combiner, type);
  if (!r.identity)
    return std::nullopt;
  r.value = r.combiner->getOperand(r.combiner->getOperand(0) == r.out ? 1 : 0);
  if (r.value == r.out)
    return std::nullopt;
  // Everything else in the body is recomputed per element: pure ops and
  // linalg.index only.
  for (Operation &inner : body.without_terminator())
    if (&inner != r.combiner && !isPure(&inner) && !isa<linalg::IndexOp>(inner))
      return std::nullopt;
  for (unsigned d : r.parallelDims)
    r.outputs *= r.sizes[d];
  for (unsigned d : r.reductionDims)
    r.length *= r.sizes[d];
  return r;
}

/// `r`'s combiner applied to `acc` (in place of the accumulator) and `v`.
Value combineWith(OpBuilder &b, const Reduction &r, Value acc, Value v) {
  IRMapping map;
  map.map(r.out, acc);
  map.map(r.value, v);
  return b.clone(*r.combiner, map)->getResult(0);
}

/// The values of the loops `dims` (sizes `sizes`) at linear position
/// `linear` (less than their product), the last dim fastest.
void delinearize(OpBuilder &b, Location loc, Value linear,
                 ArrayRef<unsigned> dims, ArrayRef<int64_t> sizes,
                 SmallVectorImpl<Value> &ivs) {
  if (dims.empty())
    return;
  for (unsigned d : llvm::reverse(dims.drop_front())) {
    Value size = arith::ConstantIndexOp::create(b, loc, sizes[d]);
    ivs[d] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
  ivs[dims.front()] = linear;
}

/// memref[map(ivs)] as load indices.
SmallVector<Value> indices(OpBuilder &b, Location loc, AffineMap map,
                           ArrayRef<Value> ivs) {
  SmallVector<Value> out;
  for (unsigned k = 0; k < map.getNumResults(); ++k) {
    AffineExpr e = map.getResult(k);
    if (auto dim = dyn_cast<AffineDimExpr>(e))
      out.push_back(ivs[dim.getPosition()]);
    else
      out.push_back(
          affine::AffineApplyOp::create(b, loc, map.getSubMap({k}), ivs));
  }
  return out;
}

void build(Reduction &r, bool wholeBlock, int64_t split, StringRef kernelName);

/// The kernel of one reduction (`build`), stage by stage; the stages share
/// the launch, the thread's indices and the output it works on.
struct ReductionKernel {
  ReductionKernel(Reduction &r, bool wholeBlock, int64_t split,
                  StringRef kernelName)
      : r(r), wholeBlock(wholeBlock), split(split), kernelName(kernelName),
        op(r.op), ctx(op.getContext()), loc(op.getLoc()), b(op),
        type(r.out.getType()), perBlock(wholeBlock ? 1 : kBlock / kWarp),
        group(wholeBlock ? kBlock : kWarp),
        blocks((r.outputs + perBlock - 1) / perBlock * split),
        init(op.getDpsInitOperand(0)),
        outType(cast<MemRefType>(init->get().getType())) {}

  Reduction &r;
  bool wholeBlock;
  int64_t split;
  StringRef kernelName;
  linalg::GenericOp op;
  MLIRContext *ctx;
  Location loc;
  OpBuilder b;
  Type type;
  int64_t perBlock;
  int64_t group; // threads per output
  int64_t blocks;
  OpOperand *init;
  MemRefType outType;
  /// With `split`: the partial results, the output's shape with `split`
  /// more values each.
  Value partials;
  gpu::LaunchOp launch;
  Value identity, tid, lane, warp;
  /// The output this thread works on (and with `split`, its part of it).
  Value output, part;
  /// The output's loop indices (the parallel ones).
  SmallVector<Value> ivs;

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value combine(Value acc, Value v) { return combineWith(b, r, acc, v); }

  /// All stages, in order.
  void emit() {
    allocatePartials();
    createLaunch();
    findOutput();
    Value acc = warpReduce(foldElements());
    Value zero = c(0);
    Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         wholeBlock ? tid : lane, zero);
    if (wholeBlock)
      acc = blockReduce(acc, zero);
    if (storeResult(acc, leader))
      combinePartials();
  }

  void allocatePartials() {
    if (split > 1) {
      SmallVector<int64_t> shape(outType.getShape());
      shape.push_back(split);
      partials = memref::AllocOp::create(b, loc, MemRefType::get(shape, type));
    }
  }

  /// The launch: `blocks` blocks of kBlock threads (with workgroup memory
  /// for the warps' results when a block shares an output).
  void createLaunch() {
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    SmallVector<Type> shared;
    if (wholeBlock)
      shared.push_back(MemRefType::get({kBlock / kWarp}, type,
                                       MemRefLayoutAttrInterface(), workgroup));
    Value one = c(1);
    launch = gpu::LaunchOp::create(
        b, loc, c(blocks), one, one, c(kBlock), one, one,
        /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
        ValueRange{}, shared, /*privateAttributions=*/{},
        /*clusterSizeX=*/nullptr, /*clusterSizeY=*/nullptr,
        /*clusterSizeZ=*/nullptr, /*module=*/nullptr,
        FlatSymbolRefAttr::get(ctx, kernelName));
    Block &launchBody = launch.getBody().front();
    b.setInsertionPointToStart(&launchBody);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&launchBody);
  }

  /// The thread's indices, the output it works on (guarded when the last
  /// block has warps past the outputs) and that output's loop indices.
  void findOutput() {
    identity = arith::ConstantOp::create(b, loc, r.identity);
    tid = launch.getThreadIds().x;
    lane = arith::RemUIOp::create(b, loc, tid, c(kWarp));
    warp = arith::DivUIOp::create(b, loc, tid, c(kWarp));
    Value block = launch.getBlockIds().x;
    output = block;
    if (split > 1) {
      part = arith::RemUIOp::create(b, loc, block, c(split));
      output = arith::DivUIOp::create(b, loc, block, c(split));
    } else if (!wholeBlock) {
      output = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, block, c(perBlock)), warp);
    }
    // A warp's threads share `output`, so the guard is uniform per warp (the
    // shuffles below need all 32 threads).
    scf::IfOp inRange;
    if (!wholeBlock && r.outputs % perBlock != 0) {
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       output, c(r.outputs));
      inRange = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/false);
      b.setInsertionPoint(inRange.thenBlock()->getTerminator());
    }
    ivs.assign(r.sizes.size(), Value());
    delinearize(b, loc, output, r.parallelDims, r.sizes, ivs);
  }

  /// Each thread folds the elements start, start + step, ... into its
  /// partial value: the loop, unrolled by 4 when long enough.
  Value foldElements() {
    Value start = wholeBlock ? tid : lane;
    if (split > 1)
      start = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, part, c(group)), start);
    auto loop = scf::ForOp::create(b, loc, start, c(r.length),
                                   c(group * split), ValueRange{identity});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      buildLoopBody(loop);
    }
    // Unrolled by 4, so that each thread has 4 loads in flight (they do not
    // depend on the accumulator; a remainder loop takes the rest).
    Value acc = loop.getResult(0);
    if (r.length >= 4 * group * split) {
      FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(loop, 4);
      if (succeeded(unrolled) && unrolled->epilogueLoopOp)
        acc = unrolled->epilogueLoopOp->getResult(0);
      else if (succeeded(unrolled) && unrolled->mainLoopOp)
        acc = unrolled->mainLoopOp->getResult(0);
    }
    return acc;
  }

  /// The fold loop's body: the inputs' elements at the loop's position,
  /// the generic's body on them, combined into the accumulator.
  void buildLoopBody(scf::ForOp loop) {
    Block &body = op.getRegion().front();
    SmallVector<Value> all(ivs);
    delinearize(b, loc, loop.getInductionVar(), r.reductionDims, r.sizes,
                all);
    IRMapping map;
    for (OpOperand *in : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(in);
      if (arg.use_empty())
        continue;
      Value source = in->get();
      Value element;
      if (isa<MemRefType>(source.getType()))
        element = memref::LoadOp::create(
            b, loc, source,
            indices(b, loc, op.getMatchingIndexingMap(in), all));
      else
        element = source; // a scalar input
      map.map(arg, element);
    }
    for (Operation &inner : body.without_terminator()) {
      if (&inner == r.combiner)
        continue;
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        map.map(index.getResult(), all[index.getDim()]);
        continue;
      }
      b.clone(inner, map);
    }
    Value acc = loop.getRegionIterArg(0);
    Value v = map.lookupOrDefault(r.value);
    scf::YieldOp::create(b, loc, combine(acc, v));
  }

  /// `x` of the lane `offset` away (xor). (A 64-bit value moves as its two
  /// 32-bit halves: shfl is 32-bit.)
  Value shuffle(Value x, Value offset, Value width) {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    if (type.getIntOrFloatBitWidth() == 32)
      return gpu::ShuffleOp::create(b, loc, x, offset, width,
                                    gpu::ShuffleMode::XOR)
          .getShuffleResult();
    Value bits = isa<FloatType>(type)
                     ? Value(arith::BitcastOp::create(b, loc, i64, x))
                     : x;
    Value c32 = arith::ConstantIntOp::create(b, loc, 32, 64);
    Value halves[2] = {
        arith::TruncIOp::create(b, loc, i32, bits),
        arith::TruncIOp::create(b, loc, i32,
                                arith::ShRUIOp::create(b, loc, bits, c32))};
    for (Value &half : halves)
      half = gpu::ShuffleOp::create(b, loc, half, offset, width,
                                    gpu::ShuffleMode::XOR)
                 .getShuffleResult();
    Value joined = arith::OrIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, halves[0]),
        arith::ShLIOp::create(b, loc,
                              arith::ExtUIOp::create(b, loc, i64, halves[1]),
                              c32));
    return isa<FloatType>(type)
               ? Value(arith::BitcastOp::create(b, loc, type, joined))
               : joined;
  }

  /// Across the warp: a butterfly of shuffles leaves the total in every
  /// lane.
  Value warpReduce(Value x) {
    Value width = arith::ConstantIntOp::create(b, loc, kWarp, 32);
    for (int64_t offset = kWarp / 2; offset > 0; offset /= 2) {
      Value o = arith::ConstantIntOp::create(b, loc, offset, 32);
      x = combine(x, shuffle(x, o, width));
    }
    return x;
  }

  /// Across the block's warps, through workgroup memory: each warp's first
  /// lane stores its total, the first warp combines them.
  Value blockReduce(Value acc, Value zero) {
    Value warpResults = launch.getWorkgroupAttributions()[0];
    auto first = scf::IfOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      zero),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(first.thenBlock()->getTerminator());
      memref::StoreOp::create(b, loc, acc, warpResults, ValueRange{warp});
    }
    gpu::BarrierOp::create(b, loc);
    Value has = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane,
                                      c(kBlock / kWarp));
    auto read = scf::IfOp::create(b, loc, TypeRange{type}, has,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(read.thenBlock());
      scf::YieldOp::create(b, loc,
                           ValueRange{memref::LoadOp::create(
                               b, loc, warpResults, ValueRange{lane})});
      b.setInsertionPointToStart(read.elseBlock());
      scf::YieldOp::create(b, loc, ValueRange{identity});
    }
    return warpReduce(read.getResult(0));
  }

  /// The output's first thread (`leader`) adds the partial result to the
  /// output's initial value (the generic's semantics: C = combine(C,
  /// ...)), or with `split` stores it to the partial results. Whether
  /// those need combining.
  bool storeResult(Value acc, Value leader) {
    auto store = scf::IfOp::create(b, loc, leader, /*withElseRegion=*/false);
    b.setInsertionPoint(store.thenBlock()->getTerminator());
    SmallVector<Value> at =
        indices(b, loc, op.getMatchingIndexingMap(init), ivs);
    if (split == 1) {
      Value initial = memref::LoadOp::create(b, loc, init->get(), at);
      memref::StoreOp::create(b, loc, combine(initial, acc), init->get(), at);
      return false;
    }
    at.push_back(part);
    memref::StoreOp::create(b, loc, acc, partials, at);
    return true;
  }

  /// The second stage: out = combine(out, partials[..., s]) over s, a
  /// reduction built the same way (a warp per output).
  void combinePartials() {
    b.setInsertionPointAfter(launch);
    unsigned rank = outType.getRank();
    AffineMap all = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
    SmallVector<AffineMap> maps{
        all, AffineMap::get(rank + 1, 0, all.getResults().drop_back(), ctx)};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators.push_back(utils::IteratorType::reduction);
    auto second = linalg::GenericOp::create(
        b, loc, ValueRange{partials}, ValueRange{init->get()}, maps,
        iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
          linalg::YieldOp::create(nb, l,
                                  combineWith(nb, r, args[1], args[0]));
        });
    memref::DeallocOp::create(b, loc, partials);
    if (std::optional<Reduction> r2 = match(second)) {
      build(*r2, /*wholeBlock=*/false, /*split=*/1,
            (kernelName + "_parts").str());
      second->erase();
    }
  }
};

/// Builds the kernel of `r` (see the file comment) before `r.op`, which the
/// caller erases. With `split` > 1 (whole blocks only), `split` blocks
/// share each output, block s of output p folding elements s * 256 + tid,
/// (s + split) * 256 + tid, ..., and write their results to a buffer of
/// partial results; a second reduction over those (built the same way, a
/// warp per output) combines them into the output.
void build(Reduction &r, bool wholeBlock, int64_t split,
           StringRef kernelName) {
  ReductionKernel(r, wholeBlock, split, kernelName).emit();
}

struct ReductionsPass
    : traced::impl::TracedGpuReductionsBase<ReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Reduction> found;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      // (No outputs: a launch of no blocks is a CUDA error; the loops
      // that are left do nothing.)
      if (std::optional<Reduction> r = match(op))
        if (r->length >= minLength && r->outputs > 0)
          found.push_back(*r);
    });
    StringRef funcName = getOperation().getSymName();
    unsigned counter = 0;
    for (Reduction &r : found) {
      // A whole block per output when there are too few outputs to fill
      // the GPU with warps and each is long.
      bool wholeBlock = r.outputs <= blockOutputs && r.length >= 8 * kBlock;
      // Blocks enough to fill the GPU (blockOutputs of them), each with at
      // least 8 elements a thread.
      int64_t split = 1;
      if (wholeBlock)
        split = std::max<int64_t>(
            1, std::min(blockOutputs / r.outputs, r.length / (8 * kBlock)));
      build(r, wholeBlock, split,
            (funcName + "_reduce_" + Twine(counter++)).str());
      r.op->erase();
    }
  }
};

} // namespace
