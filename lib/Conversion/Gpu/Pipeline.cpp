//===- Pipeline.cpp - traced-gpu-pipeline and its GPU passes --------------===//
//
// traced IR -> linalg on tensors (shared with the CPU pipeline) ->
// bufferized -> parallel loops -> one 1-D grid per loop nest -> gpu.launch
// -> outlined kernels -> NVVM -> gpu.binary (PTX, cubin or fatbin), and a
// host side in the LLVM dialect calling the mgpu* runtime
// (lib/Runtime/Cuda) with the C entry point of traced-emit-entry.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Conversion/Passes.h"
#include "TracedIR/Dialect/Traced/TracedOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"

namespace mlir::traced {
#define GEN_PASS_DEF_TRACEDGPUMAPPARALLELLOOPS
#define GEN_PASS_DEF_TRACEDGPUDEVICEBUFFERS
#define GEN_PASS_DEF_TRACEDGPUCHECKTARGET
#define GEN_PASS_DEF_TRACEDGPUTENSORMAPS
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
    // Stores outside any loop (0-d ops, the initial value of a reduction to
    // a 0-d result): each with the loads and arithmetic it stores, as one
    // thread of one block. What is left of the originals is dead.
    SmallVector<memref::StoreOp> stores;
    getOperation().walk([&](memref::StoreOp op) {
      if (!op->getParentOfType<LoopLikeOpInterface>() &&
          !op->getParentOfType<gpu::LaunchOp>())
        stores.push_back(op);
    });
    for (memref::StoreOp store : stores) {
      llvm::SetVector<Operation *> slice;
      SmallVector<Operation *> work{store};
      while (!work.empty()) {
        Operation *op = work.pop_back_val();
        for (Value v : op->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (!def || def->getBlock() != store->getBlock() ||
              def->getNumRegions() || isa<MemRefType>(v.getType()) ||
              !slice.insert(def))
            continue;
          work.push_back(def);
        }
      }
      OpBuilder b(store);
      Value zero = arith::ConstantIndexOp::create(b, store.getLoc(), 0);
      Value one = arith::ConstantIndexOp::create(b, store.getLoc(), 1);
      auto wrapper = scf::ParallelOp::create(b, store.getLoc(), ValueRange{zero},
                                             ValueRange{one}, ValueRange{one});
      b.setInsertionPoint(wrapper.getBody()->getTerminator());
      IRMapping map;
      SmallVector<Operation *> ordered(slice.begin(), slice.end());
      llvm::sort(ordered, [](Operation *a, Operation *c) {
        return a->isBeforeInBlock(c);
      });
      for (Operation *op : ordered)
        b.clone(*op, map);
      b.clone(*store, map);
      store->erase();
      for (Operation *op : llvm::reverse(ordered))
        if (op->use_empty() && (isPure(op) || isa<memref::LoadOp>(op)))
          op->erase();
    }

    // Loop nests with no parallel loop (a reduction to a 0-d result): one
    // thread of one block.
    SmallVector<scf::ForOp> serial;
    getOperation().walk([&](scf::ForOp op) {
      if (!op->getParentOfType<scf::ParallelOp>() &&
          !op->getParentOfType<scf::ForOp>() &&
          !op->getParentOfType<gpu::LaunchOp>() && op->getNumResults() == 0)
        serial.push_back(op);
    });
    for (scf::ForOp op : serial) {
      OpBuilder b(op);
      Value zero = arith::ConstantIndexOp::create(b, op.getLoc(), 0);
      Value one = arith::ConstantIndexOp::create(b, op.getLoc(), 1);
      auto wrapper = scf::ParallelOp::create(b, op.getLoc(), ValueRange{zero},
                                             ValueRange{one}, ValueRange{one});
      op->moveBefore(wrapper.getBody()->getTerminator());
    }
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
// traced-gpu-device-buffers
//===----------------------------------------------------------------------===//

namespace {
struct DeviceBuffersPass
    : traced::impl::TracedGpuDeviceBuffersBase<DeviceBuffersPass> {
  using Base::Base;
  void runOnOperation() override;
  LogicalResult runOnFunction(func::FuncOp func);
};
} // namespace

/// The name of the runtime function returning a constant's resident device
/// copy (lib/Runtime/Cuda): `uint64_t traced_gpu_resident(uint64_t host,
/// uint64_t bytes)`.
static constexpr StringLiteral kResidentFn = "traced_gpu_resident";

/// The name of the runtime function telling whether an argument's memory
/// can be used in place by the kernels (lib/Runtime/Cuda): `int32_t
/// traced_gpu_in_place(uint64_t address)`, nonzero for device memory of the
/// runtime's context, not managed, 256-byte aligned.
static constexpr StringLiteral kInPlaceFn = "traced_gpu_in_place";

/// The address of `buffer`'s data as an i64 (for the runtime's calls).
static Value addressOf(OpBuilder &b, Location loc, Value buffer) {
  return arith::IndexCastOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer));
}

