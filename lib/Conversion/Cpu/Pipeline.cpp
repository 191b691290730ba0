//===- Pipeline.cpp - traced-cpu-pipeline ---------------------------------===//
//
// traced IR -> linalg on tensors -> tiled and vectorized -> bufferized ->
// LLVM dialect with a C entry point. Our passes each have their own file in
// this directory (tiling and vectorization, accumulator hoisting, copy
// expansion, run-time checks, the entry point); the rest is upstream, written
// in textual form so that it reads like the mlir-opt pipeline reproducing it
// (docs/cpu.md). Two helpers internal to the pipeline live here:
// traced-fuse-elementwise and the distinct-results fix before
// buffer-results-to-out-params.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"
#include "TracedIR/Transforms/Passes.h"
#include "../TracedToLinalg/Lowering.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
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
#include "mlir/Dialect/Func/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

using namespace mlir;
using namespace mlir::traced;

namespace {
/// Upstream's elementwise fusion (the patterns of
/// `linalg-fuse-elementwise-ops`, with its one-use rule), except that a
/// producer whose payload reads its init is not fused into a consumer that
/// reads it through a broadcast. Such a producer accumulates (a reduction
/// of a 0-d tensor has no loops, so it passes as elementwise); fused, it
/// would run once per consumer iteration and accumulate each time, which
/// upstream's pass (LLVM 22) does: `l1_loss(x, sum(t))` summed `t` three
/// times for a 3-element x (fuzz-diff).
struct FuseElementwise
    : PassWrapper<FuseElementwise, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseElementwise)
  StringRef getArgument() const final { return "traced-fuse-elementwise"; }
  StringRef getDescription() const final {
    return "linalg-fuse-elementwise-ops, without fusing accumulating "
           "producers into broadcasts";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<affine::AffineDialect, linalg::LinalgDialect,
                    tensor::TensorDialect>();
  }
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      auto generic = dyn_cast<linalg::GenericOp>(producer);
      if (!consumer || !generic ||
          consumer.getMatchingIndexingMap(fused).isPermutation())
        return true;
      return llvm::none_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
        return generic.payloadUsesValueFromOperand(&init);
      });
    };
    // Named contractions and convolutions keep their shapes: folded with a
    // reshape they become generics of another rank, which the CPU strategy
    // tiles without packed panels. (A Linear on [1, 197, 768] became a 3-D
    // generic over its collapsed input and ran 2.7x slower than on
    // [197, 768]; bench/linear_shapes.py.)
    linalg::ControlFusionFn reshapeControl = [control](OpOperand *fused) {
      for (Operation *op : {fused->getOwner(), fused->get().getDefiningOp()})
        if (isa_and_nonnull<linalg::LinalgOp>(op) &&
            !isa<linalg::GenericOp>(op))
          return false;
      return control(fused);
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapeControl);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

/// Applies `patterns` to the ops under `root` that `matches` picks and to
/// the ops their rewrites create, and to nothing else
/// (`applyOpPatternsGreedily`): the greedy driver over a whole function also
/// tries to fold every other op in it.
static LogicalResult
rewriteMatchingOps(Operation *root, function_ref<bool(Operation *)> matches,
                   RewritePatternSet &&patterns) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (matches(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  return applyOpPatternsGreedily(ops, std::move(patterns), config);
}

/// bfloat16 conversions as integer bit operations (upstream's
/// populateExpandBFloat16Patterns: extf is a 16-bit shift, truncf rounds to
/// nearest even), so LLVM never sees `fpext` from bfloat. Its instcombine
/// folds `fcmp (fpext a), (fpext b)` to an `fcmp` of bfloat vectors, which
/// LLVM 22's x86 backend cannot legalize for some widths ("Do not know how
/// to soft promote this operator's operand", an abort; fuzz-diff found it
/// in a bucketize of a 3x3 bfloat16 tensor).
struct ExpandBFloat16
    : PassWrapper<ExpandBFloat16, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandBFloat16)
  StringRef getArgument() const final { return "traced-cpu-expand-bf16"; }
  StringRef getDescription() const final {
    return "bfloat16 extf/truncf as integer bit operations";
  }
  void runOnOperation() override {
    // (Only the conversions: the greedy driver over the whole function was
    // 0.11 s of vit_b_16, which has none.)
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    auto isBF16Conversion = [](Operation *op) {
      return isa<arith::ExtFOp, arith::TruncFOp>(op) &&
             llvm::any_of(
                 llvm::concat<Type>(op->getOperandTypes(),
                                    op->getResultTypes()),
                 [](Type t) { return getElementTypeOrSelf(t).isBF16(); });
    };
    if (failed(rewriteMatchingOps(getOperation(), isBF16Conversion,
                                  std::move(patterns))))
      signalPassFailure();
  }
};

