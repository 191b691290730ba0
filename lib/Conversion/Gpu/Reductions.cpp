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

#include "Fusion.h"

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
using namespace mlir::traced;

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

/// `x` of the lane `offset` away (xor). (A 64-bit value moves as its two
/// 32-bit halves: shfl is 32-bit.)
Value shuffleXor(OpBuilder &b, Location loc, Value x, Value offset,
                 Value width) {
  Type type = x.getType();
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

/// `x` combined across the warp by `r`'s combiner: a butterfly of
/// shuffles leaves the total in every lane.
Value warpReduceAll(OpBuilder &b, Location loc, const Reduction &r, Value x) {
  Value width = arith::ConstantIntOp::create(b, loc, kWarp, 32);
  for (int64_t offset = kWarp / 2; offset > 0; offset /= 2) {
    Value o = arith::ConstantIntOp::create(b, loc, offset, 32);
    x = combineWith(b, r, x, shuffleXor(b, loc, x, o, width));
  }
  return x;
}

/// `op`'s body on its elements at loop indices `ivs`, cloned at `b` into
/// `map`: each operand whose block argument is used is loaded (a scalar
/// input taken as it is; `held` may give a value instead, e.g. from a
/// register), linalg.index becomes its loop index, and every op but `skip`
/// is cloned. With `skip` (a reduction's combiner) the outputs are not
/// loaded: their argument is the accumulator.
void emitGenericBody(OpBuilder &b, Location loc, linalg::GenericOp op,
                     ArrayRef<Value> ivs, Operation *skip, IRMapping &map,
                     function_ref<Value(Value)> held = {}) {
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty() || (skip && !op.isDpsInput(&operand)))
      continue;
    Value source = operand.get();
    if (!isa<MemRefType>(source.getType())) {
      map.map(arg, source); // a scalar input
      continue;
    }
    if (Value value = held ? held(source) : Value()) {
      map.map(arg, value);
      continue;
    }
    map.map(arg, memref::LoadOp::create(
                     b, loc, source,
                     indices(b, loc, op.getMatchingIndexingMap(&operand),
                             ivs)));
  }
  for (Operation &inner : op.getRegion().front().without_terminator()) {
    if (&inner == skip)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
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
    SmallVector<Value> all(ivs);
    delinearize(b, loc, loop.getInductionVar(), r.reductionDims, r.sizes,
                all);
    IRMapping map;
    emitGenericBody(b, loc, op, all, r.combiner, map);
    Value acc = loop.getRegionIterArg(0);
    Value v = map.lookupOrDefault(r.value);
    scf::YieldOp::create(b, loc, combine(acc, v));
  }

  /// Across the warp (`warpReduceAll`).
  Value warpReduce(Value x) { return warpReduceAll(b, loc, r, x); }

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

//===----------------------------------------------------------------------===//
// Row kernels: a run of row reductions and elementwise ops, a warp per row
//===----------------------------------------------------------------------===//

/// A run of ops over the same rows (see the pass description): fills of
/// row buffers, reductions over a row's elements into a row buffer, and
/// elementwise generics writing a whole buffer (the ops of a softmax,
/// LayerNorm or RMSNorm). Members may differ in unit loops (a keepdim
/// reduction's size-1 loop): the rows and a row's elements are what is
/// left without them, the same for every member.
struct RowRun {
  SmallVector<Operation *> members; // fills and generics, in order
  SmallVector<Operation *> allocs;  // allocations between them
  /// The sizes of a row's index and of an element's index, unit sizes
  /// dropped.
  SmallVector<int64_t> rowShape, elementShape;
  /// Each generic member's leading loops that index the row.
  DenseMap<Operation *, unsigned> rowLoops;
  int64_t rows = 1, length = 1;
};

SmallVector<int64_t> withoutUnits(ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> out;
  for (int64_t s : sizes)
    if (s != 1)
      out.push_back(s);
  return out;
}

