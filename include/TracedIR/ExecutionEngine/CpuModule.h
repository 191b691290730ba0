//===- CpuModule.h - compiled traced models for the CPU ---------*- C++ -*-===//
//
// A traced module compiled by traced-cpu-pipeline, either linked into a JIT
// (LLVM's ORC, from an object file that may come from the compile cache) or
// written as an object file for a shared library.
// Both expose the same C entry point,
//
//   int traced_<entry>(void **inputs, void **outputs);
//
// where inputs[i] / outputs[j] point to dense row-major buffers of the
// static shapes and element types in `getSignature()` (a model with dynamic
// dims has `traced_<entry>_sized(inputs, outputs, const int64_t *sizes)`
// and `traced_<entry>_output_shapes` instead: traced_abi.h). The caller owns all
// buffers; the function allocates and frees its own temporaries. It
// returns 0, or the number of the run-time check that failed (traced_abi.h).
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_EXECUTIONENGINE_CPUMODULE_H
#define TRACEDIR_EXECUTIONENGINE_CPUMODULE_H

#include "TracedIR/Conversion/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir {
class DialectRegistry;
class TimingScope;
} // namespace mlir

namespace mlir::traced {

/// What a compilation reports while it runs.
struct CompileMonitor {
  /// Show the running pass on stderr (Progress.h); callers pass
  /// `progressWanted()` for the terminal default.
  bool progress = false;
  /// Time each pass and LLVM stage under this scope (a DefaultTimingManager's
  /// root scope prints them as `--mlir-timing` does).
  TimingScope *timing = nullptr;
  /// Asked, on the compiling thread, before each pass of the pipeline and
  /// each LLVM stage: true stops the compile, which then fails with
  /// "the compile was interrupted" (Python asks whether Ctrl-C was
  /// pressed). Once it has said true it is not asked again.
  std::function<bool()> cancelled;
  /// Whether `cancelled` said true (checkCancelled sets it).
  mutable bool wasCancelled = false;
  /// Asks `cancelled` unless it already said true; false without one.
  bool checkCancelled() const {
    if (!wasCancelled && cancelled && cancelled())
      wasCancelled = true;
    return wasCancelled;
  }
};

/// Runs traced-cpu-pipeline on `module` in place (traced IR to the LLVM
/// dialect) and returns the entry's tensor signature. Diagnostics go to the
/// module's context.
FailureOr<FunctionType> lowerForCpu(mlir::ModuleOp module,
                                    const CpuPipelineOptions &options,
                                    const CompileMonitor &monitor = {});

/// Writes `module` (already in the LLVM dialect) as an object file for this
/// host's CPU, optimized at -O3.
LogicalResult writeCpuObject(mlir::ModuleOp module, llvm::raw_ostream &os,
                             const CompileMonitor &monitor = {});

/// What compiling a traced module needs registered in its context: the
/// traced dialect, every upstream dialect and extension (the pipelines'
/// bufferization and to-LLVM interfaces), the vector subset interfaces the
/// CPU tiling hoists with, and every dialect's LLVM IR translation.
void registerCompilerDialects(DialectRegistry &registry);

/// Registers `traced-translate --run` and `--traced-cpu-object`.
void registerRunTranslations();
/// Registers `traced-translate --traced-gpu-object` and `--traced-gpu-ptx`.
void registerGpuTranslations();

/// The compile cache's directory from the environment: "" (off) when
/// TRACED_CACHE is 0 or off, else TRACED_CACHE_DIR, else
/// $XDG_CACHE_HOME/traced or ~/.cache/traced (docs/cpu.md).
std::string defaultCompileCacheDir();

class CpuModule {
public:
  ~CpuModule();
  /// Compiles a copy of `module` to an object file for this host and links
  /// it into a JIT. With a `cacheDir`, the object is first looked up there
  /// by a hash of the module, its blobs, the options, this CPU and the
  /// compiler's build, and stored there after a miss.
  static FailureOr<std::unique_ptr<CpuModule>>
  compile(mlir::ModuleOp module, const CpuPipelineOptions &options,
          const CompileMonitor &monitor = {}, llvm::StringRef cacheDir = {});
  /// Whether `compile` found the object in the cache.
  bool loadedFromCache() const { return fromCache; }

  /// The entry's signature: ranked tensor inputs and results (`?` for the
  /// dynamic dims of a model traced with dynamic_dims). Its types belong to
  /// the compiled module's context: valid while that context lives (the
  /// compiled code itself does not need it).
  FunctionType getSignature() const { return signature; }
  /// One input or result of the signature as plain data (shape with -1 for
  /// a dynamic dim, element type as MLIR prints it), which stays valid after
  /// the context is gone (the Python bindings read only this).
  struct TensorSpec {
    std::vector<int64_t> shape;
    std::string dtype;
  };
  ArrayRef<TensorSpec> getInputSpecs() const { return inputSpecs; }
  ArrayRef<TensorSpec> getResultSpecs() const { return resultSpecs; }
  /// Whether the signature has dynamic dims: then `run` takes their sizes.
  bool isDynamic() const { return sizedEntry != nullptr; }
  /// The name of each `?` of the inputs, in signature order (empty for a
  /// static model). The sizes `run` takes are those of the distinct names,
  /// in order of first appearance.
  ArrayRef<std::string> getDimNames() const { return dimNames; }
  /// Every output dim (outputs in order) for the named `sizes` (one per
  /// distinct name); for a static model, the static shapes.
  std::vector<int64_t> outputShapes(const int64_t *sizes) const {
    std::vector<int64_t> shapes(std::max<size_t>(staticOutputDims.size(), 1));
    if (outputShapesFn)
      outputShapesFn(sizes, shapes.data());
    else
      shapes = staticOutputDims;
    shapes.resize(staticOutputDims.size());
    return shapes;
  }
  /// Runs the model once; `sizes` (the named dynamic dims' sizes) only for
  /// a dynamic model. When a run-time check fails (an index out of bounds,
  /// a boolean mask selecting another count than the traced one: what
  /// torch raises on), returns its message, and the outputs are
  /// unspecified. So when a temporary cannot be allocated (the system
  /// refuses it, or it exceeds max_tensor_bytes: BufferCache.h); then
  /// `outOfMemory`, when given, is set.
  std::optional<std::string> run(void **inputs, void **outputs,
                                 const int64_t *sizes = nullptr,
                                 bool *outOfMemory = nullptr) const;
  /// The messages of the run-time checks, in order (check k is k - 1).
  ArrayRef<std::string> getChecks() const { return checks; }

private:
  friend struct CpuModuleLoader;
  CpuModule() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  bool fromCache = false;
  FunctionType signature;
  std::vector<TensorSpec> inputSpecs, resultSpecs;
  std::vector<std::string> checks;
  int (*entry)(void **, void **) = nullptr;
  int (*sizedEntry)(void **, void **, const int64_t *) = nullptr;
  int (*outputShapesFn)(const int64_t *, int64_t *) = nullptr;
  std::vector<std::string> dimNames;
  /// Every output dim (kDynamic where dynamic): the output count and ranks
  /// outlive the context the signature's types belong to.
  std::vector<int64_t> staticOutputDims;
  /// The weights the JIT's code reads: the object only declares them
  /// (docs/cpu.md, "Weights outside the object").
  std::vector<AsmResourceBlob> weights;
};

} // namespace mlir::traced

#endif // TRACEDIR_EXECUTIONENGINE_CPUMODULE_H