/// Vector code for f32 transcendental functions: upstream's polynomial
/// approximations of exp, tanh and erf (at most 4 ulp from torch's results
/// over [-20, 20] and the special values, python/tests/
/// test_compile_math.py), where convert-math-to-libm would call erff once
/// per lane (GELU's erf: 9 ms on 600,000 floats; approximated, 0.4 ms;
/// torch 0.4 ms). f64 and the other functions keep libm; so does log,
/// whose approximation is 6e5 ulp off on subnormal inputs (and libm's logf
/// already beats torch). `math.fma` (which the approximations use) becomes
/// `vector.fma` (LLVM's fma on scalars): a vector FMA, not one `fmaf` call
/// per lane.
struct ApproximateMath
    : PassWrapper<ApproximateMath, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ApproximateMath)
  StringRef getArgument() const final { return "traced-cpu-approximate-math"; }
  StringRef getDescription() const final {
    return "polynomial f32 exp, tanh and erf; math.fma as llvm.intr.fma";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect, vector::VectorDialect>();
  }
  void runOnOperation() override {
    // Upstream's exp flushes results below 2^-126 to zero; torch gives the
    // subnormal. Inputs below -87 are shifted up by 25 ln 2 and the result
    // scaled back by 2^-25 (exact but for the one rounding into the
    // subnormal range).
    SmallVector<math::ExpOp> exps;
    getOperation().walk([&](math::ExpOp op) {
      if (getElementTypeOrSelf(op.getType()).isF32())
        exps.push_back(op);
    });
    for (math::ExpOp op : exps) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Type type = op.getType();
      auto constant = [&](float v) -> Value {
        Attribute a = b.getF32FloatAttr(v);
        if (auto vt = dyn_cast<VectorType>(type))
          a = DenseElementsAttr::get(vt, a);
        return arith::ConstantOp::create(b, loc, type, cast<TypedAttr>(a));
      };
      Value x = op.getOperand();
      Value low = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x,
                                        constant(-87.0f));
      Value shifted = arith::AddFOp::create(
          b, loc, x, constant(25.0f * 0.693147180559945309f));
      Value e = math::ExpOp::create(
          b, loc, arith::SelectOp::create(b, loc, low, shifted, x));
      Value scaled = arith::MulFOp::create(b, loc, e, constant(0x1p-25f));
      op.replaceAllUsesWith(
          arith::SelectOp::create(b, loc, low, scaled, e).getResult());
      op.erase();
    }
    // (Only these functions: the greedy driver over the whole function was
    // 0.28 s of vit_b_16, whose GELUs and softmaxes are a few hundred of
    // its ops.)
    auto approximated = [](StringRef name) {
      return name == math::ExpOp::getOperationName() ||
             name == math::TanhOp::getOperationName() ||
             name == math::ErfOp::getOperationName();
    };
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    if (failed(rewriteMatchingOps(
            getOperation(),
            [&](Operation *op) {
              return approximated(op->getName().getStringRef());
            },
            std::move(patterns))))
      return signalPassFailure();
    getOperation().walk([](math::FmaOp fma) {
      OpBuilder b(fma);
      Value r = isa<VectorType>(fma.getType())
                    ? vector::FMAOp::create(b, fma.getLoc(), fma.getA(),
                                            fma.getB(), fma.getC())
                          .getResult()
                    : LLVM::FMAOp::create(b, fma.getLoc(), fma.getA(),
                                          fma.getB(), fma.getC())
                          .getResult();
      fma.replaceAllUsesWith(r);
      fma.erase();
    });
  }
};
} // namespace

void traced::detail::addFrontEnd(OpPassManager &pm, StringRef entry,
                                  bool surgery, bool int8Kernels) {
  if (surgery) {
    pm.addPass(createTracedFlatten());
    pm.addPass(createTracedNormalize());
    pm.addPass(createTracedFuseConvBN());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createTracedFoldConstants());
    pm.addPass(createTracedDCE());
  }
  ConvertTracedToLinalgOptions convert;
  convert.entry = entry.str();
  convert.int8Kernels = int8Kernels;
  pm.addPass(createConvertTracedToLinalg(convert));
  OpPassManager &fn = pm.nest<func::FuncOp>();
  fn.addPass(createCanonicalizerPass());
  fn.addPass(std::make_unique<FuseElementwise>());
  fn.addPass(createCSEPass());
}

void traced::detail::addPipelineText(OpPassManager &pm, StringRef text) {
  static std::once_flag registered;
  std::call_once(registered, [] {
    // What the textual parts name (traced-translate registers no passes).
    registerTransformsPasses();
    registerConversionPasses();
    bufferization::registerBufferizationPasses();
    bufferization::registerBufferizationPipelines();
    registerLinalgPasses();
    memref::registerMemRefPasses();
    registerSCFPasses();
    registerGPUPasses();
  });
  if (failed(parsePassPipeline(text, pm)))
    llvm::report_fatal_error(llvm::Twine("bad pipeline: ") + text);
}

