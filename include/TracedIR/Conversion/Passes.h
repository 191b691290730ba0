//===- Passes.h - lowering traced IR to native code -------------*- C++ -*-===//

#ifndef TRACEDIR_CONVERSION_PASSES_H
#define TRACEDIR_CONVERSION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::traced {

#define GEN_PASS_DECL
#include "TracedIR/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "TracedIR/Conversion/Passes.h.inc"

/// The attribute marking, inside a `gpu.launch`, an
/// `unrealized_conversion_cast` of a buffer to i64 as "the device address of
/// a TMA tensor map over this buffer" (its value: the box, innermost
/// dimension first). `traced-gpu-tile-contractions` makes these;
/// `traced-gpu-device-buffers` replaces each with a host call of
/// `traced_gpu_tensor_map` (lib/Runtime/Cuda) whose result the kernel
/// receives.
inline constexpr llvm::StringLiteral kTensorMapAttrName = "traced.tensor_map";

/// The targets `convert-traced-to-linalg` lowers, sorted.
std::vector<std::string> getLoweredTargets();
/// The family (Elementwise, Factory, Linalg, ...; an entry's family is the
/// same in every layer) of the file that names `entry`'s direct lowering,
/// or "" when it has none.
llvm::StringRef loweringFamily(llvm::StringRef entry);

/// Options of `traced-cpu-pipeline`.
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("The root graph to compile"),
                            llvm::cl::init("forward")};
  Option<bool> vectorize{*this, "vectorize",
                         llvm::cl::desc("Tile and vectorize (off: plain loops)"),
                         llvm::cl::init(true)};
  Option<bool> threads{
      *this, "threads",
      llvm::cl::desc("Run big contractions and elementwise ops on several "
                     "threads (OpenMP; OMP_NUM_THREADS sets how many)"),
      llvm::cl::init(true)};
  Option<int64_t> tileN{
      *this, "tile-n",
      llvm::cl::desc("Register tile columns: 32 for AVX-512, 16 for AVX2; "
                     "0 picks by this host's CPU"),
      llvm::cl::init(0)};
  Option<bool> packRhs{
      *this, "pack-rhs",
      llvm::cl::desc("Pack matmul right-hand sides into contiguous column "
                     "panels (traced-cpu-tile-and-vectorize's pack-rhs)"),
      llvm::cl::init(true)};
  Option<bool> winograd{
      *this, "winograd",
      llvm::cl::desc("Compute 3x3 convolutions of unit stride as Winograd "
                     "F(2x2, 3x3) (traced-cpu-tile-and-vectorize's winograd)"),
      llvm::cl::init(true)};
  Option<bool> surgery{
      *this, "surgery",
      llvm::cl::desc("Run traced-flatten, traced-normalize, "
                     "traced-fuse-conv-bn and canonicalize first"),
      llvm::cl::init(true)};
  Option<int64_t> splitOps{
      *this, "split-ops",
      llvm::cl::desc("Split functions of more top-level ops into parts of "
                     "at most this many (traced-cpu-split-functions' "
                     "max-ops; 0 never splits)"),
      llvm::cl::init(100)};
  Option<bool> arena{
      *this, "arena",
      llvm::cl::desc("Plan the temporaries of each function into one "
                     "buffer at compile time (off: one allocation each)"),
      llvm::cl::init(true)};
  ListOption<std::string> donate{
      *this, "donate",
      llvm::cl::desc("input:output index pairs: the caller passes the "
                     "input's buffer for the output too, which is updated "
                     "in place (traced-cpu-donate-arguments)")};
  Option<bool> checks{
      *this, "checks",
      llvm::cl::desc("Keep the run-time checks torch makes (index bounds, "
                     "mask counts) and the trace's guards; off erases them "
                     "(docs/reliability.md, \"Run-time checks\")"),
      llvm::cl::init(true)};
};

