//===- GpuPipeline.cpp - traced-gpu-pipeline and its GPU passes -----------===//
//
// traced IR -> linalg on tensors (shared with the CPU pipeline) ->
// bufferized -> parallel loops -> one 1-D grid per loop nest -> gpu.launch
// -> outlined kernels -> NVVM -> gpu.binary (PTX, cubin or fatbin), and a
// host side in the LLVM dialect calling the mgpu* runtime
// (lib/Runtime/Cuda) with the C entry point of traced-emit-entry.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDGPUMAPPARALLELLOOPS
#define GEN_PASS_DEF_TRACEDGPUMANAGEDBUFFERS
#define GEN_PASS_DEF_TRACEDGPUCHECKTARGET
#include "TracedIR/Conversion/Passes.h.inc"
} // namespace mlir::traced

using namespace mlir;
using namespace mlir::traced;

//===----------------------------------------------------------------------===//
// traced-gpu-map-parallel-loops
//===----------------------------------------------------------------------===//

namespace {
struct MapParallelLoopsPass
    : traced::impl::TracedGpuMapParallelLoopsBase<MapParallelLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>())
        outermost.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp op : outermost) {
      scf::ParallelOp loop = op;
      if (op.getNumLoops() > 1) {
        std::vector<unsigned> all(op.getNumLoops());
        for (unsigned i = 0; i < all.size(); ++i)
          all[i] = i;
        rewriter.setInsertionPoint(op);
        // collapseParallelLoops replaces `op`; find its replacement.
        Block *block = op->getBlock();
        Operation *next = op->getNextNode();
        collapseParallelLoops(rewriter, op, {all});
        loop = nullptr;
        for (Operation *it = next ? next->getPrevNode() : &block->back(); it;
             it = it->getPrevNode())
          if ((loop = dyn_cast<scf::ParallelOp>(it)))
            break;
        if (!loop)
          continue;
      }
      // Constant thread counts (a guard inside, not min bounds): the
      // launch bounds must be known outside the loops.
      scf::tileParallelLoop(loop, {blockSize}, /*noMinMaxBounds=*/true);
    }
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// traced-gpu-managed-buffers
//===----------------------------------------------------------------------===//

namespace {
struct ManagedBuffersPass
    : traced::impl::TracedGpuManagedBuffersBase<ManagedBuffersPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// `gpu.dealloc` of `buffer` (synchronously: async token in, wait out).
static void deallocManaged(OpBuilder &b, Location loc, Value buffer) {
  auto tokenType = gpu::AsyncTokenType::get(b.getContext());
  Value start = gpu::WaitOp::create(b, loc, tokenType, ValueRange{})
                    .getAsyncToken();
  Value done =
      gpu::DeallocOp::create(b, loc, tokenType, ValueRange{start}, buffer)
          .getAsyncToken();
  gpu::WaitOp::create(b, loc, Type(), ValueRange{done});
}

static Value allocManaged(OpBuilder &b, Location loc, MemRefType type,
                          ValueRange dynamicSizes) {
  return gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange{},
                              dynamicSizes, /*symbolOperands=*/ValueRange{},
                              /*hostShared=*/true)
      .getMemref();
}

void ManagedBuffersPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  OpBuilder b(&getContext());
  Location loc = func.getLoc();

  // Allocations and deallocations of the function's own buffers.
  SmallVector<Operation *> allocs;
  func.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op) &&
        !op->getParentOfType<gpu::LaunchOp>())
      allocs.push_back(op);
  });
  for (Operation *op : allocs) {
    b.setInsertionPoint(op);
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      deallocManaged(b, op->getLoc(), dealloc.getMemref());
      op->erase();
      continue;
    }
    auto type = cast<MemRefType>(op->getResult(0).getType());
    if (!type.getLayout().isIdentity())
      continue;
    ValueRange sizes = isa<memref::AllocOp>(op)
                           ? cast<memref::AllocOp>(op).getDynamicSizes()
                           : cast<memref::AllocaOp>(op).getDynamicSizes();
    Value managed = allocManaged(b, op->getLoc(), type, sizes);
    op->getResult(0).replaceAllUsesWith(managed);
    bool onStack = isa<memref::AllocaOp>(op);
    op->erase();
    if (onStack) // an alloca had no dealloc: free at every return
      func.walk([&](func::ReturnOp ret) {
        b.setInsertionPoint(ret);
        deallocManaged(b, ret.getLoc(), managed);
      });
  }

  // Arguments and constants the kernels read: managed copies.
  unsigned numResults = 0;
  if (auto entry = func->getAttrOfType<TypeAttr>("traced.entry"))
    numResults = cast<FunctionType>(entry.getValue()).getNumResults();
  unsigned firstResult = func.getNumArguments() - numResults;
  llvm::SetVector<Value> shared;
  func.walk([&](gpu::LaunchOp launch) {
    launch.getBody().walk([&](Operation *op) {
      for (Value v : op->getOperands())
        if (isa<MemRefType>(v.getType()) &&
            !launch.getBody().isAncestor(v.getParentRegion()))
          shared.insert(v);
    });
  });
  Block &entry = func.getBody().front();
  for (Value v : shared) {
    // Follow views (subview, cast, reshape) to the buffer they view.
    Value root = v;
    while (Operation *def = root.getDefiningOp()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(def))
        root = view.getViewSource();
      else
        break;
    }
    auto arg = dyn_cast<BlockArgument>(root);
    bool isArg = arg && arg.getOwner() == &entry;
    auto global = root.getDefiningOp<memref::GetGlobalOp>();
    if (!isArg && !global)
      continue; // already managed (allocated above)
    if (root.getDefiningOp<gpu::AllocOp>())
      continue;
    auto type = dyn_cast<MemRefType>(root.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      continue;
    if (isArg)
      b.setInsertionPointToStart(&entry);
    else
      b.setInsertionPointAfter(global);
    bool isResult = isArg && arg.getArgNumber() >= firstResult;
    Value managed = allocManaged(b, loc, type, ValueRange{});
    if (isResult) {
      root.replaceAllUsesWith(managed);
    } else {
      auto copy = memref::CopyOp::create(b, loc, root, managed);
      root.replaceAllUsesExcept(managed, copy);
    }
    func.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      if (isResult)
        memref::CopyOp::create(b, ret.getLoc(), managed, root);
      deallocManaged(b, ret.getLoc(), managed);
    });
  }
}