/// Numbers the constant globals one-shot bufferization creates
/// (`__constant_<type>_<n>`) in the order the module's functions first read
/// them, and puts them first in the module in that order. Upstream
/// bufferizes functions that do not call each other in an order that
/// depends on pointers (a DenseMap of functions), so the numbering, and
/// with it the printed IR and the object file, changed from run to run for
/// a model split into several functions (vit_b_16; a 12-layer transformer
/// encoder). Internal to the CPU and GPU pipelines.
struct NumberConstantGlobals
    : PassWrapper<NumberConstantGlobals, OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NumberConstantGlobals)
  StringRef getArgument() const final {
    return "traced-number-constant-globals";
  }
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    llvm::StringMap<memref::GlobalOp> constants;
    for (auto global : module.getOps<memref::GlobalOp>())
      if (global.getSymName().starts_with("__constant_"))
        constants[global.getSymName()] = global;
    if (constants.empty())
      return;
    // First reads, in module order; then any never read, in module order.
    llvm::SetVector<memref::GlobalOp> order;
    SmallVector<memref::GetGlobalOp> reads;
    module.walk([&](memref::GetGlobalOp get) {
      auto it = constants.find(get.getName());
      if (it == constants.end())
        return;
      order.insert(it->second);
      reads.push_back(get);
    });
    for (auto global : module.getOps<memref::GlobalOp>())
      if (constants.count(global.getSymName()))
        order.insert(global);
    MLIRContext *ctx = module.getContext();
    llvm::StringMap<StringAttr> renamed;
    Operation *first = &module.getBody()->front();
    for (auto [k, constGlobal] : llvm::enumerate(order)) {
      memref::GlobalOp global = constGlobal;
      std::string type;
      llvm::raw_string_ostream os(type);
      llvm::interleave(global.getType().getShape(), os, "x");
      os << (global.getType().getRank() ? "x" : "")
         << global.getType().getElementType();
      renamed[global.getSymName()] =
          StringAttr::get(ctx, "__constant_" + type + "_" + Twine(k));
    }
    for (memref::GetGlobalOp get : reads)
      get.setNameAttr(FlatSymbolRefAttr::get(renamed[get.getName()]));
    for (memref::GlobalOp global : order) {
      global.setSymNameAttr(renamed[global.getSymName()]);
      if (global.getOperation() != first)
        global->moveBefore(first);
      else
        first = first->getNextNode();
    }
    // (Moved before `first` one by one, they stand in `order`.)
  }
};

namespace {
/// A function that returns one buffer as two results (`return x + 1, x + 1`
/// after CSE, or `return y, y`) gets a copy for each repeat: the
/// out-parameter conversion after it would otherwise write one allocation
/// into two out-parameters (upstream's buffer-results-to-out-params crashes
/// on it). Internal to the CPU pipeline.
struct DistinctReturnedBuffers
    : PassWrapper<DistinctReturnedBuffers, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DistinctReturnedBuffers)
  StringRef getArgument() const final { return "traced-cpu-distinct-results"; }
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 4> seen;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        auto type = dyn_cast<MemRefType>(operand.get().getType());
        if (!type || seen.insert(operand.get()).second || !type.hasStaticShape())
          continue;
        auto fresh = MemRefType::get(type.getShape(), type.getElementType());
        Value copy = memref::AllocOp::create(b, ret.getLoc(), fresh);
        memref::CopyOp::create(b, ret.getLoc(), operand.get(), copy);
        operand.set(copy);
      }
    });
  }
};
/// Gives every destination use of a `linalg.fill` its own fill. CSE
/// merges the identical zero-filled accumulators of same-shaped
/// contractions (all of ViT's Q, K and V projections, each layer's
/// convolutions of one shape) into one fill; one-shot-bufferize then
/// copies that buffer for every writer but the last, which costs a
/// memory copy per call, and the copies' loops were most of ViT's code.
/// A clone refills instead. Uses that only read the fill keep sharing it.
///
/// The same for a shared `tensor.empty`: CSE leaves one per shape, the
/// destination of every elementwise loop of that shape, so one-shot-
/// bufferize saw all of them write into one tensor, and its conflict
/// analysis checked each writer against all the others: a chain of 1,000
/// small matmuls and elementwise ops took 7.8 s there, 3,000 took minutes
/// (bench/compile_scale.py). Each use after the first gets its own empty
/// (nothing reads an empty tensor's contents).
/// Internal to the CPU pipeline.
/// The entry's tensor arguments are the caller's buffers, which compiled
/// code must not write: an input whose only use is a scatter-like op
/// (`x.index_add(0, i, src)`, `y = x.clone(); y[i] = v` with the clone
/// elided) would otherwise be updated in place, changing the caller's
/// array and failing on a read-only one. One-shot bufferization copies a
/// non-writable argument before it writes it.
struct ReadOnlyEntryArguments
    : PassWrapper<ReadOnlyEntryArguments, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ReadOnlyEntryArguments)
  StringRef getArgument() const final {
    return "traced-cpu-read-only-arguments";
  }
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    if (!f->hasAttr("traced.entry") || f.isExternal())
      return;
    // (Arguments the caller donates stay writable: traced-cpu-donate-
    // arguments marked them.)
    for (unsigned i = 0, e = f.getNumArguments(); i < e; ++i)
      if (isa<TensorType>(f.getArgument(i).getType()) &&
          !f.getArgAttr(i, "traced.aliasing_output"))
        f.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                     BoolAttr::get(f.getContext(), false));
  }
};

