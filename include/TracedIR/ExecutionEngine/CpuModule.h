//===- CpuModule.h - compiled traced models for the CPU ---------*- C++ -*-===//
//
// A traced module compiled by traced-cpu-pipeline, either JIT-loaded through
// MLIR's ExecutionEngine or written as an object file for a shared library.
// Both expose the same C entry point,
//
//   void traced_<entry>(void **inputs, void **outputs);
//
// where inputs[i] / outputs[j] point to dense row-major buffers of the
// static shapes and element types in `getSignature()`. The caller owns all
// buffers; the function allocates and frees its own temporaries.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_EXECUTIONENGINE_CPUMODULE_H
#define TRACEDIR_EXECUTIONENGINE_CPUMODULE_H

#include "TracedIR/Conversion/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlir::traced {

/// Runs traced-cpu-pipeline on `module` in place (traced IR to the LLVM
/// dialect) and returns the entry's tensor signature. Diagnostics go to the
/// module's context.
FailureOr<FunctionType> lowerForCpu(mlir::ModuleOp module,
                                    const CpuPipelineOptions &options);

/// Writes `module` (already in the LLVM dialect) as an object file for this
/// host's CPU, optimized at -O3.
LogicalResult writeCpuObject(mlir::ModuleOp module, llvm::raw_ostream &os);

/// Registers `traced-translate --run` and `--traced-cpu-object`.
void registerRunTranslations();
/// Registers `traced-translate --traced-gpu-object` and `--traced-gpu-ptx`.
void registerGpuTranslations();

class CpuModule {
public:
  ~CpuModule();
  /// Compiles a copy of `module` and JIT-loads it.
  static FailureOr<std::unique_ptr<CpuModule>>
  compile(mlir::ModuleOp module, const CpuPipelineOptions &options);

  /// The entry's signature: statically shaped tensor inputs and results.
  FunctionType getSignature() const { return signature; }
  /// Runs the model once.
  void run(void **inputs, void **outputs) const { entry(inputs, outputs); }

private:
  CpuModule() = default;
  std::unique_ptr<ExecutionEngine> engine;
  FunctionType signature;
  void (*entry)(void **, void **) = nullptr;
};

} // namespace mlir::traced

#endif // TRACEDIR_EXECUTIONENGINE_CPUMODULE_H