/// How many leading loops of `sizes` index the row, if they and the rest
/// match the run's row and element shapes.
std::optional<unsigned> rowSplit(const RowRun &run, ArrayRef<int64_t> sizes) {
  for (unsigned k = 0; k <= sizes.size(); ++k)
    if (withoutUnits(sizes.take_front(k)) == run.rowShape &&
        withoutUnits(sizes.drop_front(k)) == run.elementShape)
      return k;
  return std::nullopt;
}

/// Whether `map` (of a generic with loop `sizes`, the first `k` indexing
/// the row) reads a row buffer of `shape` at the loop's own row: each
/// non-unit dim of the buffer at the next non-unit row loop, in order,
/// and unit dims at 0 or at a unit loop.
bool readsOwnRow(AffineMap map, ArrayRef<int64_t> shape,
                 ArrayRef<int64_t> sizes, unsigned k) {
  if (map.getNumResults() != shape.size() || map.getNumSymbols())
    return false;
  SmallVector<unsigned> rowLoops;
  for (unsigned d = 0; d < k; ++d)
    if (sizes[d] != 1)
      rowLoops.push_back(d);
  unsigned next = 0;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (shape[i] == 1) {
      auto zero = dyn_cast<AffineConstantExpr>(e);
      if (!(zero && zero.getValue() == 0) &&
          !(dim && sizes[dim.getPosition()] == 1))
        return false;
      continue;
    }
    if (!dim || next >= rowLoops.size() || dim.getPosition() != rowLoops[next])
      return false;
    ++next;
  }
  return next == rowLoops.size();
}

/// The buffer `v` views when it only adds or drops unit dims of it (a
/// keepdim reduction's output), else `v`.
Value throughUnitReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(def))
      break;
    Value source = def->getOperand(0);
    if (withoutUnits(cast<MemRefType>(source.getType()).getShape()) !=
        withoutUnits(cast<MemRefType>(v.getType()).getShape()))
      break;
    v = source;
  }
  return v;
}

/// Whether `op`'s body is pure (or linalg.index).
bool pureBody(linalg::GenericOp op) {
  for (Operation &inner : op.getRegion().front().without_terminator())
    if (!isPure(&inner) && !isa<linalg::IndexOp>(inner))
      return false;
  return true;
}

/// The reduction `op` is, when a row run can take it: its reduction loops
/// trailing, its parallel loops the rows, its output indexed by exactly
/// them in order, 32 bits. With `run` empty, it sets the run's shapes.
std::optional<Reduction> rowReduction(linalg::GenericOp op, RowRun &run) {
  std::optional<Reduction> r = match(op);
  if (!r || r->reductionDims.empty() ||
      r->out.getType().getIntOrFloatBitWidth() != 32)
    return std::nullopt;
  unsigned k = r->parallelDims.size();
  for (auto [i, d] : llvm::enumerate(r->parallelDims))
    if (d != i)
      return std::nullopt;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (out.getNumResults() != k)
    return std::nullopt;
  for (unsigned i = 0; i < k; ++i) {
    auto d = dyn_cast<AffineDimExpr>(out.getResult(i));
    if (!d || d.getPosition() != i)
      return std::nullopt;
  }
  ArrayRef<int64_t> sizes = r->sizes;
  if (run.rowShape.empty() && run.elementShape.empty()) {
    run.rowShape = withoutUnits(sizes.take_front(k));
    run.elementShape = withoutUnits(sizes.drop_front(k));
  } else if (withoutUnits(sizes.take_front(k)) != run.rowShape ||
             withoutUnits(sizes.drop_front(k)) != run.elementShape) {
    return std::nullopt;
  }
  run.rowLoops[op] = k;
  return r;
}

/// Whether `op` is an elementwise member: every loop parallel, one output
/// written whole at the identity map, a pure body, the run's rows.
bool rowElementwise(linalg::GenericOp op, RowRun &run) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      !pureBody(op))
    return false;
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (llvm::any_of(sizes, ShapedType::isDynamic))
    return false;
  std::optional<unsigned> k = rowSplit(run, sizes);
  if (!k)
    return false;
  run.rowLoops[op] = *k;
  return true;
}