struct DuplicateSharedFills
    : PassWrapper<DuplicateSharedFills, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DuplicateSharedFills)
  StringRef getArgument() const final { return "traced-cpu-duplicate-fills"; }
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp empty) {
      if (!empty->getResult(0).hasOneUse() &&
          !empty->getResult(0).use_empty())
        empties.push_back(empty);
    });
    for (tensor::EmptyOp empty : empties) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : empty->getResult(0).getUses())
        uses.push_back(&use);
      OpBuilder b(empty);
      b.setInsertionPointAfter(empty);
      for (OpOperand *use : llvm::drop_begin(uses))
        use->set(b.clone(*empty)->getResult(0));
    }
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp fill) {
      Value result = fill->getResult(0);
      if (fill.hasPureTensorSemantics() && !result.hasOneUse() &&
          !result.use_empty())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills) {
      Value result = fill->getResult(0);
      // The writers: each use that is not a read (an input, or a slice),
      // and for `insert_slice %r into %fill`, the op computing `%r` from
      // an `extract_slice %fill` of the same subset (how a split
      // contraction reads and writes back its accumulator; CSE shares that
      // slice between the contractions too). Reads share the original.
      struct Writer {
        OpOperand *use;
        SmallVector<std::pair<OpOperand *, tensor::ExtractSliceOp>> slices;
      };
      SmallVector<Writer> writers;
      for (OpOperand &use : result.getUses()) {
        Operation *user = use.getOwner();
        if (isa<tensor::ExtractSliceOp>(user))
          continue;
        auto dps = dyn_cast<DestinationStyleOpInterface>(user);
        if (dps && dps.isDpsInput(&use))
          continue;
        Writer writer{&use, {}};
        auto insert = dyn_cast<tensor::InsertSliceOp>(user);
        if (Operation *producer =
                insert ? insert.getSource().getDefiningOp() : nullptr)
          for (OpOperand &operand : producer->getOpOperands()) {
            auto slice = operand.get().getDefiningOp<tensor::ExtractSliceOp>();
            if (slice && slice.getSource() == result &&
                slice.getMixedOffsets() == insert.getMixedOffsets() &&
                slice.getMixedSizes() == insert.getMixedSizes() &&
                slice.getMixedStrides() == insert.getMixedStrides())
              writer.slices.push_back({&operand, slice});
          }
        writers.push_back(std::move(writer));
      }
      if (writers.empty())
        continue;
      // The first writer keeps the original. (Placing each clone right
      // before its writer, so that a buffer is allocated and zeroed where it
      // is used, made one-shot-bufferize's analysis 3x slower on vit_b_16:
      // 1.0 -> 3.3 s.)
      for (Writer &writer : llvm::drop_begin(writers)) {
        OpBuilder b(fill);
        Value init = fill.getOutputs()[0];
        if (auto empty = init.getDefiningOp<tensor::EmptyOp>())
          init = b.clone(*empty)->getResult(0);
        IRMapping mapping;
        mapping.map(fill.getOutputs()[0], init);
        Value clone = b.clone(*fill, mapping)->getResult(0);
        writer.use->set(clone);
        for (auto [operand, slice] : writer.slices) {
          b.setInsertionPoint(slice);
          IRMapping sliceMapping;
          sliceMapping.map(result, clone);
          operand->set(b.clone(*slice, sliceMapping)->getResult(0));
        }
      }
    }
  }
};
/// Moves `op` to just before `before` in the same block, keeping the
/// block's op order valid: `Operation::moveBefore` splices, which
/// invalidates it, and the next `isBeforeInBlock` renumbers the whole
/// block (quadratic over a function of thousands of moves; a removed and
/// reinserted op is numbered from its neighbours).
static void moveWithinBlock(Operation *op, Operation *before) {
  assert(op->getBlock() == before->getBlock() && "another block");
  Block *block = op->getBlock();
  op->remove();
  block->getOperations().insert(Block::iterator(before), op);
}

