//===- KernelTable.cpp - each op-library entry's interpreter kernel -------===//
//
// The interpreter's kernel for each canonical op-library entry, by name
// (an ATen overload runs its entry's kernel). Each family file names its
// own entries' kernels (populate<Family>Kernels), as the lowerings and the
// decompositions do. The op library (signatures, result rules) knows
// nothing of kernels: they live here, above it, with the BLAS they call,
// so that the dialect links neither.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Interpreter/Kernels.h"

#include "Kernels.h"

using namespace mlir;
using namespace mlir::traced;

const llvm::StringMap<Kernel> &traced::getKernelTable() {
  static const llvm::StringMap<Kernel> table = [] {
    kernels::KernelTable t;
    kernels::populateBackwardKernels(t);
    kernels::populateElementwiseKernels(t);
    kernels::populateFactoryKernels(t);
    kernels::populateIndexKernels(t);
    kernels::populateLinalgKernels(t);
    kernels::populateLossKernels(t);
    kernels::populateNormKernels(t);
    kernels::populatePoolKernels(t);
    kernels::populateReduceKernels(t);
    kernels::populateShapeKernels(t);
    kernels::populateSortKernels(t);
    return t;
  }();
  return table;
}

Kernel traced::lookupKernel(llvm::StringRef entry) {
  return getKernelTable().lookup(entry);
}
