//===- CpuModule.cpp - JIT and object files for compiled traced models ----===//

#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/ExecutionEngine/BufferCache.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "TracedIR/Support/DType.h"
#include "TracedIR/Support/Progress.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Support/Timing.h"
#include <cstdio>
#include <unistd.h>
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::traced;

CpuModule::~CpuModule() {
  // (The engine, and so the code that could still free into the cache,
  // goes first.)
  engine.reset();
  releaseCachedBuffers();
}

/// The names finalize-memref-to-llvm{use-generic-functions} calls.
static constexpr const char *kAllocName = "_mlir_memref_to_llvm_alloc";
static constexpr const char *kFreeName = "_mlir_memref_to_llvm_free";

/// Weak definitions of the generic allocation functions the compiled code
/// calls, as malloc and free: an object file links on its own, and a
/// library that brings its own (save_library's caching ones) wins.
static LogicalResult defineWeakAllocFunctions(mlir::ModuleOp module) {
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  auto define = [&](StringRef name, auto body) -> LogicalResult {
    auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
    if (!fn || !fn.isExternal())
      return success();
    fn.setLinkage(LLVM::Linkage::Weak);
    Block *entry = fn.addEntryBlock(b);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    return body(fn, entry);
  };
  Type i64 = b.getI64Type();
  if (failed(define(kAllocName, [&](LLVM::LLVMFuncOp fn, Block *entry) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(module.getBody());
        FailureOr<LLVM::LLVMFuncOp> malloc =
            LLVM::lookupOrCreateMallocFn(b, module, i64);
        if (failed(malloc))
          return failure();
        b.setInsertionPointToStart(entry);
        auto call = LLVM::CallOp::create(b, fn.getLoc(), *malloc,
                                         entry->getArguments());
        LLVM::ReturnOp::create(b, fn.getLoc(), call.getResult());
        return success();
      })))
    return failure();
  return define(kFreeName, [&](LLVM::LLVMFuncOp fn, Block *entry) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    FailureOr<LLVM::LLVMFuncOp> free = LLVM::lookupOrCreateFreeFn(b, module);
    if (failed(free))
      return failure();
    b.setInsertionPointToStart(entry);
    LLVM::CallOp::create(b, fn.getLoc(), *free, entry->getArguments());
    LLVM::ReturnOp::create(b, fn.getLoc(), ValueRange());
    return success();
  });
}

namespace {
struct MemoryInstrumentation : public PassInstrumentation {
  static long rssMiB() {
    long pages = 0, resident = 0;
    if (FILE *f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
      std::fclose(f);
    }
    return resident * sysconf(_SC_PAGESIZE) / (1 << 20);
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    if (isa<ModuleOp>(op))
      llvm::errs() << "[mem] " << pass->getName() << ": " << rssMiB() << " MiB\n";
  }
};
} // namespace

static void initializeLLVM() {
  static bool done = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)done;
}

/// A scope for one step under the monitor's timer, or an inactive one.
static TimingScope stage(const CompileMonitor &monitor, StringRef name) {
  if (monitor.progress)
    showProgress("compile", name);
  return monitor.timing ? monitor.timing->nest(name) : TimingScope();
}

FailureOr<FunctionType> traced::lowerForCpu(mlir::ModuleOp module,
                                            const CpuPipelineOptions &options,
                                            const CompileMonitor &monitor) {
  MLIRContext *ctx = module.getContext();
  registerBuiltinDialectTranslation(*ctx);
  registerLLVMDialectTranslation(*ctx);
  // A value the compiled code would allocate that cannot fit in memory is
  // refused now with its op's location: at run time malloc would fail and
  // the generated code has no way to report it.
  uint64_t memory = physicalMemoryBytes().value_or(~uint64_t(0));
  WalkResult tooBig = module.walk([&](Operation *op) {
    for (Type t : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape())
        continue;
      std::optional<uint64_t> bytes = tensorBytes(
          tensor.getShape(),
          std::max<uint64_t>(1, tensor.getElementTypeBitWidth() / 8));
      if (!bytes || *bytes > memory) {
        op->emitError("compiled code would allocate ")
            << (bytes ? std::to_string(*bytes) : std::string("more than 2^64"))
            << " bytes for " << t << ", more than this machine's "
            << memory << " bytes of memory";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (tooBig.wasInterrupted())
    return failure();
  PassManager pm(ctx, mlir::ModuleOp::getOperationName());
  if (std::getenv("TRACED_PASS_MEMORY"))
    pm.addInstrumentation(std::make_unique<MemoryInstrumentation>());
  buildCpuPipeline(pm, options);
  if (monitor.progress)
    addProgress(pm, "compile");
  TimingScope passes;
  if (monitor.timing) {
    passes = monitor.timing->nest("MLIR pipeline (traced-cpu-pipeline)");
    pm.enableTiming(passes);
  }
  if (failed(pm.run(module)))
    return failure();
  passes.stop();
  FunctionType signature;
  module.walk([&](LLVM::LLVMFuncOp f) {
    if (f.getName() == options.entry.getValue())
      if (auto t = f->getAttrOfType<TypeAttr>("traced.entry"))
        signature = dyn_cast<FunctionType>(t.getValue());
  });
  if (!signature)
    return module.emitError() << "the compiled module has no entry '"
                              << options.entry.getValue() << "'";
  return signature;
}

/// A target machine for this host: its CPU and features (AVX-512 where the
/// CPU has it).
///
/// Weights are constants, so a model's globals can be gigabytes. The default
/// small code model addresses them with 32-bit PC-relative offsets: the JIT
/// maps big data sections wherever mmap puts them, often more than 2 GiB
/// from the code, and the truncated offsets then point to unmapped memory
/// (a Linear(8192, 4096) faulted on its first weight load). The JIT uses
/// the large code model (64-bit absolute addresses; they are loop-invariant,
/// so the loops are unchanged); object files use the medium one, which
/// keeps code and small data near but puts globals above 64 KiB into
/// .lrodata/.ldata, addressed with 64 bits, so a library may hold more than
/// 2 GiB of weights.
static std::unique_ptr<llvm::TargetMachine>
hostTargetMachine(llvm::CodeModel::Model codeModel) {
  initializeLLVM();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  llvm::SubtargetFeatures features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.first(), feature.second);
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(), options,
      llvm::Reloc::PIC_, codeModel, llvm::CodeGenOptLevel::Aggressive));
}