/// Frees each temporary right after its last use. Upstream's
/// ownership-based buffer deallocation puts every `dealloc` at the end of
/// the block that allocates (so a straight-line `forward` held all of a
/// model's temporaries until it returned: ResNet-18 at batch 32 took 1.9
/// GB where torch takes 0.25 GB). This pass moves a `memref.dealloc` of a
/// `memref.alloc` in the same block up to just after the last op of that
/// block that uses the buffer or any view of it (upstream's
/// BufferViewFlowAnalysis), so the buffer cache hands the memory to the next
/// allocation of about its size within the same call. Before that, each
/// such allocation moves down to just before its first use. A buffer with a
/// use outside the block is left alone. Internal to the CPU pipeline.
struct EarlyDeallocs
    : PassWrapper<EarlyDeallocs, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EarlyDeallocs)
  StringRef getArgument() const final { return "traced-cpu-early-deallocs"; }
  void runOnOperation() override {
    // Each dealloc of an allocation in its own block.
    SmallVector<std::pair<memref::AllocOp, memref::DeallocOp>> pairs;
    getOperation().walk([&](memref::DeallocOp dealloc) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (alloc && alloc->getBlock() == dealloc->getBlock())
        pairs.push_back({alloc, dealloc});
    });
    if (pairs.empty())
      return;
    BufferViewFlowAnalysis aliases(getOperation());
    // A fill of a whole allocation moves down to just before the first op
    // that reads or writes the buffer after it (views do neither).
    // DuplicateSharedFills gives each writer of a CSE-merged fill its own
    // copy, all where the merged fill was: without this, every padded
    // input of a network stage was allocated and zeroed at its start, and
    // all were alive together (ResNet-18: 17.1 MB a call at its peak).
    for (auto [alloc, dealloc] : pairs) {
      Block *block = alloc->getBlock();
      linalg::FillOp fill;
      for (Operation *user : alloc->getUsers()) {
        auto candidate = dyn_cast<linalg::FillOp>(user);
        if (candidate && candidate->getBlock() == block &&
            candidate.getDpsInits()[0] == alloc.getResult() &&
            (!fill || candidate->isBeforeInBlock(fill)))
          fill = candidate;
      }
      if (!fill)
        continue;
      Operation *next = nullptr;
      bool local = true;
      for (Value alias : aliases.resolve(alloc.getResult())) {
        for (Operation *user : alias.getUsers()) {
          if (user == fill.getOperation() || isa<ViewLikeOpInterface>(user))
            continue;
          Operation *ancestor = block->findAncestorOpInBlock(*user);
          if (!ancestor) {
            local = false;
            break;
          }
          if (ancestor->isBeforeInBlock(fill)) {
            // Something uses the buffer before the fill: leave it.
            local = false;
            break;
          }
          if (!next || ancestor->isBeforeInBlock(next))
            next = ancestor;
        }
        if (!local)
          break;
      }
      if (!local || !next || next == fill->getNextNode())
        continue;
      // (Its value is a constant or defined before the fill: it dominates
      // any later point in the block.)
      moveWithinBlock(fill, next);
    }
    // Allocations first move down to their first use: bufferization puts
    // some ahead of a whole stage (a layer's four padded inputs).
    for (auto [alloc, dealloc] : pairs) {
      Operation *first = nullptr;
      for (Operation *user : alloc->getUsers()) {
        Operation *ancestor = alloc->getBlock()->findAncestorOpInBlock(*user);
        if (!ancestor) {
          first = nullptr;
          break;
        }
        if (!first || ancestor->isBeforeInBlock(first))
          first = ancestor;
      }
      if (first && first != alloc->getNextNode())
        moveWithinBlock(alloc, first);
    }
    for (auto [alloc, dealloc] : pairs) {
      Value buffer = alloc.getResult();
      Block *block = dealloc->getBlock();
      Operation *last = alloc;
      bool local = true;
      for (Value alias : aliases.resolve(buffer)) {
        for (Operation *user : alias.getUsers()) {
          if (user == dealloc)
            continue;
          Operation *ancestor = block->findAncestorOpInBlock(*user);
          // (A use outside the block, or one the dealloc does not follow,
          // leaves it where it is.)
          if (!ancestor || ancestor == dealloc.getOperation() ||
              dealloc->isBeforeInBlock(ancestor)) {
            local = false;
            break;
          }
          if (last->isBeforeInBlock(ancestor))
            last = ancestor;
        }
        if (!local)
          break;
      }
      if (local && last->getNextNode() != dealloc.getOperation())
        moveWithinBlock(dealloc, last->getNextNode());
    }
  }
};