/// The bytes of a static memref's data.
static int64_t byteSize(MemRefType type) {
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

static Value allocDevice(OpBuilder &b, Location loc, MemRefType type,
                         ValueRange dynamicSizes) {
  return gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange{},
                              dynamicSizes, /*symbolOperands=*/ValueRange{},
                              /*hostShared=*/false)
      .getMemref();
}

static void deallocDevice(OpBuilder &b, Location loc, Value buffer) {
  gpu::DeallocOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{}, buffer);
}

static void copyDevice(OpBuilder &b, Location loc, Value dst, Value src) {
  gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange{}, dst, src);
}

/// The device copy of the constant `host` (a static, identity-layout memref):
/// the pointer `traced_gpu_resident` returns, wrapped in a memref descriptor
/// of `host`'s type (built in the LLVM dialect; the unrealized cast folds
/// away against finalize-memref-to-llvm's).
static Value residentCopy(OpBuilder &b, Location loc, Value host) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<MemRefType>(host.getType());
  Type i64 = b.getI64Type();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Value address = addressOf(b, loc, host);
  Value size = arith::ConstantIntOp::create(b, loc, i64, byteSize(type));
  Value device = func::CallOp::create(b, loc, kResidentFn, TypeRange{i64},
                                      ValueRange{address, size})
                     .getResult(0);
  device = LLVM::IntToPtrOp::create(b, loc, ptrType, device);

  SmallVector<Type> fields{ptrType, ptrType, i64};
  int64_t rank = type.getRank();
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto descType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value desc = LLVM::PoisonOp::create(b, loc, descType);
  auto constant = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  desc = LLVM::InsertValueOp::create(b, loc, desc, device,
                                     ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, device,
                                     ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, constant(0),
                                     ArrayRef<int64_t>{2});
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  for (int64_t i = 0; i < rank; ++i) {
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, constant(type.getDimSize(i)), ArrayRef<int64_t>{3, i});
    desc = LLVM::InsertValueOp::create(b, loc, desc, constant(strides[i]),
                                       ArrayRef<int64_t>{4, i});
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

/// Whether `op` is a host-side "tensor map of this buffer" marker
/// (`kTensorMapAttrName`).
static bool isTensorMapMarker(Operation *op) {
  auto cast = dyn_cast<UnrealizedConversionCastOp>(op);
  return cast && cast->hasAttr(kTensorMapAttrName) &&
         cast.getNumOperands() == 1 && cast.getNumResults() == 1 &&
         isa<MemRefType>(cast.getOperand(0).getType());
}

/// Declares the runtime function `name` (lib/Runtime/Cuda) in `module`
/// unless it is there.
static void declareRuntimeFunction(mlir::ModuleOp module, StringRef name,
                                   FunctionType type) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  func::FuncOp::create(b, module.getLoc(), name, type).setPrivate();
}