//===----------------------------------------------------------------------===//
// traced-gpu-check-target
//===----------------------------------------------------------------------===//

namespace {
struct CheckTargetPass
    : traced::impl::TracedGpuCheckTargetBase<CheckTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    if (format != "isa" && format != "bin" && format != "fatbin") {
      module.emitError() << "unknown GPU binary format '" << format
                         << "' (isa, bin or fatbin)";
      return signalPassFailure();
    }
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    llvm::Triple triple("nvptx64-nvidia-cuda");
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target) {
      module.emitError() << "this LLVM has no NVPTX backend: " << error;
      return signalPassFailure();
    }
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        target->createMCSubtargetInfo(triple, "", ""));
    if (!info || !info->isCPUStringValid(chip)) {
      module.emitError() << "unknown GPU chip '" << chip
                         << "' (NVPTX processors are sm_XX, e.g. sm_90)";
      return signalPassFailure();
    }
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// traced-gpu-pipeline
//===----------------------------------------------------------------------===//

void traced::buildGpuPipeline(OpPassManager &pm,
                              const GpuPipelineOptions &options) {
  TracedGpuCheckTargetOptions check;
  check.chip = options.chip;
  check.format = options.format;
  pm.addPass(createTracedGpuCheckTarget(check));
  detail::addFrontEnd(pm, options.entry, options.surgery);
  detail::addBufferization(pm, /*vectorTiles=*/false);
  std::string block = std::to_string(options.blockSize);
  OpPassManager &fn = pm.nest<func::FuncOp>();
  detail::addPipelineText(fn, "convert-linalg-to-parallel-loops,canonicalize");
  TracedGpuMapParallelLoopsOptions map;
  map.blockSize = options.blockSize;
  fn.addPass(createTracedGpuMapParallelLoops(map));
  detail::addPipelineText(fn, "gpu-map-parallel-loops,"
                              "convert-parallel-loops-to-gpu,canonicalize");
  fn.addPass(createTracedGpuManagedBuffers());
  // Kernels: outlined, NVVM; host: gpu-to-llvm (the steps of upstream's
  // gpu-lower-to-nvvm-pipeline, spelled out so tests can stop before
  // serialization).
  std::string target = "nvvm-attach-target{chip=" + options.chip.getValue() +
                       " features=" + options.features.getValue() + " O=3}";
  detail::addPipelineText(
      pm, "gpu-kernel-outlining,lower-affine,convert-scf-to-cf,"
          "expand-strided-metadata,lower-affine," +
              target +
              ",gpu.module(convert-gpu-to-nvvm{index-bitwidth=64},"
              "canonicalize,cse,reconcile-unrealized-casts)");
  if (!options.binary)
    return;
  detail::addPipelineText(
      pm, "gpu-to-llvm,gpu-module-to-binary{format=" +
              options.format.getValue() +
              "},finalize-memref-to-llvm,convert-math-to-libm,"
              "convert-to-llvm,reconcile-unrealized-casts,canonicalize");
  pm.addPass(createTracedEmitEntry());
}

void traced::registerGpuPipeline() {
  PassPipelineRegistration<GpuPipelineOptions>(
      "traced-gpu-pipeline",
      "Compiles a traced module for NVIDIA GPUs: host code in the LLVM "
      "dialect calling the mgpu* runtime, kernels in gpu.binary ops",
      buildGpuPipeline);
}