/// Plans a function's temporaries into one arena. After EarlyDeallocs,
/// each temporary allocated and freed in the function's body lives from
/// its `memref.alloc` to its `memref.dealloc` in the body's order (parallel
/// loops join before the next op). Those of static shape are given offsets
/// in one byte buffer at compile time, so that two whose lives do not
/// overlap share bytes: greedily, largest first, each at the lowest
/// 64-byte aligned offset that no overlapping one holds. Each alloc becomes
/// a `memref.view` of the arena, allocated once at the start and freed at
/// the end. Without it, the buffer cache (lib/ExecutionEngine/
/// BufferCache.cpp) hands a freed block only to a request of at least half
/// its size, and kept more than 3x the largest live set of MobileNetV2.
/// Upstream MLIR has no static planner for `memref.alloc`. Allocations in
/// nested regions (a parallel loop's per-thread patches) stay as they are.
/// Internal to the CPU pipeline.
struct PlanArena : PassWrapper<PlanArena, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PlanArena)
  StringRef getArgument() const final { return "traced-cpu-plan-arena"; }
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    int64_t index = 0;
    for (Operation &op : body)
      position[&op] = index++;
    struct Temp {
      memref::AllocOp alloc;
      memref::DeallocOp dealloc;
      int64_t bytes, begin, end, offset = -1;
    };
    SmallVector<Temp> temps;
    for (Operation &op : body) {
      auto dealloc = dyn_cast<memref::DeallocOp>(&op);
      if (!dealloc)
        continue;
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != &body)
        continue;
      MemRefType type = alloc.getType();
      unsigned bits = type.getElementTypeBitWidth();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getMemorySpace() || !type.getElementType().isIntOrFloat() ||
          bits == 0 || bits % 8)
        continue;
      // Deallocated once, by this op only.
      if (llvm::count_if(alloc->getUsers(), [](Operation *user) {
            return isa<memref::DeallocOp>(user);
          }) != 1)
        continue;
      int64_t bytes = type.getNumElements() * (bits / 8);
      temps.push_back({alloc, dealloc, std::max<int64_t>(bytes, 1),
                       position[alloc], position[dealloc]});
    }
    if (temps.size() < 2)
      return;
    // Largest first, each at the lowest aligned offset free of the ones
    // placed so far whose lives overlap its own.
    constexpr int64_t align = 64;
    SmallVector<Temp *> order;
    for (Temp &t : temps)
      order.push_back(&t);
    llvm::sort(order, [](Temp *a, Temp *b) {
      return a->bytes != b->bytes ? a->bytes > b->bytes : a->begin < b->begin;
    });
    int64_t total = 0;
    SmallVector<Temp *> placed;
    for (Temp *t : order) {
      SmallVector<std::pair<int64_t, int64_t>> taken;
      for (Temp *other : placed)
        if (other->begin < t->end && t->begin < other->end)
          taken.push_back({other->offset, other->offset + other->bytes});
      llvm::sort(taken);
      int64_t offset = 0;
      for (auto [lo, hi] : taken) {
        if (offset + t->bytes <= lo)
          break;
        offset = std::max(offset, (hi + align - 1) / align * align);
      }
      t->offset = offset;
      total = std::max(total, offset + t->bytes);
      placed.push_back(t);
    }
    OpBuilder b(func.getContext());
    b.setInsertionPointToStart(&body);
    Location loc = func.getLoc();
    auto arenaType = MemRefType::get({total}, b.getI8Type());
    Value arena = memref::AllocOp::create(b, loc, arenaType,
                                          b.getI64IntegerAttr(align));
    for (Temp &t : temps) {
      b.setInsertionPoint(t.alloc);
      Value offset = arith::ConstantIndexOp::create(b, t.alloc.getLoc(),
                                                    t.offset);
      Value view = memref::ViewOp::create(b, t.alloc.getLoc(), t.alloc.getType(),
                                          arena, offset, ValueRange{});
      t.alloc.getResult().replaceAllUsesWith(view);
      t.alloc.erase();
      t.dealloc.erase();
    }
    b.setInsertionPoint(body.getTerminator());
    memref::DeallocOp::create(b, loc, arena);
  }
};

/// Whether outlining clones `value` into the function rather than passing
/// it: a constant of one result.
static bool isClonedConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->getNumResults() == 1 && matchPattern(def, m_Constant());
}