/// Options of `traced-gpu-pipeline`.
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("The root graph to compile"),
                            llvm::cl::init("forward")};
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("The target GPU (sm_XX)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features", llvm::cl::desc("NVPTX features (PTX version)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu.binary format: isa (PTX, the driver JIT-compiles "
                     "it), bin (cubin) or fatbin (both need ptxas)"),
      llvm::cl::init("isa")};
  Option<bool> binary{*this, "binary",
                      llvm::cl::desc("Serialize kernels (off: stop at NVVM)"),
                      llvm::cl::init(true)};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};
  Option<bool> surgery{
      *this, "surgery",
      llvm::cl::desc("Run traced-flatten, traced-normalize, "
                     "traced-fuse-conv-bn and canonicalize first"),
      llvm::cl::init(true)};
  Option<bool> tf32{
      *this, "tf32",
      llvm::cl::desc("float32 matmuls on TF32 tensor cores "
                     "(traced-gpu-tile-contractions' `tf32`; sm_80 and later; "
                     "off: exact float32 FMAs)"),
      llvm::cl::init(false)};
  Option<bool> blockReductions{
      *this, "block-reductions",
      llvm::cl::desc("Reductions computed by a warp or a block per output "
                     "(traced-gpu-reductions); off: one thread per output"),
      llvm::cl::init(true)};
  Option<bool> rowKernels{
      *this, "row-kernels",
      llvm::cl::desc("traced-gpu-reductions' `rows` option: softmax, "
                     "LayerNorm and the like as one kernel, a warp per row "
                     "(off: a kernel per reduction and elementwise op)"),
      llvm::cl::init(true)};
  Option<bool> tileContractions{
      *this, "tile-contractions",
      llvm::cl::desc("Shared-memory tiled kernels for float32 matmuls and "
                     "convolutions (traced-gpu-tile-contractions); off: one "
                     "thread per output"),
      llvm::cl::init(true)};
  Option<bool> contiguousThreadTiles{
      *this, "contiguous-thread-tiles",
      llvm::cl::desc("traced-gpu-tile-contractions' `contiguous` option"),
      llvm::cl::init(true)};
  Option<bool> fuseEpilogues{
      *this, "fuse-epilogues",
      llvm::cl::desc("traced-gpu-tile-contractions' `fuse` option: the "
                     "float32 kernels take in a convolution's padded input, "
                     "C's zero fill and the elementwise op after them (on by "
                     "default: faster on every model measured on an H200, "
                     "docs/gpu.md)"),
      llvm::cl::init(true)};
  Option<int64_t> tileKStep{
      *this, "tile-k-step",
      llvm::cl::desc("traced-gpu-tile-contractions' `k-step` option"),
      llvm::cl::init(8)};
  Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("Tensor-core kernels for bfloat16 and float16 matmuls "
                     "(traced-gpu-tile-contractions' `tensor-cores`; only "
                     "for sm_80 and later)"),
      llvm::cl::init(true)};
  Option<int64_t> mmaStages{
      *this, "mma-stages",
      llvm::cl::desc("traced-gpu-tile-contractions' `mma-stages` option"),
      llvm::cl::init(0)};
  Option<int64_t> mmaKStep{
      *this, "mma-k-step",
      llvm::cl::desc("traced-gpu-tile-contractions' `mma-k-step` option"),
      llvm::cl::init(0)};
  Option<int64_t> mmaBlockN{
      *this, "mma-block-n",
      llvm::cl::desc("traced-gpu-tile-contractions' `mma-block-n` option"),
      llvm::cl::init(0)};
  Option<int64_t> mmaBlockM{
      *this, "mma-block-m",
      llvm::cl::desc("traced-gpu-tile-contractions' `mma-block-m` option"),
      llvm::cl::init(0)};
  Option<bool> wgmma{
      *this, "wgmma",
      llvm::cl::desc("Warpgroup MMAs (wgmma) in the tensor-core kernels "
                     "where the chip has them (sm_90a); off: mma.sync"),
      llvm::cl::init(true)};
  Option<bool> tma{
      *this, "tma",
      llvm::cl::desc("With wgmma: TMA loads by a producer warpgroup "
                     "(traced-gpu-tile-contractions' `tma`; the faster on an "
                     "H200, docs/gpu.md); off: asynchronous copies by every "
                     "thread"),
      llvm::cl::init(true)};
  Option<int64_t> tileMinBlocks{
      *this, "tile-min-blocks",
      llvm::cl::desc("traced-gpu-align-workgroup's `min-blocks` option"),
      llvm::cl::init(2)};
};

/// traced IR to host LLVM dialect plus `gpu.binary` kernels for NVIDIA GPUs.
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

/// Registers `traced-gpu-pipeline`.
void registerGpuPipeline();

/// traced IR (or linalg on tensors) to the LLVM dialect, with the C entry
/// points of `traced-emit-entry`.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// Registers `traced-cpu-pipeline`.
void registerCpuPipeline();

namespace detail {
/// The graph passes (when `surgery`), convert-traced-to-linalg and
/// elementwise fusion: what the CPU and GPU pipelines share.
void addFrontEnd(OpPassManager &pm, StringRef entry, bool surgery,
                 bool int8Kernels = true);
/// One-shot bufferization with results as out-parameters, deallocation,
/// and strided copies as loops (small row-contiguous tiles as vector
/// transfers when `vectorTiles`); with `arena`, each function's
/// temporaries planned into one buffer (the CPU pipeline's PlanArena).
/// `donate`: traced-cpu-donate-arguments' input:output pairs.
void addBufferization(OpPassManager &pm, bool vectorTiles, bool arena = false,
                      bool parallel = false, bool checks = true,
                      ArrayRef<std::string> donate = {});
/// Rebuilds reads of a slice's value that follow its write-back into the
/// written tensor (Cpu/Donation.cpp), so that one-shot bufferization keeps
/// writes through views in place.
std::unique_ptr<Pass> createRereadWrittenSlices();
/// Erases copies of a buffer onto itself (two identical subviews of one
/// buffer) that bufferization leaves (Cpu/Donation.cpp).
std::unique_ptr<Pass> createDropSelfCopies();
/// Parses `text` (passes registered on first use) into `pm`.
void addPipelineText(OpPassManager &pm, StringRef text);
} // namespace detail

} // namespace mlir::traced

#endif // TRACEDIR_CONVERSION_PASSES_H