/// Lets the X86 backend keep 512-bit vectors whole: on AVX-512 CPUs LLVM
/// prefers 256-bit vectors and otherwise splits every vector<32xf32> FMA.
static void preferWideVectors(llvm::Module &module) {
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("prefer-vector-width", "512");
    f.addFnAttr("min-legal-vector-width", "512");
  }
}

/// -O3 for this host, after `preferWideVectors`.
static std::function<llvm::Error(llvm::Module *)>
optimizer(llvm::TargetMachine *tm) {
  auto optimize = makeOptimizingTransformer(3, 0, tm);
  return [optimize](llvm::Module *m) {
    preferWideVectors(*m);
    return optimize(m);
  };
}

void traced::registerCompilerDialects(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<traced::TracedDialect>();
  // Lets hoistLoopInvariantSubsets move accumulator transfers out of loops
  // (traced-cpu-tile-and-vectorize); not part of registerAllDialects.
  vector::registerSubsetOpInterfaceExternalModels(registry);
  // LLVM IR translation for every dialect that reaches it (gpu.module
  // serialization translates NVVM kernels; the JIT and object writer the
  // host side).
  registerAllToLLVMIRTranslations(registry);
}

LogicalResult traced::writeCpuObject(mlir::ModuleOp module,
                                     llvm::raw_ostream &os,
                                     const CompileMonitor &monitor) {
  std::unique_ptr<llvm::TargetMachine> tm =
      hostTargetMachine(llvm::CodeModel::Medium);
  if (!tm)
    return module.emitError("no LLVM target for this host");
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  if (failed(defineWeakAllocFunctions(module)))
    return module.emitError("cannot define the allocation functions");
  llvm::LLVMContext llvmContext;
  TimingScope translation = stage(monitor, "translate to LLVM IR");
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return module.emitError("cannot translate the module to LLVM IR");
  translation.stop();
  llvmModule->setTargetTriple(tm->getTargetTriple());
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setCodeModel(tm->getCodeModel());
  TimingScope optimization = stage(monitor, "LLVM -O3");
  if (llvm::Error err = optimizer(tm.get())(llvmModule.get())) {
    return module.emitError("LLVM optimization failed: ")
           << llvm::toString(std::move(err));
  }
  optimization.stop();
  TimingScope codegenTime = stage(monitor, "LLVM code generation");
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream bufferStream(buffer);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, bufferStream, nullptr,
                              llvm::CodeGenFileType::ObjectFile))
    return module.emitError("the target cannot emit object files");
  codegen.run(*llvmModule);
  codegenTime.stop();
  if (monitor.progress)
    clearProgress();
  os.write(buffer.data(), buffer.size());
  return success();
}

/// The resource blobs `root`'s attributes name (weights, folded constants).
static llvm::DenseSet<DialectResourceBlobManager::BlobEntry *>
resourceBlobs(Operation *root) {
  llvm::DenseSet<DialectResourceBlobManager::BlobEntry *>
      blobs;
  root->walk([&](Operation *op) {
    for (NamedAttribute named : op->getAttrs())
      named.getValue().walk([&](DenseResourceElementsAttr r) {
        if (auto *entry = r.getRawHandle().getResource())
          blobs.insert(entry);
      });
  });
  return blobs;
}