/// Moves each outermost `scf.parallel` into a private function of its own,
/// called where the loop was. The OpenMP translation outlines every
/// parallel region with LLVM's CodeExtractor, which builds an analysis of
/// the whole enclosing function for each region: quadratic in a model's
/// size, with all its regions in one `forward` (vit_b_16: 380 regions,
/// 8.4 s of translation to LLVM IR). Constants the loop uses are cloned
/// into the function, so that its bounds and vector constants stay
/// constants; the other values it uses, buffers and weights (their
/// `memref.get_global`s) alike, become arguments. Loops that differ only in
/// which buffers and weights they read so become identical functions, which
/// upstream's duplicate-function-elimination (right after this pass) folds
/// into one: the twelve encoder layers of vit_b_16 share their code.
/// Internal to the CPU pipeline.
struct OutlineParallelLoops
    : PassWrapper<OutlineParallelLoops, OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OutlineParallelLoops)
  StringRef getArgument() const final { return "traced-cpu-outline-parallel"; }
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    SmallVector<Operation *> loops;
    module.walk([&](scf::ParallelOp loop) {
      if (loop->getNumResults() == 0 &&
          !loop->getParentOfType<scf::ParallelOp>() &&
          loop->getParentOfType<func::FuncOp>())
        loops.push_back(loop);
    });
    // Serial loop nests at a function's top level (the copies of a
    // concatenation, small elementwise ops) too, kept out of line: LLVM's
    // -O3 is superlinear in a function's size, and densenet121's `forward`
    // held hundreds of copy loops (61,000 ops; 23 s of -O3).
    // Loops that yield vectors or scalars (a small contraction's
    // accumulators, a reduction) too, as functions returning them: left
    // inline, a chain of thousands of small matmuls kept a `forward` of
    // thousands of loops, and scf-to-cf's block splitting and LLVM were
    // superlinear in it (bench/compile_scale.py).
    llvm::SmallPtrSet<Operation *, 16> serial;
    module.walk([&](scf::ForOp loop) {
      if (llvm::all_of(loop->getResultTypes(),
                       [](Type t) {
                         return isa<VectorType, IntegerType, FloatType,
                                    IndexType>(t);
                       }) &&
          isa<func::FuncOp>(loop->getParentOp()) &&
          !loop->walk([](scf::ParallelOp) { return WalkResult::interrupt(); })
               .wasInterrupted()) {
        loops.push_back(loop);
        serial.insert(loop);
      }
    });
    IRRewriter rewriter(&getContext());
    SymbolTable symbols(module);
    unsigned counter = 0;
    for (Operation *loop : loops) {
      auto parent = loop->getParentOfType<func::FuncOp>();
      Location loc = loop->getLoc();
      // (By hand rather than upstream's outlineSingleBlockRegion, which
      // replaces each captured value by walking all of that value's uses:
      // quadratic in a function that passes one buffer or constant to
      // thousands of loops; 7.3 s for a chain of 3,000 small ops,
      // bench/compile_scale.py. Here only the loop's own operands change.)
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(loop->getRegions(), captured);
      captured.insert(loop->getOperands().begin(), loop->getOperands().end());
      SmallVector<Value> arguments;
      for (Value value : captured)
        if (!isClonedConstant(value))
          arguments.push_back(value);
      bool isSerial = serial.contains(loop);
      std::string name;
      do {
        name = (parent.getSymName() + (isSerial ? "_loop_" : "_parallel_") +
                Twine(counter++))
                   .str();
      } while (symbols.lookup(name));
      rewriter.setInsertionPoint(parent);
      auto outlined = func::FuncOp::create(
          rewriter, loc, name,
          rewriter.getFunctionType(ValueRange(arguments).getTypes(),
                                   loop->getResultTypes()));
      Block *body = outlined.addEntryBlock();
      rewriter.setInsertionPointToEnd(body);
      IRMapping mapping;
      for (Value value : captured)
        if (isClonedConstant(value))
          mapping.map(value, rewriter.clone(*value.getDefiningOp())->getResult(0));
      mapping.map(arguments, body->getArguments());
      rewriter.setInsertionPoint(loop);
      auto call = func::CallOp::create(rewriter, loc, outlined, arguments);
      loop->replaceAllUsesWith(call.getResults());
      rewriter.setInsertionPointToEnd(body);
      auto ret = func::ReturnOp::create(rewriter, loc, loop->getResults());
      loop->moveBefore(ret);
      loop->walk([&](Operation *op) {
        for (OpOperand &operand : op->getOpOperands())
          if (Value replacement = mapping.lookupOrNull(operand.get()))
            operand.set(replacement);
      });
      outlined.setPrivate();
      // (LLVM's inliner would put a serial loop, called once, back.)
      if (isSerial)
        outlined->setAttr("passthrough",
                             rewriter.getArrayAttr(
                                 {rewriter.getStringAttr("noinline")}));
      symbols.insert(outlined);
    }
  }
};
} // namespace