/// The buffer `v` views (through subviews, casts, reshapes).
static Value viewRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// Whether anything may write the buffer `root` (or a view of it): an op
/// declaring a write or free of it, or of no value in particular, a copy
/// into it, or an op whose effects are unknown. Reads, views, metadata and
/// tensor-map markers (TMA only loads) do not write.
static bool mayBeWritten(Value root) {
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == v) {
        llvm::append_range(worklist, user->getResults());
        continue;
      }
      if (isTensorMapMarker(user) ||
          isa<memref::DimOp, memref::ExtractStridedMetadataOp>(user))
        continue;
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects)
        return true;
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      for (const MemoryEffects::EffectInstance &effect : list)
        if (isa<MemoryEffects::Write, MemoryEffects::Free>(
                effect.getEffect()) &&
            (!effect.getValue() || effect.getValue() == v))
          return true;
    }
  }
  return false;
}

void DeviceBuffersPass::runOnOperation() {
  mlir::ModuleOp module = getOperation();
  // A kernel cannot call host code: the scalar special-function runtime's
  // routines (igamma, igammac; docs/special-runtime.md) run on the CPU only.
  WalkResult hostCall = module.walk([&](func::CallOp call) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee || !callee.isExternal() || !call->getParentOfType<gpu::LaunchOp>())
      return WalkResult::advance();
    call.emitError() << "a GPU kernel would call the host function '"
                     << call.getCallee()
                     << "' (the CPU runtime of igamma and igammac, "
                        "docs/special-runtime.md): compile this model for "
                        "the CPU";
    return WalkResult::interrupt();
  });
  if (hostCall.wasInterrupted())
    return signalPassFailure();
  bool needsResident = false, needsInPlace = false;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (failed(runOnFunction(func)))
      return signalPassFailure();
    func.walk([&](func::CallOp call) {
      needsResident |= call.getCallee() == kResidentFn;
      needsInPlace |= call.getCallee() == kInPlaceFn;
    });
  }
  Type i32 = IntegerType::get(&getContext(), 32);
  Type i64 = IntegerType::get(&getContext(), 64);
  if (needsResident)
    declareRuntimeFunction(
        module, kResidentFn,
        FunctionType::get(&getContext(), {i64, i64}, {i64}));
  if (needsInPlace)
    declareRuntimeFunction(module, kInPlaceFn,
                           FunctionType::get(&getContext(), {i64}, {i32}));
}

namespace {
/// traced-gpu-device-buffers on one function, stage by stage: the
/// function's own buffers become device allocations; the arguments and
/// constants the kernels use get device copies (or are used in place);
/// host-side copies become device copies; any other host access is an
/// error. The stages share the builder and what the in-place decisions
/// need.
struct DeviceBufferRewriter {
  explicit DeviceBufferRewriter(func::FuncOp func)
      : func(func), b(func.getContext()), loc(func.getLoc()),
        entry(func.getBody().front()) {}

  func::FuncOp func;
  OpBuilder b;
  Location loc;
  Block &entry;
  /// The first argument that is a result (out-parameter) of the entry.
  unsigned firstResult = 0;
  /// The buffers the kernels and tensor maps use from outside the
  /// kernels, arguments first.
  SmallVector<Value> ordered;
  /// The first and end byte of each static memref argument.
  llvm::MapVector<Value, std::pair<Value, Value>> extents;
  /// The ops that read the arguments' addresses.
  llvm::SmallPtrSet<Operation *, 8> addressOps;
  /// The last op made at the entry for the in-place decisions.
  Operation *afterAddresses = nullptr;
  /// Per argument used in place when it can be: the i1 that says so.
  DenseMap<Value, Value> inPlace;

  static bool outsideKernels(Operation *op) {
    return !op->getParentOfType<gpu::LaunchOp>();
  }

  /// All stages, in order.
  LogicalResult run() {
    if (failed(allocateOnDevice()))
      return failure();
    collectRoots();
    computeExtents();
    decideInPlace();
    if (failed(copyRootsToDevice()) || failed(lowerHostCopies()))
      return failure();
    return checkNoHostAccess();
  }

