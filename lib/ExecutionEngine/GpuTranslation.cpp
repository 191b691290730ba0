//===- GpuTranslation.cpp - traced-translate --traced-gpu-object / -ptx ---===//

#include "TracedIR/ExecutionEngine/CpuModule.h"
#include "TracedIR/Dialect/Traced/TracedDialect.h"
#include "TracedIR/Support/Translation.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace mlir::traced;

static llvm::cl::OptionCategory gpuCategory("traced-translate GPU targets");
static llvm::cl::opt<std::string>
    chipOption("gpu-chip", llvm::cl::desc("Target GPU (default sm_90)"),
               llvm::cl::init("sm_90"), llvm::cl::cat(gpuCategory));
static llvm::cl::opt<std::string> formatOption(
    "gpu-format",
    llvm::cl::desc("Kernel format in the object: isa (PTX, JIT-compiled by "
                   "the driver), bin (cubin) or fatbin; bin and fatbin run "
                   "ptxas (put the CUDA toolkit's bin/ on PATH)"),
    llvm::cl::init("isa"), llvm::cl::cat(gpuCategory));
static llvm::cl::opt<std::string>
    gpuEntryOption("gpu-entry", llvm::cl::desc("The root graph to compile"),
                   llvm::cl::init("forward"), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<bool> tileOption(
    "gpu-tile-contractions",
    llvm::cl::desc("Shared-memory tiled matmul and convolution kernels "
                   "(default on)"),
    llvm::cl::init(true), llvm::cl::cat(gpuCategory));
static llvm::cl::opt<bool> contiguousOption(
    "gpu-contiguous-thread-tiles",
    llvm::cl::desc("A thread's rows and columns of a tiled kernel in runs of "
                   "4 (default on)"),
    llvm::cl::init(true), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<bool> fuseOption(
    "gpu-fuse-epilogues",
    llvm::cl::desc("The float32 tiled kernels take in a convolution's padded "
                   "input copy, C's zero fill and the elementwise op after "
                   "them (default on; =false: separate kernels)"),
    llvm::cl::init(true), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<int64_t> kStepOption(
    "gpu-tile-k-step",
    llvm::cl::desc("K per step of the large (128 x 128) tiles: 8 (default) "
                   "or 16"),
    llvm::cl::init(8), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<int64_t> minBlocksOption(
    "gpu-tile-min-blocks",
    llvm::cl::desc("Blocks per multiprocessor ptxas must fit for the tiled "
                   "kernels (default 2; 0: ptxas decides)"),
    llvm::cl::init(2), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<bool> tf32Option(
    "gpu-tf32",
    llvm::cl::desc("float32 matmuls on TF32 tensor cores (default off: exact "
                   "float32; sm_80 and later)"),
    llvm::cl::init(false), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<bool> blockReductionsOption(
    "gpu-block-reductions",
    llvm::cl::desc("Reductions computed by a warp or a block per output "
                   "(default on; off: one thread per output)"),
    llvm::cl::init(true), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<bool> rowKernelsOption(
    "gpu-row-kernels",
    llvm::cl::desc("Softmax, LayerNorm and the like as one kernel, a warp "
                   "per row (default on; off: a kernel per reduction and "
                   "elementwise op)"),
    llvm::cl::init(true), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<bool> tensorCoreOption(
    "gpu-tensor-cores",
    llvm::cl::desc("Tensor-core kernels for bfloat16 and float16 matmuls "
                   "(default on; sm_80 and later)"),
    llvm::cl::init(true), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<int64_t> mmaStagesOption(
    "gpu-mma-stages",
    llvm::cl::desc("Buffers of the tensor-core kernels' copy pipeline "
                   "(default 0: 4)"),
    llvm::cl::init(0), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<int64_t> mmaKStepOption(
    "gpu-mma-k-step",
    llvm::cl::desc("K per step of the tensor-core kernels: 32 or 64 (default "
                   "0: 32, 64 with wgmma)"),
    llvm::cl::init(0), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<int64_t> mmaBlockNOption(
    "gpu-mma-block-n",
    llvm::cl::desc("Columns of C per block of the tensor-core kernels: 128 "
                   "or 256 (default 0: 128)"),
    llvm::cl::init(0), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<int64_t> mmaBlockMOption(
    "gpu-mma-block-m",
    llvm::cl::desc("Rows of C per block of the tensor-core kernels: 128 "
                   "or 256 (wgmma only; default 0: 128, 256 with wgmma)"),
    llvm::cl::init(0), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<bool> wgmmaOption(
    "gpu-wgmma",
    llvm::cl::desc("Warpgroup MMAs in the tensor-core kernels for "
                   "--gpu-chip=sm_90a (default on; off: mma.sync)"),
    llvm::cl::init(true), llvm::cl::cat(gpuCategory));

static llvm::cl::opt<bool> tmaOption(
    "gpu-tma",
    llvm::cl::desc("With wgmma, tiles loaded by TMA through a producer "
                   "warpgroup (default on; off: asynchronous copies by "
                   "every thread)"),
    llvm::cl::init(true), llvm::cl::cat(gpuCategory));

static LogicalResult lowerForGpu(mlir::ModuleOp module, StringRef format) {
  GpuPipelineOptions options;
  options.tileMinBlocks = minBlocksOption;
  options.tileKStep = kStepOption;
  options.tensorCores = tensorCoreOption;
  options.mmaStages = mmaStagesOption;
  options.mmaKStep = mmaKStepOption;
  options.mmaBlockN = mmaBlockNOption;
  options.wgmma = wgmmaOption;
  options.mmaBlockM = mmaBlockMOption;
  options.tma = tmaOption;
  options.tileContractions = tileOption;
  options.blockReductions = blockReductionsOption;
  options.rowKernels = rowKernelsOption;
  options.tf32 = tf32Option;
  options.contiguousThreadTiles = contiguousOption;
  options.fuseEpilogues = fuseOption;
  options.entry = gpuEntryOption.getValue();
  options.chip = chipOption.getValue();
  options.format = format.str();
  PassManager pm(module.getContext(), mlir::ModuleOp::getOperationName());
  buildGpuPipeline(pm, options);
  return pm.run(module);
}

void traced::registerGpuTranslations() {
  static traced::TracedFromMLIRRegistration objectRegistration(
      "traced-gpu-object",
      "compile the root graph for NVIDIA GPUs into a host object file with "
      "the kernels embedded, exporting traced_<entry>(void **inputs, void "
      "**outputs); link it with libtraced_cuda_runtime",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin module");
        if (failed(lowerForGpu(module, formatOption)))
          return failure();
        return writeCpuObject(module, os);
      },
      registerCompilerDialects);
  static traced::TracedFromMLIRRegistration ptxRegistration(
      "traced-gpu-ptx",
      "compile the root graph for NVIDIA GPUs and print the PTX of its "
      "kernels (one module per kernel, for ptxas)",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        auto module = dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitError("expected a builtin module");
        if (failed(lowerForGpu(module, "isa")))
          return failure();
        bool any = false;
        module.walk([&](gpu::BinaryOp binary) {
          for (Attribute attr : binary.getObjects()) {
            auto object = cast<gpu::ObjectAttr>(attr);
            os << "// kernel module " << binary.getSymName() << "\n"
               << object.getObject().getValue() << "\n";
            any = true;
          }
        });
        if (!any)
          return module.emitError("the compiled module has no GPU kernels");
        return success();
      },
      registerCompilerDialects);
}