/// The row run starting at the reduction `first` (with the fill of its
/// output right before it), if it has more than that reduction.
std::optional<RowRun> matchRowRun(linalg::GenericOp first) {
  RowRun run;
  std::optional<Reduction> r = rowReduction(first, run);
  if (!r || run.rowShape.empty())
    return std::nullopt;
  run.rows = r->outputs;
  run.length = r->length;
  // What the run's generics wrote: full buffers (read again only at the
  // identity map, by the lane that wrote the element) and row buffers
  // (reduction results, read only at the reader's own row, from
  // registers).
  // Buffers are compared by the allocation they view (any view), and what
  // a member wrote may be read only through the same buffer or a unit
  // reshape of it.
  DenseMap<Value, Value> full, row; // root -> the buffer written
  llvm::SmallPtrSet<Value, 8> used; // roots
  // (The fill may write the buffer a keepdim reduction's output views.)
  auto fillOf = [](Operation *op, Value buffer) {
    auto fill = dyn_cast_or_null<linalg::FillOp>(op);
    return fill && fill.hasPureBufferSemantics() &&
           throughUnitReshapes(fill.getDpsInits()[0]) ==
               throughUnitReshapes(buffer);
  };
  Operation *before = first->getPrevNode();
  while (before && isa<memref::AllocOp>(before) && !before->getNumOperands())
    before = before->getPrevNode();
  if (fillOf(before, first.getDpsInits()[0]))
    run.members.push_back(before);
  // A generic joins when it reads what earlier members wrote as they
  // wrote it, and writes nothing an earlier member used.
  auto canJoin = [&](linalg::GenericOp op) {
    SmallVector<int64_t> sizes = op.getStaticLoopRanges();
    unsigned k = run.rowLoops.lookup(op);
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (!isa<MemRefType>(in->get().getType()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(in);
      Value root = gpu_fusion::rootOf(in->get());
      Value same = throughUnitReshapes(in->get());
      if (Value written = full.lookup(root))
        if (throughUnitReshapes(written) != same || !map.isIdentity() ||
            in->get().getType() != written.getType())
          return false;
      if (Value written = row.lookup(root))
        if (throughUnitReshapes(written) != same ||
            !readsOwnRow(map, cast<MemRefType>(in->get().getType()).getShape(),
                         sizes, k))
          return false;
    }
    return !used.contains(gpu_fusion::rootOf(op.getDpsInits()[0]));
  };
  auto join = [&](linalg::GenericOp op, bool reduction) {
    for (Value v : op->getOperands())
      if (isa<MemRefType>(v.getType()))
        used.insert(gpu_fusion::rootOf(v));
    Value out = op.getDpsInits()[0];
    (reduction ? row : full)[gpu_fusion::rootOf(out)] = out;
    run.members.push_back(op);
  };
  join(first, true);
  int64_t generics = 1;
  for (Operation *op = first->getNextNode(); op; op = op->getNextNode()) {
    if (isa<memref::AllocOp>(op) && !op->getNumOperands()) {
      run.allocs.push_back(op);
      continue;
    }
    if (isa<memref::DeallocOp>(op))
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      // Only as the initial value of the reduction right after it.
      Operation *next = op->getNextNode();
      while (next && isa<memref::AllocOp, memref::DeallocOp>(next))
        next = next->getNextNode();
      auto reduction = dyn_cast_or_null<linalg::GenericOp>(next);
      if (!reduction || !fillOf(op, reduction.getDpsInits()[0]) ||
          !rowReduction(reduction, run) || !canJoin(reduction))
        break;
      run.members.push_back(op);
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (!generic)
      break;
    bool reduction = rowReduction(generic, run).has_value();
    if (!(reduction || rowElementwise(generic, run)) || !canJoin(generic))
      break;
    join(generic, reduction);
    ++generics;
  }
  // A trailing fill (its reduction did not join) is not the run's.
  while (isa<linalg::FillOp>(run.members.back()))
    run.members.pop_back();
  if (generics < 2)
    return std::nullopt;
  // Allocations after the last member stay where they are.
  llvm::erase_if(run.allocs, [&](Operation *a) {
    return run.members.back()->isBeforeInBlock(a);
  });
  return run;
}

/// The kernel of a row run (a warp per row) where its first member is,
/// stage by stage; the members are erased (see the pass description).
struct RowKernel {
  RowKernel(RowRun &run, StringRef kernelName)
      : run(run), kernelName(kernelName), first(run.members.front()),
        loc(first->getLoc()), b(first) {}

  RowRun &run;
  StringRef kernelName;
  Operation *first;
  Location loc;
  OpBuilder b;
  gpu::LaunchOp launch;
  Value lane, rowIndex, isFirstLane;
  /// The current member's loop sizes, its loops at this warp's row (the
  /// linear row index is the same for every member: they differ in unit
  /// loops only), and its element loops.
  SmallVector<int64_t> sizes;
  SmallVector<Value> rowIvs;
  SmallVector<unsigned> elementLoops;
  /// Row buffers' values in registers (reduction results), and the
  /// initial values their fills give; keyed through unit reshapes.
  DenseMap<Value, Value> registers, initial;

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  void emit() {
    for (Operation *a : run.allocs)
      a->moveBefore(first);
    createLaunch();
    for (Operation *member : run.members) {
      if (auto fill = dyn_cast<linalg::FillOp>(member)) {
        initial[throughUnitReshapes(fill.getDpsInits()[0])] =
            fill.getDpsInputs()[0];
        continue;
      }
      auto op = cast<linalg::GenericOp>(member);
      enter(op);
      if (std::optional<Reduction> r = rowReduction(op, run))
        emitReduction(op, *r);
      else
        emitElementwise(op);
    }
    for (Operation *member : llvm::reverse(run.members))
      member->erase();
  }

  /// The launch (8 rows a block), this thread's lane and row, and the
  /// guard of the last block's warps past the rows (uniform per warp: the
  /// shuffles need all 32 lanes).
  void createLaunch() {
    int64_t perBlock = kBlock / kWarp;
    Value one = c(1);
    launch = gpu::LaunchOp::create(
        b, loc, c((run.rows + perBlock - 1) / perBlock), one, one, c(kBlock),
        one, one, /*dynamicSharedMemorySize=*/nullptr,
        /*asyncTokenType=*/nullptr, ValueRange{}, TypeRange{},
        /*privateAttributions=*/{}, /*clusterSizeX=*/nullptr,
        /*clusterSizeY=*/nullptr, /*clusterSizeZ=*/nullptr, /*module=*/nullptr,
        FlatSymbolRefAttr::get(first->getContext(), kernelName));
    Block &body = launch.getBody().front();
    b.setInsertionPointToStart(&body);
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&body);
    Value tid = launch.getThreadIds().x;
    lane = arith::RemUIOp::create(b, loc, tid, c(kWarp));
    rowIndex = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, launch.getBlockIds().x, c(perBlock)),
        arith::DivUIOp::create(b, loc, tid, c(kWarp)));
    if (run.rows % perBlock) {
      Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       rowIndex, c(run.rows));
      auto inRange = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/false);
      b.setInsertionPoint(inRange.thenBlock()->getTerminator());
    }
    isFirstLane =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c(0));
  }

  /// The member's sizes, row loops at this row and element loops.
  void enter(linalg::GenericOp op) {
    sizes = op.getStaticLoopRanges();
    unsigned k = run.rowLoops.lookup(op);
    SmallVector<unsigned> rowLoops;
    elementLoops.clear();
    for (unsigned d = 0; d < sizes.size(); ++d)
      (d < k ? rowLoops : elementLoops).push_back(d);
    rowIvs.assign(sizes.size(), c(0));
    delinearize(b, loc, rowIndex, rowLoops, sizes, rowIvs);
  }

  /// The generic's body on the elements at `ivs` (emitGenericBody), the
  /// row buffers the run reduced read from registers.
  void emitBody(linalg::GenericOp op, ArrayRef<Value> ivs, Operation *skip,
                IRMapping &map) {
    emitGenericBody(b, loc, op, ivs, skip, map, [&](Value source) {
      return registers.lookup(throughUnitReshapes(source));
    });
  }

  /// A loop over this lane's elements of the row, `step` building its
  /// body from the element's loop indices and the loop's carried values.
  scf::ForOp elementLoop(
      ValueRange init,
      function_ref<SmallVector<Value>(ArrayRef<Value>, ValueRange)> step) {
    auto loop = scf::ForOp::create(b, loc, lane, c(run.length), c(kWarp), init);
    OpBuilder::InsertionGuard guard(b);
    // (Without results the loop already ends in its yield.)
    Block *loopBody = loop.getBody();
    bool terminated = !loopBody->empty() &&
                      loopBody->back().hasTrait<OpTrait::IsTerminator>();
    if (terminated)
      b.setInsertionPoint(loopBody->getTerminator());
    else
      b.setInsertionPointToStart(loopBody);
    SmallVector<Value> ivs(rowIvs);
    delinearize(b, loc, loop.getInductionVar(), elementLoops, sizes, ivs);
    SmallVector<Value> yielded = step(ivs, loop.getRegionIterArgs());
    if (!terminated)
      scf::YieldOp::create(b, loc, yielded);
    return loop;
  }

  /// The lanes fold their elements, the butterfly gives every lane the
  /// total, combined with the initial value (the fill's, or the output's);
  /// it stays in a register, and the first lane stores it.
  void emitReduction(linalg::GenericOp op, const Reduction &r) {
    Value out = op.getDpsInits()[0];
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    Value identity = arith::ConstantOp::create(b, loc, r.identity);
    auto loop = elementLoop(identity, [&](ArrayRef<Value> ivs, ValueRange acc) {
      IRMapping map;
      emitBody(op, ivs, r.combiner, map);
      return SmallVector<Value>{
          combineWith(b, r, acc[0], map.lookupOrDefault(r.value))};
    });
    Value total = warpReduceAll(b, loc, r, loop.getResult(0));
    Value start = initial.lookup(throughUnitReshapes(out));
    if (!start)
      start = memref::LoadOp::create(b, loc, out,
                                     indices(b, loc, outMap, rowIvs));
    Value result = combineWith(b, r, start, total);
    registers[throughUnitReshapes(out)] = result;
    auto store = scf::IfOp::create(b, loc, isFirstLane, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(store.thenBlock()->getTerminator());
    memref::StoreOp::create(b, loc, result, out,
                            indices(b, loc, outMap, rowIvs));
  }

  /// Each lane computes and stores its elements of the output.
  void emitElementwise(linalg::GenericOp op) {
    Value out = op.getDpsInits()[0];
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    elementLoop({}, [&](ArrayRef<Value> ivs, ValueRange) {
      IRMapping map;
      emitBody(op, ivs, nullptr, map);
      auto yield =
          cast<linalg::YieldOp>(op.getRegion().front().getTerminator());
      memref::StoreOp::create(b, loc,
                              map.lookupOrDefault(yield.getOperand(0)), out,
                              indices(b, loc, outMap, ivs));
      return SmallVector<Value>{};
    });
  }
};

struct ReductionsPass
    : traced::impl::TracedGpuReductionsBase<ReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    StringRef funcName = getOperation().getSymName();
    if (rows)
      buildRowKernels(funcName);
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

  /// The row runs (matchRowRun) of reductions a warp per output would
  /// compute (long enough, not the whole-block form), one kernel each.
  void buildRowKernels(StringRef funcName) {
    std::vector<RowRun> runs;
    llvm::SmallPtrSet<Operation *, 16> taken;
    getOperation().walk([&](linalg::GenericOp op) {
      if (taken.contains(op) || op->getParentOfType<gpu::LaunchOp>())
        return;
      std::optional<RowRun> run = matchRowRun(op);
      if (!run || run->length < minLength || run->rows == 0 ||
          (run->rows <= blockOutputs && run->length >= 8 * kBlock))
        return;
      taken.insert(run->members.begin(), run->members.end());
      runs.push_back(std::move(*run));
    });
    unsigned counter = 0;
    for (RowRun &run : runs)
      RowKernel(run, (funcName + "_rows_" + Twine(counter++)).str()).emit();
  }
};

} // namespace
