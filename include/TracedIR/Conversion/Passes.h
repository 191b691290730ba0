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

/// The targets `convert-traced-to-linalg` lowers, sorted.
std::vector<std::string> getLoweredTargets();

/// Options of `traced-cpu-pipeline`.
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("The root graph to compile"),
                            llvm::cl::init("forward")};
  Option<bool> vectorize{*this, "vectorize",
                         llvm::cl::desc("Tile and vectorize (off: plain loops)"),
                         llvm::cl::init(true)};
  Option<int64_t> tileN{
      *this, "tile-n",
      llvm::cl::desc("Register tile columns (32 for AVX-512, 16 for AVX2)"),
      llvm::cl::init(32)};
  Option<bool> surgery{
      *this, "surgery",
      llvm::cl::desc("Run traced-flatten, traced-normalize, "
                     "traced-fuse-conv-bn and canonicalize first"),
      llvm::cl::init(true)};
};

/// traced IR (or linalg on tensors) to the LLVM dialect, with the C entry
/// points of `traced-emit-entry`.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

/// Registers `traced-cpu-pipeline`.
void registerCpuPipeline();

} // namespace mlir::traced

#endif // TRACEDIR_CONVERSION_PASSES_H
