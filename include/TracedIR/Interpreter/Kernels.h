//===- Kernels.h - the interpreter's kernels, by op-library entry -*- C++ -*-===//
//
// The reference interpreter's kernel for each op-library entry. The op
// library (signatures, result rules, the dialect's verifier) does not know
// them: they live in the TracedKernels library (lib/Interpreter/Kernels,
// one file per op family), with the BLAS they call. The interpreter and
// traced-fold-constants look them up by the entry's canonical name.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_INTERPRETER_KERNELS_H
#define TRACEDIR_INTERPRETER_KERNELS_H

#include "TracedIR/Interpreter/Value.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::traced {

/// Every kernel, by canonical entry name.
const llvm::StringMap<Kernel> &getKernelTable();
/// The kernel of canonical entry `entry` (an OpSpec's `name`; ATen
/// overloads share their entry's), or null.
Kernel lookupKernel(llvm::StringRef entry);
/// The quantized kernel of an entry whose calls on quantized tensors have
/// their own semantics (QuantizedUse::SameQParams: relu, hardtanh,
/// adaptive average pooling; lib/Interpreter/Kernels/Quantized.cpp), or
/// null.
Kernel lookupQuantizedKernel(llvm::StringRef entry);
/// The family (Elementwise, Factory, Linalg, Loss, Norm, Pool, Quantized,
/// Reduce, Shape, Index, Sort, Backward) of the file that names `entry`'s kernel,
/// or "" when it has none.
llvm::StringRef kernelFamily(llvm::StringRef entry);

} // namespace mlir::traced

#endif // TRACEDIR_INTERPRETER_KERNELS_H