FailureOr<std::unique_ptr<CpuModule>>
CpuModule::compile(mlir::ModuleOp module, const CpuPipelineOptions &options,
                   const CompileMonitor &monitor) {
  OwningOpRef<mlir::ModuleOp> copy(module.clone());
  auto userBlobs = resourceBlobs(module);
  FailureOr<FunctionType> signature = lowerForCpu(*copy, options, monitor);
  if (failed(signature))
    return failure();
  std::unique_ptr<llvm::TargetMachine> tm =
      hostTargetMachine(llvm::CodeModel::Large);
  if (!tm)
    return module.emitError("no LLVM target for this host");
  ExecutionEngineOptions engineOptions;
  // (`transformer` is a function_ref: the function must outlive create().)
  std::function<llvm::Error(llvm::Module *)> optimize =
      [&, inner = optimizer(tm.get())](llvm::Module *m) {
        TimingScope scope = stage(monitor, "LLVM -O3");
        return inner(m);
      };
  engineOptions.transformer = optimize;
  // The blobs the pipeline made (transposed filters, folded constants) are
  // dead once LLVM IR holds their bytes: freeing them right after the
  // translation keeps one fewer copy of the weights through code generation
  // and none after it. The user's module keeps its own.
  auto translate = [&](Operation *op, llvm::LLVMContext &llvmContext) {
    TimingScope scope = stage(monitor, "translate to LLVM IR");
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(op, llvmContext);
    if (llvmModule)
      for (auto *entry : resourceBlobs(op))
        if (!userBlobs.contains(entry))
          entry->setBlob(AsmResourceBlob());
    return llvmModule;
  };
  engineOptions.llvmModuleBuilder = translate;
  // Parallel loops call the OpenMP runtime (Debian's libomp-22-dev).
  SmallVector<StringRef> libs;
  if (llvm::sys::fs::exists(TRACED_LIBOMP_PATH))
    libs.push_back(TRACED_LIBOMP_PATH);
  engineOptions.sharedLibPaths = libs;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  // Upstream turns both debugger and profiler listeners on by default: the
  // perf one writes a jit-<pid>.dump directory under /tmp/.debug for every
  // process (half a gigabyte after one test run), and the GDB one keeps a
  // global list of every object. TRACED_JIT_PROFILE=1 turns them on.
  bool profile = std::getenv("TRACED_JIT_PROFILE") != nullptr;
  engineOptions.enableGDBNotificationListener = profile;
  engineOptions.enablePerfNotificationListener = profile;
  auto engine = ExecutionEngine::create(*copy, engineOptions, std::move(tm));
  if (!engine)
    return module.emitError("JIT compilation failed: ")
           << llvm::toString(engine.takeError());
  // Temporaries come from the buffer cache (BufferCache.h).
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    symbols[interner(kAllocName)] = {
        llvm::orc::ExecutorAddr::fromPtr(+[](uint64_t size) {
          return cachedAlloc(size);
        }),
        llvm::JITSymbolFlags::Exported};
    symbols[interner(kFreeName)] = {
        llvm::orc::ExecutorAddr::fromPtr(+[](void *ptr) { cachedFree(ptr); }),
        llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  bool dynamic = llvm::any_of(
      llvm::concat<const Type>(signature->getInputs(), signature->getResults()),
      [](Type t) { return !cast<RankedTensorType>(t).hasStaticShape(); });
  std::string name = "traced_" + options.entry.getValue() +
                     (dynamic ? "_sized" : "");
  // The JIT generates machine code when the entry is first looked up.
  TimingScope codegenTime = stage(monitor, "LLVM code generation");
  auto symbol = (*engine)->lookup(name);
  codegenTime.stop();
  if (monitor.progress)
    clearProgress();
  if (!symbol)
    return module.emitError("the JIT has no symbol '")
           << name << "': " << llvm::toString(symbol.takeError());
  std::unique_ptr<CpuModule> result(new CpuModule());
  copy->walk([&](Operation *f) {
    if (auto checks = f->getAttrOfType<ArrayAttr>("traced.checks");
        checks && f->hasAttr("traced.entry"))
      for (Attribute m : checks)
        result->checks.push_back(cast<StringAttr>(m).str());
  });
  if (dynamic) {
    result->sizedEntry =
        reinterpret_cast<int (*)(void **, void **, const int64_t *)>(*symbol);
    std::string prefix = "traced_" + options.entry.getValue();
    auto shapes = (*engine)->lookup(prefix + "_output_shapes");
    auto names = (*engine)->lookup(prefix + "_dim_names");
    if (!shapes || !names) {
      llvm::consumeError(shapes.takeError());
      llvm::consumeError(names.takeError());
      return module.emitError("the JIT has no output-shape function or dim "
                              "names for the dynamic entry");
    }
    result->outputShapesFn =
        reinterpret_cast<int (*)(const int64_t *, int64_t *)>(*shapes);
    StringRef text(reinterpret_cast<const char *>(*names));
    SmallVector<StringRef> parts;
    text.split(parts, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef p : parts)
      result->dimNames.push_back(p.str());
  } else {
    result->entry = reinterpret_cast<int (*)(void **, void **)>(*symbol);
  }
  result->engine = std::move(*engine);
  result->signature = *signature;
  for (Type t : signature->getResults())
    llvm::append_range(result->staticOutputDims,
                       cast<RankedTensorType>(t).getShape());
  return result;
}