  /// The function's own buffers: device allocations.
  LogicalResult allocateOnDevice() {
    SmallVector<Operation *> allocs;
    func.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp>(op) &&
          outsideKernels(op))
        allocs.push_back(op);
    });
    for (Operation *op : allocs) {
      b.setInsertionPoint(op);
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        deallocDevice(b, op->getLoc(), dealloc.getMemref());
        op->erase();
        continue;
      }
      auto type = cast<MemRefType>(op->getResult(0).getType());
      if (!type.getLayout().isIdentity())
        return op->emitError("a GPU buffer with a non-identity layout");
      ValueRange sizes = isa<memref::AllocOp>(op)
                             ? cast<memref::AllocOp>(op).getDynamicSizes()
                             : cast<memref::AllocaOp>(op).getDynamicSizes();
      Value device = allocDevice(b, op->getLoc(), type, sizes);
      op->getResult(0).replaceAllUsesWith(device);
      bool onStack = isa<memref::AllocaOp>(op);
      op->erase();
      if (onStack) // an alloca had no dealloc: free at every return
        func.walk([&](func::ReturnOp ret) {
          b.setInsertionPoint(ret);
          deallocDevice(b, ret.getLoc(), device);
        });
    }
    return success();
  }

  /// Arguments and constants the kernels or copies read, into `ordered`.
  void collectRoots() {
    unsigned numResults = 0;
    if (auto entryType = func->getAttrOfType<TypeAttr>("traced.entry"))
      numResults = cast<FunctionType>(entryType.getValue()).getNumResults();
    firstResult = func.getNumArguments() - numResults;
    llvm::SetVector<Value> roots;
    func.walk([&](gpu::LaunchOp launch) {
      launch.getBody().walk([&](Operation *op) {
        for (Value v : op->getOperands())
          if (isa<MemRefType>(v.getType()) &&
              !launch.getBody().isAncestor(v.getParentRegion()))
            roots.insert(viewRoot(v));
      });
    });
    // A tensor map is built over the device copy (traced-gpu-tensor-maps).
    func.walk([&](UnrealizedConversionCastOp cast) {
      if (isTensorMapMarker(cast))
        roots.insert(viewRoot(cast.getOperand(0)));
    });
    // (Arguments first, so that the resident weights, moved to the entry
    // afterwards, come before any stream is opened.)
    ordered.assign(roots.begin(), roots.end());
    std::stable_partition(ordered.begin(), ordered.end(),
                          [](Value v) { return isa<BlockArgument>(v); });
  }

  /// The first and end byte of each static memref argument, for the
  /// in-place decisions below (at the entry, before anything else).
  void computeExtents() {
    b.setInsertionPointToStart(&entry);
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
        continue;
      Value address = addressOf(b, loc, arg);
      Value end = arith::AddIOp::create(
          b, loc, address,
          arith::ConstantIntOp::create(b, loc, b.getI64Type(), byteSize(type)));
      addressOps.insert(address.getDefiningOp()->getOperand(0).getDefiningOp());
      extents[arg] = {address, end};
      afterAddresses = end.getDefiningOp();
    }
  }

  /// Whether each argument the kernels use can be used in place: the
  /// caller's memory itself when it is device memory (torch CUDA tensors,
  /// say) that the kernels may use, for an input no kernel or copy writes,
  /// or for a result that overlaps no other argument. (Computed before any
  /// GPU op: gpu-async-region would otherwise wait for the stream at each
  /// runtime call.)
  void decideInPlace() {
    for (Value root : ordered) {
      auto arg = dyn_cast<BlockArgument>(root);
      auto extent = extents.find(root);
      if (!arg || arg.getOwner() != &entry || extent == extents.end())
        continue;
      auto [address, end] = extent->second;
      bool isResult = arg.getArgNumber() >= firstResult;
      if (!isResult && mayBeWritten(root))
        continue;
      b.setInsertionPointAfter(afterAddresses);
      auto call = func::CallOp::create(b, loc, kInPlaceFn, b.getI32Type(),
                                       ValueRange{address});
      Value ok = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ne, call.getResult(0),
          arith::ConstantIntOp::create(b, loc, 0, 32));
      if (isResult) {
        for (auto &[other, range] : extents) {
          if (other == root)
            continue;
          auto [first, last] = range;
          // Disjoint: end <= first || last <= address.
          Value before = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ule, end, first);
          Value after = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ule, last, address);
          ok = arith::AndIOp::create(
              b, loc, ok, arith::OrIOp::create(b, loc, before, after));
        }
      }
      inPlace[root] = ok;
      afterAddresses = ok.getDefiningOp();
    }
  }

  /// Each argument and constant in `ordered` on the device: constants
  /// resident, arguments copied in (and results out) or used in place.
  LogicalResult copyRootsToDevice() {
    for (Value root : ordered) {
      auto arg = dyn_cast<BlockArgument>(root);
      bool isArg = arg && arg.getOwner() == &entry;
      auto global = root.getDefiningOp<memref::GetGlobalOp>();
      if (!isArg && !global)
        continue; // a device allocation (allocateOnDevice)
      auto type = dyn_cast<MemRefType>(root.getType());
      if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
        return emitError(root.getLoc())
               << "a GPU kernel reads a buffer of type " << root.getType()
               << "; only static, identity-layout arguments and constants "
                  "can be copied to the device";
      if (global) {
        makeResident(global);
        continue;
      }
      copyArgument(arg, type);
    }
    return success();
  }

  /// Weights: resident on the device after the first call.
  void makeResident(memref::GetGlobalOp global) {
    global->moveBefore(&entry, entry.begin());
    b.setInsertionPointAfter(global);
    Value device = residentCopy(b, global.getLoc(), global);
    global.getResult().replaceUsesWithIf(device, [&](OpOperand &use) {
      return !isa<memref::ExtractAlignedPointerAsIndexOp>(use.getOwner());
    });
  }

  /// The caller's memory where it can be used in place (decideInPlace),
  /// else the function's device buffer, copied in or out. The copy between
  /// a buffer and itself is skipped by the runtime (mgpuMemcpy); the
  /// device buffer is allocated either way (from the runtime's cache).
  void copyArgument(BlockArgument arg, MemRefType type) {
    Value root = arg;
    if (afterAddresses)
      b.setInsertionPointAfter(afterAddresses);
    else
      b.setInsertionPointToStart(&entry);
    bool isResult = arg.getArgNumber() >= firstResult;
    Value device = allocDevice(b, loc, type, ValueRange{});
    Value buffer = device;
    Operation *select = nullptr;
    if (Value ok = inPlace.lookup(root)) {
      select = arith::SelectOp::create(b, loc, ok, root, device);
      buffer = select->getResult(0);
    }
    root.replaceUsesWithIf(buffer, [&](OpOperand &use) {
      Operation *owner = use.getOwner();
      return !addressOps.contains(owner) && owner != select;
    });
    if (!isResult)
      copyDevice(b, loc, buffer, root);
    func.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      if (isResult)
        copyDevice(b, ret.getLoc(), root, buffer);
      deallocDevice(b, ret.getLoc(), device);
    });
  }

  /// Host-side copies between buffers: device copies (cuMemcpy infers the
  /// direction from the addresses).
  LogicalResult lowerHostCopies() {
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) {
      if (outsideKernels(copy))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      auto src = cast<MemRefType>(copy.getSource().getType());
      auto dst = cast<MemRefType>(copy.getTarget().getType());
      if (src != dst || !src.getLayout().isIdentity())
        return copy.emitError("a host-side copy of a strided buffer view (")
               << src << " to " << dst << ") has no GPU lowering";
      b.setInsertionPoint(copy);
      copyDevice(b, copy.getLoc(), copy.getTarget(), copy.getSource());
      copy.erase();
    }
    return success();
  }

  /// Anything else on the host touching a buffer would read device memory.
  LogicalResult checkNoHostAccess() {
    WalkResult walk = func.walk([&](Operation *op) {
      if (!outsideKernels(op) || isa<gpu::LaunchOp>(op))
        return WalkResult::advance();
      if (isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp, func::ReturnOp,
              memref::ExtractAlignedPointerAsIndexOp, ViewLikeOpInterface,
              memref::ExtractStridedMetadataOp, memref::DimOp,
              arith::SelectOp>(op) ||
          isTensorMapMarker(op))
        return WalkResult::advance();
      for (Value v : op->getOperands())
        if (isa<MemRefType>(v.getType())) {
          op->emitError("host code would access a GPU buffer here; the GPU "
                        "pipeline has no kernel for this op");
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }
};
} // namespace

LogicalResult DeviceBuffersPass::runOnFunction(func::FuncOp func) {
  return DeviceBufferRewriter(func).run();
}

//===----------------------------------------------------------------------===//
// traced-gpu-tensor-maps
//===----------------------------------------------------------------------===//

/// `uint64_t traced_gpu_tensor_map(uint64_t address, int32_t type, int32_t
/// rank, uint64_t d0, d1, d2, uint64_t s1, s2, uint32_t b0, b1, b2)`
/// (lib/Runtime/Cuda).
static constexpr StringLiteral kTensorMapFn = "traced_gpu_tensor_map";

namespace {
struct TensorMapsPass
    : traced::impl::TracedGpuTensorMapsBase<TensorMapsPass> {
  using Base::Base;
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    SmallVector<UnrealizedConversionCastOp> markers;
    module.walk([&](UnrealizedConversionCastOp cast) {
      if (isTensorMapMarker(cast) && !cast->getParentOfType<gpu::GPUModuleOp>())
        markers.push_back(cast);
    });
    if (markers.empty())
      return;
    OpBuilder b(&getContext());
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    SmallVector<Type> argTypes{i64, i32, i32, i64, i64, i64, i64, i64,
                               i32, i32, i32};
    for (UnrealizedConversionCastOp marker : markers) {
      Location loc = marker.getLoc();
      Value buffer = marker.getOperand(0);
      auto type = cast<MemRefType>(buffer.getType());
      auto box = dyn_cast<DenseI64ArrayAttr>(marker->getAttr(kTensorMapAttrName));
      Type elem = type.getElementType();
      int64_t rank = type.getRank();
      if (!box || box.size() != 3 || !type.hasStaticShape() ||
          !type.getLayout().isIdentity() || rank < 1 || rank > 3 ||
          !(elem.isBF16() || elem.isF16())) {
        marker.emitError("a tensor map needs a static, row-major buffer of "
                         "bfloat16 or float16 of rank 1 to 3 and a box of "
                         "3 sizes; got ")
            << type;
        return signalPassFailure();
      }
      b.setInsertionPoint(marker);
      auto i64c = [&](int64_t v) {
        return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
      };
      auto i32c = [&](int64_t v) {
        return arith::ConstantIntOp::create(b, loc, i32, v).getResult();
      };
      // Sizes innermost first; row pitches in bytes.
      ArrayRef<int64_t> shape = type.getShape();
      SmallVector<int64_t> dims(3, 1), pitches(2, 0);
      int64_t pitch = 2;
      for (int64_t i = 0; i < rank; ++i) {
        dims[i] = shape[rank - 1 - i];
        if (i > 0)
          pitches[i - 1] = pitch;
        pitch *= dims[i];
      }
      Value address = addressOf(b, loc, buffer);
      SmallVector<Value> args{address, i32c(elem.isBF16() ? 0 : 1),
                              i32c(rank)};
      for (int64_t d : dims)
        args.push_back(i64c(d));
      for (int64_t p : pitches)
        args.push_back(i64c(p));
      for (int64_t e : box.asArrayRef())
        args.push_back(i32c(e));
      Value map = func::CallOp::create(b, loc, kTensorMapFn, TypeRange{i64},
                                       args)
                      .getResult(0);
      marker.getResult(0).replaceAllUsesWith(map);
      marker.erase();
    }
    declareRuntimeFunction(module, kTensorMapFn,
                           b.getFunctionType(argTypes, {i64}));
  }
};
} // namespace

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
    // Dynamic dims (traced.trace(..., dynamic_dims=)) are compiled for the
    // CPU only: the device buffers and tiled kernels take static sizes.
    WalkResult dynamic = module.walk([&](traced::GraphOp graph) {
      for (Type t : llvm::concat<const Type>(graph.getArgumentTypes(),
                                             graph.getResultTypes()))
        if (auto tensor = dyn_cast<RankedTensorType>(t);
            tensor && !tensor.hasStaticShape()) {
          graph.emitError() << "graph '" << graph.getSymName() << "' has "
                            << "dynamic dims (" << t << "): the GPU pipeline "
                            << "compiles static shapes only (trace without "
                            << "dynamic_dims, or compile for the CPU)";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (dynamic.wasInterrupted())
      return signalPassFailure();
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
  // (No int8 runtime on the GPU: quantized contractions take the float
  // path, docs/gpu.md.)
  detail::addFrontEnd(pm, options.entry, options.surgery, /*int8Kernels=*/false);
  detail::addBufferization(pm, /*vectorTiles=*/false);
  std::string block = std::to_string(options.blockSize);
  OpPassManager &fn = pm.nest<func::FuncOp>();
  if (options.tileContractions) {
    TracedGpuTileContractionsOptions tile;
    tile.contiguous = options.contiguousThreadTiles;
    tile.fuse = options.fuseEpilogues;
    tile.kStep = options.tileKStep;
    // mma.sync m16n8k16 on bfloat16 and cp.async need sm_80.
    unsigned sm = 0;
    tile.tensorCores = options.tensorCores &&
                       StringRef(options.chip).starts_with("sm_") &&
                       !StringRef(options.chip).drop_front(3).take_while(
                            llvm::isDigit).getAsInteger(10, sm) &&
                       sm >= 80;
    tile.mmaStages = options.mmaStages;
    tile.mmaKStep = options.mmaKStep;
    tile.mmaBlockN = options.mmaBlockN;
    // wgmma exists on sm_90a only (sm_90 code must run on later chips).
    tile.wgmma = options.wgmma && options.chip == "sm_90a";
    tile.mmaBlockM = options.mmaBlockM;
    tile.tma = options.tma;
    tile.tf32 = options.tf32 && tile.tensorCores;
    fn.addPass(createTracedGpuTileContractions(tile));
  }
  if (options.blockReductions) {
    TracedGpuReductionsOptions reductions;
    reductions.rows = options.rowKernels;
    fn.addPass(createTracedGpuReductions(reductions));
  }
  detail::addPipelineText(fn, "convert-linalg-to-parallel-loops,canonicalize");
  TracedGpuMapParallelLoopsOptions map;
  map.blockSize = options.blockSize;
  fn.addPass(createTracedGpuMapParallelLoops(map));
  detail::addPipelineText(fn, "gpu-map-parallel-loops,"
                              "convert-parallel-loops-to-gpu,canonicalize");
  pm.addPass(createTracedGpuDeviceBuffers());
  // Kernels: outlined, NVVM; host: gpu-to-llvm (the steps of upstream's
  // gpu-lower-to-nvvm-pipeline, spelled out so tests can stop before
  // serialization).
  std::string target = "nvvm-attach-target{chip=" + options.chip.getValue() +
                       " features=" + options.features.getValue() + " O=3}";
  // Constants hoisted out of the launches by canonicalization go back in
  // (else they become kernel parameters, and ptxas cannot fold them).
  detail::addPipelineText(
      pm, "func.func(gpu-launch-sink-index-computations),gpu-kernel-outlining");
  TracedGpuAlignWorkgroupOptions align;
  align.minBlocks = options.tileMinBlocks;
  pm.addPass(createTracedGpuAlignWorkgroup(align));
  detail::addPipelineText(pm, "func.func(gpu-async-region)");
  pm.addPass(createTracedGpuTensorMaps());
  detail::addPipelineText(
      pm, "lower-affine,convert-scf-to-cf,expand-strided-metadata,lower-affine," +
              target +
              ",gpu.module(convert-nvgpu-to-nvvm,convert-gpu-to-nvvm{index-bitwidth=64},"
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
