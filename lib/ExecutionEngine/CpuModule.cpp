//===- CpuModule.cpp - JIT and object files for compiled traced models ----===//

#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/ExecutionEngine/BufferCache.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/Runtime/LinalgRuntime.h"
#include "TracedIR/Runtime/LossRuntime.h"
#include "TracedIR/Runtime/Int8Runtime.h"
#include "TracedIR/Runtime/SortRuntime.h"
#include "TracedIR/Runtime/SpecialRuntime.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "TracedIR/Support/Blobs.h"
#include "TracedIR/Support/DType.h"
#include "TracedIR/Support/Limits.h"
#include "TracedIR/Interpreter/Interpreter.h"
#include "llvm/ADT/ScopeExit.h"
#include <thread>
#include <chrono>
#include <atomic>
#include "TracedIR/Support/Progress.h"

#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Support/Timing.h"
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Transforms/Utils/SplitModule.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>

using namespace mlir;
using namespace mlir::traced;

CpuModule::~CpuModule() {
  // (The engine, and so the code that could still free into the cache,
  // goes first.)
  jit.reset();
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

/// compiler-rt's float -> bfloat16 and double -> bfloat16 truncations,
/// which LLVM calls for `fptrunc` on an x86 CPU without AVX-512 BF16
/// (libgcc 12 has neither). Round to nearest even; a NaN stays a quiet
/// NaN of its sign. The double one rounds once: to float by rounding to
/// odd (exact bits kept sticky), then to bfloat16.
static __bf16 traced_truncsfbf2(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint16_t h = (u & 0x7fffffffu) > 0x7f800000u
                   ? uint16_t((u >> 16) | 0x40u)
                   : uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  __bf16 r;
  std::memcpy(&r, &h, 2);
  return r;
}

static __bf16 traced_truncdfbf2(double d) {
  float f = static_cast<float>(d);
  if (std::isfinite(d) && static_cast<double>(f) != d) {
    // f rounded away from d's side: step back toward zero, then mark the
    // lost bits in the last place (round to odd).
    if (std::fabs(static_cast<double>(f)) > std::fabs(d))
      f = std::nextafter(f, 0.0f);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u |= 1u;
    std::memcpy(&f, &u, 4);
  }
  return traced_truncsfbf2(f);
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
    if (isa<mlir::ModuleOp>(op))
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

/// Whether the environment variable `name` is set to something other than
/// "" or "0".
static bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && StringRef(v) != "0";
}

/// A scope for one step under the monitor's timer, or an inactive one.
static TimingScope stage(const CompileMonitor &monitor, StringRef name) {
  if (monitor.progress)
    showProgress("compile", name);
  return monitor.timing ? monitor.timing->nest(name) : TimingScope();
}

/// The error of a compile that CompileMonitor::cancelled stopped.
static LogicalResult emitInterrupted(Operation *at) {
  return at->emitError("the compile was interrupted");
}

FailureOr<FunctionType> traced::lowerForCpu(mlir::ModuleOp module,
                                            const CpuPipelineOptions &options,
                                            const CompileMonitor &monitor) {
  MLIRContext *ctx = module.getContext();
  registerBuiltinDialectTranslation(*ctx);
  registerLLVMDialectTranslation(*ctx);
  // A value the compiled code would allocate that exceeds max_tensor_bytes
  // (by default this machine's memory) is refused now with its op's
  // location; one of a dynamic shape is checked when it is allocated
  // (BufferCache.h).
  if (failed(checkOpCount(module, "the module to compile")))
    return failure();
  WalkResult tooBig = module.walk([&](Operation *op) {
    for (Type t : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape())
        continue;
      // (Quantized elements take their storage integers' width.)
      Type element = quantStorageElement(tensor.getElementType());
      if (!element.isIntOrIndexOrFloat())
        continue;
      std::optional<uint64_t> bytes = tensorBytes(
          tensor.getShape(),
          std::max<uint64_t>(1, element.getIntOrFloatBitWidth() / 8));
      if (!bytes) {
        noteResourceFailure();
        op->emitError("compiled code would allocate more than 2^64 bytes for ")
            << t;
        return WalkResult::interrupt();
      }
      if (*bytes > getResourceLimits().maxTensorBytes) {
        std::string what;
        llvm::raw_string_ostream(what) << "a compiled " << t;
        emitTensorBytesLimit(op->getLoc(), what, *bytes);
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (tooBig.wasInterrupted())
    return failure();
  PassManager pm(ctx, mlir::ModuleOp::getOperationName());
  // The module is verified once, after the pipeline, as clang verifies
  // around its pipeline rather than after every pass: ResNet-18's 60-odd
  // verifications took 0.24 s of its 2.3 s trace to callable. TRACED_VERIFY_EACH=1
  // (the test suites set it) verifies after every pass again.
  bool verifyEach = envFlag("TRACED_VERIFY_EACH");
  pm.enableVerifier(verifyEach);
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
  // Cancellation (CompileMonitor::cancelled) through MLIR's action
  // framework: once it says stop, every pass still to run is skipped, and
  // the half-lowered copy is dropped. (A pass cannot be failed from an
  // instrumentation.)
  if (monitor.cancelled)
    ctx->registerActionHandler([&](function_ref<void()> transform,
                                   const tracing::Action &action) {
      if (isa<PassExecutionAction>(action) && monitor.checkCancelled())
        return;
      transform();
    });
  LogicalResult ran = pm.run(module);
  if (monitor.cancelled)
    ctx->registerActionHandler(nullptr);
  if (monitor.wasCancelled)
    return emitInterrupted(module);
  if (failed(ran))
    return failure();
  if (!verifyEach && failed(mlir::verify(module)))
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
  // Half arithmetic as torch computes it: each op through float, rounded
  // to half. With AVX512-FP16 (Sapphire Rapids and later) LLVM computes
  // half natively, and FPOpFusion::Fast below then fuses a half multiply
  // and add into one FMA that rounds once, where torch rounds twice
  // (docs/cpu.md, "Numerics"). Without the feature half is promoted to
  // float op by op, as on every other x86 CPU; float32 is unaffected.
  features.AddFeature("avx512fp16", false);
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(), options,
      llvm::Reloc::PIC_, codeModel, llvm::CodeGenOptLevel::Aggressive));
}

/// Lets the X86 backend keep 512-bit vectors whole: on AVX-512 CPUs LLVM
/// prefers 256-bit vectors and otherwise splits every vector<32xf32> FMA.
///
/// And keeps the SLP vectorizer off the long straight-line functions: the
/// entry that calls the outlined loops and parallel regions one after the
/// other is one basic block (vit_b_16's: 1,100 instructions, 5,700 once
/// the parallel regions' launch code is inlined, 561 `__kmpc_fork_call`s
/// storing their arguments). SLP spent 0.47 s of vit_b_16's 1.0 s of -O3
/// there (its dependence scheduling grows with the block's memory
/// accesses) and vectorized one store. `noimplicitfloat` is the attribute
/// SLP (and the loop vectorizer, which has no loop there) skips a function
/// for; the explicit vector code of such a block is unchanged.
static void preferWideVectors(llvm::Module &module) {
  for (llvm::Function &f : module) {
    if (f.isDeclaration())
      continue;
    f.addFnAttr("prefer-vector-width", "512");
    f.addFnAttr("min-legal-vector-width", "512");
    if (f.size() == 1 && f.getInstructionCount() >= 512)
      f.addFnAttr(llvm::Attribute::NoImplicitFloat);
  }
}

/// Rewrites each constant global holding a large array of numbers (the
/// weights) as the same bytes typed `[N x i8]`. LLVM's object writer emits
/// a number array element by element, each through an APFloat or APInt (8
/// s of vit_b_16's 330 MB of weights), and a byte array as one block. The
/// code reads the globals through pointers, whose type does not change.
static void weightsAsBytes(llvm::Module &module) {
  llvm::Type *byte = llvm::Type::getInt8Ty(module.getContext());
  for (llvm::GlobalVariable &global :
       llvm::make_early_inc_range(module.globals())) {
    if (!global.isConstant() || !global.hasInitializer())
      continue;
    auto *data =
        dyn_cast<llvm::ConstantDataSequential>(global.getInitializer());
    if (!data || data->isString())
      continue;
    StringRef raw = data->getRawDataValues();
    if (raw.size() < 4096)
      continue;
    llvm::Constant *bytes =
        llvm::ConstantDataArray::getRaw(raw, raw.size(), byte);
    auto *replacement = new llvm::GlobalVariable(
        module, bytes->getType(), /*isConstant=*/true, global.getLinkage(),
        bytes, "", &global, global.getThreadLocalMode(),
        global.getAddressSpace());
    replacement->copyAttributesFrom(&global);
    // An alignment the old global only had implicitly (its element type's)
    // is kept explicitly.
    replacement->setAlignment(
        global.getPointerAlignment(module.getDataLayout()));
    replacement->takeName(&global);
    global.replaceAllUsesWith(replacement);
    global.eraseFromParent();
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
  // traced-fold-constants and the decompositions evaluate constant calls
  // with the interpreter's kernels (ConstantEvaluator.h).
  registerConstantEvaluator(registry);
  // Lets hoistLoopInvariantSubsets move accumulator transfers out of loops
  // (traced-cpu-tile-and-vectorize); not part of registerAllDialects.
  vector::registerSubsetOpInterfaceExternalModels(registry);
  // LLVM IR translation for every dialect that reaches it (gpu.module
  // serialization translates NVVM kernels; the JIT and object writer the
  // host side).
  registerAllToLLVMIRTranslations(registry);
}

/// `module` at -O3 (after `preferWideVectors`), then as object-file bytes
/// for `tm`.
static llvm::Expected<SmallVector<char, 0>>
optimizeAndEmit(llvm::Module &module, llvm::TargetMachine &tm,
                const CompileMonitor *monitor) {
  TimingScope optimization =
      monitor ? stage(*monitor, "LLVM -O3") : TimingScope();
  if (llvm::Error err = optimizer(&tm)(&module))
    return llvm::createStringError("LLVM optimization failed: " +
                                   llvm::toString(std::move(err)));
  optimization.stop();
  TimingScope codegenTime =
      monitor ? stage(*monitor, "LLVM code generation") : TimingScope();
  SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream bufferStream(buffer);
  llvm::legacy::PassManager codegen;
  if (tm.addPassesToEmitFile(codegen, bufferStream, nullptr,
                             llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit object files");
  codegen.run(module);
  return buffer;
}

/// The threads `emitObjects` compiles on: one per hardware thread, at most
/// 8 (TRACED_COMPILE_THREADS sets another count, 1 for none). (Not the MLIR
/// context's threading: the Python bindings' contexts have it off, for the
/// pools it would keep per context; this pool lives for one compile.)
static unsigned compileThreads() {
  if (const char *v = std::getenv("TRACED_COMPILE_THREADS"))
    if (unsigned n; !StringRef(v).getAsInteger(10, n) && n > 0)
      return std::min(n, 64u);
  return std::min(8u, llvm::hardware_concurrency().compute_thread_count());
}

/// How many parts `emitObjects` splits `module` into for `threads`: four a
/// thread, so that a pool that takes the largest first ends them about
/// together (SplitModule balances the parts by their instructions before
/// -O3, which only roughly predicts their time), or one where the module
/// is too small to pay for a split (each part costs a bitcode round trip
/// and a target machine: a few milliseconds).
static unsigned partitionCount(const llvm::Module &module, unsigned threads) {
  size_t instructions = 0, functions = 0;
  for (const llvm::Function &f : module)
    if (!f.isDeclaration()) {
      instructions += f.getInstructionCount();
      ++functions;
    }
  if (threads <= 1 || instructions < 2000)
    return 1;
  return std::min<size_t>(4 * threads, functions);
}

/// `module` (in the LLVM dialect) as object files for this host's CPU,
/// optimized at -O3, in `codeModel`. `translated` runs on the module right
/// after its translation to LLVM IR (the JIT frees the pipeline's blobs
/// there).
///
/// With `maxParts` above one, a large module is split (LLVM's SplitModule,
/// which gives each part whole functions, balanced by size, and makes the
/// local symbols the parts share external) and the parts are optimized and
/// compiled on as many threads, each in its own LLVMContext (a context is
/// not thread-safe: each part crosses over as bitcode). Nothing inlines
/// across the parts; the calls between the generated functions are the
/// OpenMP runtime's calls of the outlined loop bodies, and the entry's
/// calls of the functions DuplicateFunctionElimination shares, none of
/// which LLVM inlined before. -O3 and code generation were 1.5 s of
/// ResNet-18's 3.5 s compile (docs/cpu.md, "Compile time").
static FailureOr<SmallVector<SmallVector<char, 0>>>
emitObjects(mlir::ModuleOp module, llvm::CodeModel::Model codeModel,
            const CompileMonitor &monitor, unsigned maxParts,
            llvm::function_ref<void(Operation *)> translated = {}) {
  std::unique_ptr<llvm::TargetMachine> tm = hostTargetMachine(codeModel);
  if (!tm)
    return module.emitError("no LLVM target for this host");
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  TimingScope translation = stage(monitor, "translate to LLVM IR");
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return module.emitError("cannot translate the module to LLVM IR");
  if (translated)
    translated(module);
  translation.stop();
  if (monitor.checkCancelled()) {
    if (monitor.progress)
      clearProgress();
    return emitInterrupted(module);
  }
  llvmModule->setTargetTriple(tm->getTargetTriple());
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setCodeModel(tm->getCodeModel());
  weightsAsBytes(*llvmModule);
  SmallVector<SmallVector<char, 0>> objects;
  unsigned threads = compileThreads();
  unsigned parts =
      std::min(maxParts, partitionCount(*llvmModule, threads));
  if (parts <= 1) {
    llvm::Expected<SmallVector<char, 0>> object =
        optimizeAndEmit(*llvmModule, *tm, &monitor);
    if (!object)
      return module.emitError(llvm::toString(object.takeError()));
    objects.push_back(std::move(*object));
  } else {
    TimingScope split = stage(monitor, "split the LLVM module");
    SmallVector<SmallVector<char, 0>> bitcode;
    llvm::SplitModule(
        *llvmModule, parts,
        [&](std::unique_ptr<llvm::Module> part) {
          SmallVector<char, 0> bytes;
          llvm::raw_svector_ostream os(bytes);
          llvm::WriteBitcodeToFile(*part, os);
          bitcode.push_back(std::move(bytes));
        },
        /*PreserveLocals=*/false);
    llvmModule.reset();
    split.stop();
    TimingScope parallel =
        stage(monitor, "LLVM -O3 and code generation, " +
                           std::to_string(bitcode.size()) + " parts on " +
                           std::to_string(threads) + " threads");
    objects.resize(bitcode.size());
    SmallVector<std::string> errors(bitcode.size());
    {
      llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
      SmallVector<size_t> order =
          llvm::to_vector(llvm::seq<size_t>(0, bitcode.size()));
      llvm::stable_sort(order, [&](size_t x, size_t y) {
        return bitcode[x].size() > bitcode[y].size();
      });
      // The parts not started when the compile is cancelled are skipped;
      // this thread asks while it waits (Python's Ctrl-C is seen here).
      std::atomic<bool> stop{false};
      std::atomic<size_t> finished{0};
      for (size_t i : order)
        pool.async([&, i] {
          auto done = llvm::make_scope_exit([&] { ++finished; });
          if (stop)
            return;
          llvm::LLVMContext context;
          auto part = llvm::parseBitcodeFile(
              llvm::MemoryBufferRef(
                  StringRef(bitcode[i].data(), bitcode[i].size()), "part"),
              context);
          if (!part) {
            errors[i] = llvm::toString(part.takeError());
            return;
          }
          std::unique_ptr<llvm::TargetMachine> partTm =
              hostTargetMachine(codeModel);
          llvm::Expected<SmallVector<char, 0>> object =
              optimizeAndEmit(**part, *partTm, /*monitor=*/nullptr);
          if (!object)
            errors[i] = llvm::toString(object.takeError());
          else
            objects[i] = std::move(*object);
        });
      if (monitor.cancelled)
        while (finished < order.size()) {
          if (monitor.checkCancelled())
            stop = true;
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
      pool.wait();
    }
    if (monitor.wasCancelled) {
      if (monitor.progress)
        clearProgress();
      return emitInterrupted(module);
    }
    for (const std::string &error : errors)
      if (!error.empty())
        return module.emitError(error);
  }
  if (monitor.progress)
    clearProgress();
  return objects;
}

LogicalResult traced::writeCpuObject(mlir::ModuleOp module,
                                     llvm::raw_ostream &os,
                                     const CompileMonitor &monitor) {
  if (failed(defineWeakAllocFunctions(module)))
    return module.emitError("cannot define the allocation functions");
  FailureOr<SmallVector<SmallVector<char, 0>>> objects =
      emitObjects(module, llvm::CodeModel::Medium, monitor, /*maxParts=*/1);
  if (failed(objects))
    return failure();
  os.write(objects->front().data(), objects->front().size());
  return success();
}

/// The resource blobs `root`'s attributes name (weights, folded constants),
/// each once, in the order the walk meets them (the cache key hashes them
/// in that order).
static llvm::SetVector<DialectResourceBlobManager::BlobEntry *>
resourceBlobs(Operation *root) {
  llvm::SetVector<DialectResourceBlobManager::BlobEntry *> blobs;
  root->walk([&](Operation *op) {
    for (NamedAttribute named : op->getAttrs())
      named.getValue().walk([&](DenseResourceElementsAttr r) {
        if (auto *entry = r.getRawHandle().getResource())
          blobs.insert(entry);
      });
  });
  return blobs;
}

/// A compiled model as the compile cache keeps it: the object files for
/// the JIT (one per part `emitObjects` compiled), the entry's signature
/// (printed), the run-time checks' messages and the weights the objects
/// declare.
namespace {
/// A weight the object declares and the JIT binds to memory of ours.
struct Weight {
  std::string symbol;
  AsmResourceBlob bytes;
  /// What the code may assume of the bytes' address (the global's
  /// alignment, at least 64): a moved blob may say less of itself.
  size_t alignment = 64;
};
struct Artifact {
  std::string signature;
  std::vector<std::string> checks;
  SmallVector<SmallVector<char, 0>> objects;
  std::vector<Weight> weights;
};
} // namespace

/// Takes the large constant globals (the weights, and the panels and
/// transposed filters the pipeline packed from them) out of `module`, which
/// is in the LLVM dialect: each becomes an external declaration, and its
/// bytes go to the returned list, for the JIT to bind the symbol to.
/// Through LLVM a weight is copied into the LLVM context, hashed for
/// uniquing, copied again by `weightsAsBytes`, written into the object and
/// copied once more by the JIT's linker: vit_b_16's 330 MB of weights were
/// about 2 s of its compile time. The pipeline's own blobs move out of
/// their entries (nothing reads them after this); the user's module keeps
/// its blobs, so those are copied once.
static std::vector<Weight> externalizeWeights(
    mlir::ModuleOp module,
    const llvm::SetVector<DialectResourceBlobManager::BlobEntry *> &userBlobs) {
  std::vector<Weight> weights;
  llvm::DenseMap<DialectResourceBlobManager::BlobEntry *,
                 std::pair<ArrayRef<char>, size_t>>
      taken;
  module.walk([&](LLVM::GlobalOp global) {
    auto value =
        dyn_cast_or_null<DenseResourceElementsAttr>(global.getValueOrNull());
    if (!global.getConstant() || !value)
      return;
    auto *entry = value.getRawHandle().getResource();
    Type element = value.getType().getElementType();
    if (!entry || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() % 8 != 0)
      return;
    std::string symbol = global.getSymName().str();
    if (auto it = taken.find(entry); it != taken.end()) {
      // A second global over the same blob reads the same memory.
      weights.push_back({symbol,
                         AsmResourceBlob(it->second.first, 64, nullptr,
                                         /*dataIsMutable=*/false),
                         it->second.second});
    } else {
      AsmResourceBlob *blob = entry->getBlob();
      // (Only whole arrays of 4 KiB or more: a splat or a short blob stays
      // an initializer.)
      if (!blob || blob->getData().size() < 4096 ||
          blob->getData().size() !=
              uint64_t(value.getType().getNumElements()) *
                  (element.getIntOrFloatBitWidth() / 8))
        return;
      size_t alignment =
          std::max<size_t>({blob->getDataAlignment(), 64,
                            size_t(global.getAlignment().value_or(1))});
      AsmResourceBlob bytes;
      if (!userBlobs.contains(entry) &&
          reinterpret_cast<uintptr_t>(blob->getData().data()) % alignment ==
              0) {
        bytes = std::move(*blob);
      } else {
        bytes = copyToBlob(blob->getData(), alignment);
      }
      if (!userBlobs.contains(entry))
        entry->setBlob(AsmResourceBlob());
      taken[entry] = {bytes.getData(), alignment};
      weights.push_back({symbol, std::move(bytes), alignment});
    }
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
  });
  return weights;
}

static constexpr llvm::StringLiteral kCacheMagic = "TRACED-CPU-CACHE 3\n";

/// Cache files: the magic line, a checksum line (XXH3 of the rest, in hex:
/// a damaged object must not reach the JIT), then length-prefixed records
/// ("<n>\n" and n bytes): the signature, the check count, each check, the
/// object count, each object, the weight count, and each weight's symbol,
/// alignment and bytes.
/// This is the records part; `storeInCache` writes the two lines before it.
static std::string serializeRecords(const Artifact &a) {
  std::string out;
  size_t total = 0;
  for (const SmallVector<char, 0> &o : a.objects)
    total += o.size();
  for (const Weight &w : a.weights)
    total += w.bytes.getData().size();
  out.reserve(total + 4096);
  auto record = [&](StringRef bytes) {
    out += std::to_string(bytes.size());
    out += '\n';
    out += bytes;
  };
  record(a.signature);
  record(std::to_string(a.checks.size()));
  for (const std::string &c : a.checks)
    record(c);
  record(std::to_string(a.objects.size()));
  for (const SmallVector<char, 0> &o : a.objects)
    record(StringRef(o.data(), o.size()));
  record(std::to_string(a.weights.size()));
  for (const Weight &w : a.weights) {
    record(w.symbol);
    record(std::to_string(w.alignment));
    ArrayRef<char> data = w.bytes.getData();
    record(StringRef(data.data(), data.size()));
  }
  return out;
}

static std::optional<Artifact> deserialize(StringRef in) {
  if (!in.consume_front(kCacheMagic))
    return std::nullopt;
  size_t line = in.find('\n');
  if (line == StringRef::npos ||
      in.take_front(line) != llvm::utohexstr(llvm::xxh3_64bits(in.drop_front(line + 1))))
    return std::nullopt;
  in = in.drop_front(line + 1);
  auto record = [&]() -> std::optional<StringRef> {
    size_t newline = in.find('\n');
    uint64_t n;
    if (newline == StringRef::npos ||
        in.take_front(newline).getAsInteger(10, n) || n > in.size() - newline - 1)
      return std::nullopt;
    StringRef bytes = in.substr(newline + 1, n);
    in = in.drop_front(newline + 1 + n);
    return bytes;
  };
  Artifact a;
  std::optional<StringRef> signature = record(), count = record();
  uint64_t n;
  if (!signature || !count || count->getAsInteger(10, n))
    return std::nullopt;
  a.signature = signature->str();
  for (uint64_t i = 0; i < n; ++i) {
    std::optional<StringRef> check = record();
    if (!check)
      return std::nullopt;
    a.checks.push_back(check->str());
  }
  std::optional<StringRef> objects = record();
  if (!objects || objects->getAsInteger(10, n) || n == 0)
    return std::nullopt;
  for (uint64_t i = 0; i < n; ++i) {
    std::optional<StringRef> object = record();
    if (!object || object->empty())
      return std::nullopt;
    a.objects.emplace_back(object->begin(), object->end());
  }
  std::optional<StringRef> weights = record();
  if (!weights || weights->getAsInteger(10, n))
    return std::nullopt;
  for (uint64_t i = 0; i < n; ++i) {
    std::optional<StringRef> symbol = record(), alignment = record(),
                             bytes = record();
    uint64_t align;
    if (!symbol || !alignment || !bytes ||
        alignment->getAsInteger(10, align) || !llvm::isPowerOf2_64(align) ||
        align > 4096)
      return std::nullopt;
    align = std::max<uint64_t>(align, 64);
    a.weights.push_back({symbol->str(),
                         copyToBlob(
                             ArrayRef<char>(bytes->data(), bytes->size()),
                             align),
                         size_t(align)});
  }
  if (!in.empty())
    return std::nullopt;
  return a;
}

/// The cache key of compiling `module` with `options` on this host: a
/// SHA-256 over the module as printed (with locations, which the run-time
/// checks' messages carry) and the bytes of every resource blob it names,
/// the options, LLVM's version, this CPU and its features, and the
/// compiler itself (the size and time of the binary holding this code, so
/// that a rebuilt TracedIR never reads an older build's objects).
static std::string cacheKey(mlir::ModuleOp module,
                            const CpuPipelineOptions &options) {
  llvm::SHA256 hash;
  auto add = [&](StringRef bytes) {
    hash.update(std::to_string(bytes.size()));
    hash.update(":");
    hash.update(bytes);
  };
  add(kCacheMagic);
  add(LLVM_VERSION_STRING);
  add(llvm::sys::getHostCPUName());
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> enabled;
  for (const auto &f : features)
    if (f.second)
      enabled.push_back(f.first().str());
  llvm::sort(enabled);
  for (const std::string &f : enabled)
    add(f);
  Dl_info info;
  struct stat st;
  if (dladdr(reinterpret_cast<void *>(&cacheKey), &info) && info.dli_fname &&
      stat(info.dli_fname, &st) == 0) {
    add(info.dli_fname);
    add(std::to_string(st.st_size));
    add(std::to_string(st.st_mtim.tv_sec) + "." +
        std::to_string(st.st_mtim.tv_nsec));
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  options.print(os);
  module->print(os, OpPrintingFlags().enableDebugInfo().elideLargeResourceString(0));
  add(text);
  for (DialectResourceBlobManager::BlobEntry *entry : resourceBlobs(module)) {
    add(entry->getKey());
    if (AsmResourceBlob *blob = entry->getBlob()) {
      ArrayRef<char> data = blob->getData();
      add(StringRef(data.data(), data.size()));
    }
  }
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

std::string traced::defaultCompileCacheDir() {
  if (const char *off = std::getenv("TRACED_CACHE"))
    if (StringRef(off) == "0" || StringRef(off).equals_insensitive("off"))
      return "";
  if (const char *dir = std::getenv("TRACED_CACHE_DIR"))
    return dir;
  SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    path = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    llvm::sys::path::append(path, home, ".cache");
  else
    return "";
  llvm::sys::path::append(path, "traced");
  return path.str().str();
}

/// Writes `a` to `path` (through a temporary file and a rename, so that a
/// reader never sees half a file), then evicts the least recently used
/// entries beyond TRACED_CACHE_MAX_MB (default 4096) in its directory. A
/// cache that cannot be written is not an error: the next compile misses.
static void storeInCache(StringRef path, const Artifact &a) {
  StringRef dir = llvm::sys::path::parent_path(path);
  if (llvm::sys::fs::create_directories(dir))
    return;
  // (A unique name: another thread or process may store the same key.)
  int fd;
  SmallString<256> temp;
  if (llvm::sys::fs::createUniqueFile(path + ".tmp%%%%%%%%", fd, temp))
    return;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    std::string records = serializeRecords(a);
    os << kCacheMagic << llvm::utohexstr(llvm::xxh3_64bits(records)) << '\n'
       << records;
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return;
    }
  }
  if (llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return;
  }
  uint64_t limit = uint64_t(4096) << 20;
  if (const char *mb = std::getenv("TRACED_CACHE_MAX_MB"))
    if (uint64_t v; !StringRef(mb).getAsInteger(10, v))
      limit = v << 20;
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> time;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    if (llvm::sys::path::extension(it->path()) != ".tco")
      continue;
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status))
      continue;
    entries.push_back({it->path(), status.getSize(),
                       status.getLastModificationTime()});
    total += status.getSize();
  }
  llvm::sort(entries, [](const Entry &x, const Entry &y) {
    return x.time < y.time;
  });
  for (const Entry &e : entries) {
    if (total <= limit)
      break;
    if (e.path != path && !llvm::sys::fs::remove(e.path))
      total -= e.size;
  }
}

/// Links an artifact's object into a fresh JIT and looks its entry points
/// up (CpuModule's members are private to it and CpuModule).
struct mlir::traced::CpuModuleLoader {
  static FailureOr<std::unique_ptr<CpuModule>>
  load(mlir::ModuleOp module, Artifact a, StringRef entryName,
       const CompileMonitor &monitor, bool fromCache);
};

FailureOr<std::unique_ptr<CpuModule>>
CpuModule::compile(mlir::ModuleOp module, const CpuPipelineOptions &options,
                   const CompileMonitor &monitor, StringRef cacheDir) {
  std::string path;
  if (!cacheDir.empty()) {
    TimingScope scope = stage(monitor, "compile cache lookup");
    SmallString<256> p(cacheDir);
    llvm::sys::path::append(p, cacheKey(module, options) + ".tco");
    path = p.str().str();
    if (auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                                  /*RequiresNullTerminator=*/false))
      if (std::optional<Artifact> cached =
              deserialize((*buffer)->getBuffer())) {
        scope.stop();
        // (A corrupt entry that does not load is compiled again below.)
        auto loaded = CpuModuleLoader::load(module, std::move(*cached),
                                            options.entry.getValue(), monitor,
                                            /*fromCache=*/true);
        if (succeeded(loaded)) {
          // (Now, for the least-recently-used eviction.)
          (void)::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
          return loaded;
        }
      }
  }
  Artifact artifact;
  {
    OwningOpRef<mlir::ModuleOp> copy(module.clone());
    auto userBlobs = resourceBlobs(module);
    FailureOr<FunctionType> signature = lowerForCpu(*copy, options, monitor);
    if (failed(signature))
      return failure();
    llvm::raw_string_ostream(artifact.signature) << *signature;
    copy->walk([&](Operation *f) {
      if (auto checks = f->getAttrOfType<ArrayAttr>("traced.checks");
          checks && f->hasAttr("traced.entry"))
        for (Attribute m : checks)
          artifact.checks.push_back(cast<StringAttr>(m).str());
    });
    // The large weights leave the module for the artifact
    // (`externalizeWeights`). The other blobs the pipeline made (small
    // panels, folded constants) are dead once LLVM IR holds their bytes:
    // they are freed right after the translation. The user's module keeps
    // its own.
    artifact.weights = externalizeWeights(*copy, userBlobs);
    FailureOr<SmallVector<SmallVector<char, 0>>> objects = emitObjects(
        *copy, llvm::CodeModel::Large, monitor, /*maxParts=*/64,
        [&](Operation *op) {
          for (auto *entry : resourceBlobs(op))
            if (!userBlobs.contains(entry))
              entry->setBlob(AsmResourceBlob());
        });
    if (failed(objects))
      return failure();
    artifact.objects = std::move(*objects);
  }
  if (!path.empty())
    storeInCache(path, artifact);
  return CpuModuleLoader::load(module, std::move(artifact),
                               options.entry.getValue(), monitor,
                               /*fromCache=*/false);
}

FailureOr<std::unique_ptr<CpuModule>>
CpuModuleLoader::load(mlir::ModuleOp module, Artifact a, StringRef entryName,
                      const CompileMonitor &monitor, bool fromCache) {
  std::unique_ptr<CpuModule> result(new CpuModule());
  result->fromCache = fromCache;
  TimingScope scope = stage(monitor, "link the object into the JIT");
  auto signature = dyn_cast_or_null<FunctionType>(
      parseType(a.signature, module.getContext()));
  if (!signature)
    return module.emitError("unreadable compiled signature '")
           << a.signature << "'";
  initializeLLVM();
  bool profile = std::getenv("TRACED_JIT_PROFILE") != nullptr;
  // As MLIR's ExecutionEngine links: RuntimeDyld with a section memory
  // manager, the perf and GDB listeners on request (upstream turns both on
  // by default: the perf one writes a jit-<pid>.dump directory under
  // /tmp/.debug for every process, half a gigabyte after one test run, and
  // the GDB one keeps a global list of every object), the process's
  // symbols, and libomp for the parallel loops (Debian's libomp-22-dev).
  auto jit =
      llvm::orc::LLJITBuilder()
          .setObjectLinkingLayerCreator([&](llvm::orc::ExecutionSession &es)
                                            -> llvm::Expected<std::unique_ptr<
                                                llvm::orc::ObjectLayer>> {
            auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                es, [](const llvm::MemoryBuffer &) {
                  return std::make_unique<llvm::SectionMemoryManager>();
                });
            if (profile) {
              if (auto *gdb =
                      llvm::JITEventListener::createGDBRegistrationListener())
                layer->registerJITEventListener(*gdb);
              if (auto *perf =
                      llvm::JITEventListener::createPerfJITEventListener())
                layer->registerJITEventListener(*perf);
            }
            return layer;
          })
          .create();
  if (!jit)
    return module.emitError("cannot create the JIT: ")
           << llvm::toString(jit.takeError());
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  char prefix = (*jit)->getDataLayout().getGlobalPrefix();
  if (llvm::sys::fs::exists(TRACED_LIBOMP_PATH)) {
    auto omp = llvm::orc::DynamicLibrarySearchGenerator::Load(
        TRACED_LIBOMP_PATH, prefix);
    if (!omp)
      return module.emitError("cannot load " TRACED_LIBOMP_PATH ": ")
             << llvm::toString(omp.takeError());
    main.addGenerator(std::move(*omp));
  }
  // Temporaries come from the buffer cache (BufferCache.h).
  llvm::orc::MangleAndInterner mangle((*jit)->getExecutionSession(),
                                      (*jit)->getDataLayout());
  llvm::orc::SymbolMap symbols;
  symbols[mangle(kAllocName)] = {
      llvm::orc::ExecutorAddr::fromPtr(
          +[](uint64_t size) { return jitAlloc(size); }),
      llvm::JITSymbolFlags::Exported};
  symbols[mangle(kFreeName)] = {
      llvm::orc::ExecutorAddr::fromPtr(+[](void *ptr) { jitFree(ptr); }),
      llvm::JITSymbolFlags::Exported};
  // Truncations to bfloat16 without AVX-512 BF16 are calls of compiler-rt's
  // builtins, which Debian 12's libgcc (GCC 12) lacks.
  symbols[mangle("__truncsfbf2")] = {
      llvm::orc::ExecutorAddr::fromPtr(&traced_truncsfbf2),
      llvm::JITSymbolFlags::Exported};
  symbols[mangle("__truncdfbf2")] = {
      llvm::orc::ExecutorAddr::fromPtr(&traced_truncdfbf2),
      llvm::JITSymbolFlags::Exported};
  // The CPU runtime's entry points (docs/linalg-runtime.md): LAPACK, torch's
  // orderings (sort, topk, kthvalue; mode), the scalar special functions
  // (docs/special-runtime.md) and the CTC loss.
  for (auto part : {traced_linalg_runtime_symbols, traced_sort_runtime_symbols,
                    traced_special_runtime_symbols, traced_stats_runtime_symbols,
                    traced_loss_runtime_symbols, traced_int8_runtime_symbols}) {
    int64_t count = 0;
    const TracedRuntimeSymbol *table = part(&count);
    for (int64_t i = 0; i < count; ++i)
      symbols[mangle(table[i].name)] = {
          llvm::orc::ExecutorAddr::fromPtr(table[i].address),
          llvm::JITSymbolFlags::Exported};
  }
  // The weights the object declares (`externalizeWeights`).
  for (const Weight &w : a.weights)
    symbols[mangle(w.symbol)] = {
        llvm::orc::ExecutorAddr::fromPtr(w.bytes.getData().data()),
        llvm::JITSymbolFlags::Exported};
  if (llvm::Error err = main.define(llvm::orc::absoluteSymbols(symbols)))
    return module.emitError("cannot define the allocation functions: ")
           << llvm::toString(std::move(err));
  // (The objects' bytes move into the buffers.)
  for (auto [i, object] : llvm::enumerate(a.objects))
    if (llvm::Error err = (*jit)->addObjectFile(
            std::make_unique<llvm::SmallVectorMemoryBuffer>(
                std::move(object), "traced-object-" + std::to_string(i),
                /*RequiresNullTerminator=*/false)))
      return module.emitError("cannot add the object to the JIT: ")
             << llvm::toString(std::move(err));
  bool dynamic = llvm::any_of(
      llvm::concat<const Type>(signature.getInputs(), signature.getResults()),
      [](Type t) { return !cast<RankedTensorType>(t).hasStaticShape(); });
  std::string prefixName = "traced_" + entryName.str();
  auto lookup = [&](StringRef name) -> FailureOr<void *> {
    auto symbol = (*jit)->lookup(name);
    if (!symbol) {
      module.emitError("the JIT has no symbol '")
          << name << "': " << llvm::toString(symbol.takeError());
      return failure();
    }
    return symbol->toPtr<void *>();
  };
  FailureOr<void *> entry = lookup(prefixName + (dynamic ? "_sized" : ""));
  if (failed(entry))
    return failure();
  if (dynamic) {
    FailureOr<void *> shapes = lookup(prefixName + "_output_shapes");
    FailureOr<void *> names = lookup(prefixName + "_dim_names");
    if (failed(shapes) || failed(names))
      return failure();
    result->sizedEntry =
        reinterpret_cast<int (*)(void **, void **, const int64_t *)>(*entry);
    result->outputShapesFn =
        reinterpret_cast<int (*)(const int64_t *, int64_t *)>(*shapes);
    StringRef text(reinterpret_cast<const char *>(*names));
    SmallVector<StringRef> parts;
    text.split(parts, ' ', -1, /*KeepEmpty=*/false);
    for (StringRef p : parts)
      result->dimNames.push_back(p.str());
  } else {
    result->entry = reinterpret_cast<int (*)(void **, void **)>(*entry);
  }
  scope.stop();
  if (monitor.progress)
    clearProgress();
  result->jit = std::move(*jit);
  result->checks = std::move(a.checks);
  for (Weight &w : a.weights)
    result->weights.push_back(std::move(w.bytes));
  result->signature = signature;
  auto specs = [](TypeRange types) {
    std::vector<CpuModule::TensorSpec> out;
    for (Type t : types) {
      auto tensor = cast<RankedTensorType>(t);
      CpuModule::TensorSpec spec;
      for (int64_t d : tensor.getShape())
        spec.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
      llvm::raw_string_ostream os(spec.dtype);
      os << tensor.getElementType();
      out.push_back(std::move(spec));
    }
    return out;
  };
  result->inputSpecs = specs(signature.getInputs());
  result->resultSpecs = specs(signature.getResults());
  for (Type t : signature.getResults())
    llvm::append_range(result->staticOutputDims,
                       cast<RankedTensorType>(t).getShape());
  return result;
}

std::optional<std::string> CpuModule::run(void **inputs, void **outputs,
                                          const int64_t *sizes,
                                          bool *outOfMemory) const {
  int status = 0;
  std::optional<AllocationFailure> failure = callUnwindingAllocations(
      [&] {
        return sizedEntry ? sizedEntry(inputs, outputs, sizes)
                          : entry(inputs, outputs);
      },
      status);
  if (failure) {
    if (outOfMemory)
      *outOfMemory = true;
    std::string message =
        "out of memory: compiled code could not allocate " +
        std::to_string(failure->bytes) + " bytes for a temporary";
    if (failure->limit)
      message += ", more than " + describeTensorBytesLimit();
    return message;
  }
  if (status == 0)
    return std::nullopt;
  if (status > 0 && static_cast<size_t>(status) <= checks.size())
    return checks[status - 1];
  return "run-time check " + std::to_string(status) + " failed";
}
