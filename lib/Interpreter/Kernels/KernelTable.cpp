//===- KernelTable.cpp - each op-library entry's interpreter kernel -------===//
//
// The interpreter's kernel for each canonical op-library entry, by name
// (an ATen overload runs its entry's kernel). Each family file names its
// own entries' kernels (populate<Family>Kernels), as the lowerings and the
// decompositions do, and each entry's family is remembered: an entry has
// the same family in every layer (python/tests/test_op_families.py). The
// op library (signatures, result rules) knows nothing of kernels: they
// live here, above it, with the BLAS they call, so that the dialect links
// neither.
//
//===----------------------------------------------------------------------===//

#include "TracedIR/Interpreter/Kernels.h"

#include "Kernels.h"
#include "TracedIR/Support/FamilyTable.h"

using namespace mlir;
using namespace mlir::traced;

static const FamilyTable<Kernel> &getFamilies() {
  static const FamilyTable<Kernel> families = [] {
    FamilyTable<Kernel> f;
    f.add("Backward", kernels::populateBackwardKernels);
    f.add("Elementwise", kernels::populateElementwiseKernels);
    f.add("Factory", kernels::populateFactoryKernels);
    f.add("Index", kernels::populateIndexKernels);
    f.add("Linalg", kernels::populateLinalgKernels);
    f.add("Loss", kernels::populateLossKernels);
    f.add("Norm", kernels::populateNormKernels);
    f.add("Pool", kernels::populatePoolKernels);
    f.add("Quantized", kernels::populateQuantizedKernels);
    f.add("Reduce", kernels::populateReduceKernels);
    f.add("Shape", kernels::populateShapeKernels);
    f.add("Sort", kernels::populateSortKernels);
    return f;
  }();
  return families;
}

const llvm::StringMap<Kernel> &traced::getKernelTable() {
  return getFamilies().table;
}

Kernel traced::lookupKernel(llvm::StringRef entry) {
  return getKernelTable().lookup(entry);
}

Kernel traced::lookupQuantizedKernel(llvm::StringRef entry) {
  static const llvm::StringMap<Kernel> table = [] {
    llvm::StringMap<Kernel> t;
    kernels::populateSameQParamsKernels(t);
    return t;
  }();
  return table.lookup(entry);
}

llvm::StringRef traced::kernelFamily(llvm::StringRef entry) {
  return getFamilies().family.lookup(entry);
}