void traced::detail::addBufferization(OpPassManager &pm, bool vectorTiles,
                                      bool arena, bool parallel, bool checks,
                                      ArrayRef<std::string> donate) {
  // The canonicalization folds loop-carried buffers that every iteration
  // yields unchanged (`scf.for iter_args(%b = %alloc)` yielding %b), so that
  // a function returns its allocation itself: buffer-results-to-out-params
  // then writes the result straight into the caller's output buffer
  // instead of a temporary copied at the end (which cost a relu on 600,000
  // floats 2 ms of page faults and copying, 20x the relu itself).
  TracedCpuDonateArgumentsOptions donation;
  donation.donate = llvm::to_vector(donate);
  pm.addPass(createTracedCpuDonateArguments(donation));
  pm.addNestedPass<func::FuncOp>(std::make_unique<ReadOnlyEntryArguments>());
  pm.addNestedPass<func::FuncOp>(detail::createRereadWrittenSlices());
  pm.addNestedPass<func::FuncOp>(std::make_unique<DuplicateSharedFills>());
  addPipelineText(pm, "one-shot-bufferize{bufferize-function-boundaries=true "
                      "function-boundary-type-conversion=identity-layout-map},"
                      "func.func(canonicalize)");
  pm.addNestedPass<func::FuncOp>(detail::createDropSelfCopies());
  pm.addPass(std::make_unique<NumberConstantGlobals>());
  pm.addNestedPass<func::FuncOp>(std::make_unique<DistinctReturnedBuffers>());
  addPipelineText(pm, "buffer-results-to-out-params{hoist-static-allocs=true "
                      "modify-public-functions=true},"
                      "canonicalize");
  pm.addPass(createTracedCpuCheckDonations());
  addPipelineText(pm, "buffer-deallocation-pipeline,"
                      "convert-bufferization-to-memref");
  pm.addNestedPass<func::FuncOp>(std::make_unique<EarlyDeallocs>());
  if (arena)
    pm.addNestedPass<func::FuncOp>(std::make_unique<PlanArena>());
  TracedCpuExpandCopiesOptions copies;
  copies.vectorTiles = vectorTiles;
  copies.parallel = parallel;
  pm.addNestedPass<func::FuncOp>(createTracedCpuExpandCopies(copies));
  TracedCpuLowerChecksOptions lowerChecks;
  lowerChecks.drop = !checks;
  pm.addPass(createTracedCpuLowerChecks(lowerChecks));
  pm.addPass(createTracedCpuFlattenGlobals());
}

void traced::buildCpuPipeline(OpPassManager &pm,
                              const CpuPipelineOptions &options) {
  detail::addFrontEnd(pm, options.entry, options.surgery);
  TracedCpuSplitFunctionsOptions split;
  split.maxOps = options.splitOps;
  pm.addPass(createTracedCpuSplitFunctions(split));
  if (options.vectorize) {
    OpPassManager &fn = pm.nest<func::FuncOp>();
    TracedCpuTileAndVectorizeOptions tiling;
    // Two 16-float AVX-512 registers per accumulator row, else two 8-float
    // AVX2 ones: 16 accumulator registers either way.
    tiling.tileN = options.tileN ? options.tileN
                   : llvm::sys::getHostCPUFeatures().lookup("avx512f") ? 32
                                                                       : 16;
    tiling.parallel = options.threads;
    tiling.packRhs = options.packRhs;
    tiling.winograd = options.winograd;
    fn.addPass(createTracedCpuTileAndVectorize(tiling));
    fn.addPass(createCanonicalizerPass());
    fn.addPass(createCSEPass());
  }
  // The upstream parts are written in textual form: they read exactly like
  // the mlir-opt pipeline that reproduces them (docs/cpu.md).
  detail::addBufferization(pm, /*vectorTiles=*/options.vectorize,
                           options.arena, /*parallel=*/options.threads,
                           options.checks, options.donate);
  if (options.vectorize) {
    pm.addNestedPass<func::FuncOp>(createTracedCpuHoistAccumulators());
    pm.addNestedPass<func::FuncOp>(createTracedCpuStridedReads());
  }
  pm.addNestedPass<func::FuncOp>(std::make_unique<ApproximateMath>());
  pm.addNestedPass<func::FuncOp>(std::make_unique<ExpandBFloat16>());
  detail::addPipelineText(
      pm, "func.func(convert-linalg-to-loops,scf-forall-to-parallel)");
  pm.addPass(std::make_unique<OutlineParallelLoops>());
  pm.addPass(func::createDuplicateFunctionEliminationPass());
  detail::addPipelineText(
      pm, "convert-scf-to-openmp,canonicalize,"
          "func.func(lower-affine,"
          "convert-vector-to-scf{full-unroll=true},convert-scf-to-cf,"
          "canonicalize),"
          "expand-strided-metadata,lower-affine,convert-math-to-libm,"
          "convert-vector-to-llvm{reassociate-fp-reductions=true},"
          "finalize-memref-to-llvm{use-generic-functions=true},"
          "convert-openmp-to-llvm,"
          "convert-to-llvm,reconcile-unrealized-casts,canonicalize");
  pm.addPass(createTracedEmitEntry());
}

void traced::registerCpuPipeline() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "traced-cpu-pipeline",
      "Compiles a traced module (or linalg on tensors) to the LLVM dialect "
      "with a C entry point traced_<entry>(void **inputs, void **outputs)",
      buildCpuPipeline);
}
